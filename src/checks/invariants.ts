// Invariant checkers that sit outside the code under test (TigerBeetle style): they read the cluster's
// state and the run's books and throw if something is impossible. The run calls them at the end, and
// every `checkEvery` of virtual time while it runs when asked to.
import type { Cluster } from "../model/Cluster.ts";
import { accountMessages, type GroupAccount } from "../metrics/accounting.ts";
import { runningInstances } from "../metrics/broadcastOffsets.ts";
import type { Recorder } from "../metrics/Recorder.ts";

export class InvariantError extends Error {}

/** Cache counters equal the cache contents, for every live ProcessQueue. */
export function checkCacheCounters(cl: Cluster): void {
  for (const c of cl.consumers) {
    for (const [mq, pq] of c.rebalance.processQueues()) {
      let count = 0;
      let bytes = 0;
      pq.forEachCached((o) => {
        count++;
        bytes += pq.bodyBytes(o);
      });
      count += pq.consumingCount;
      if (count !== pq.msgCount || (pq.consumingCount === 0 && bytes !== pq.msgSize)) {
        throw new InvariantError(
          `${c.clientId} ProcessQueue of ${cl.routes.label(mq)}: msgCount ${pq.msgCount} / msgSize ${pq.msgSize} ` +
            `but it holds ${count} messages / ${bytes} bytes`,
        );
      }
    }
  }
}

/**
 * Committed offsets never run ahead of consumption: every message below a group's committed offset on
 * the broker is consumed, sent back, dead-lettered, deleted by retention, skipped at the group's start,
 * or filtered out. A BROADCASTING group commits nothing to the broker: each running instance's local
 * offset (its offsetStore, spec §12.2) is checked against its own fates instead — a dropped message is
 * settled (lost) for it. The fates skip whole chunks without an unresolved message, so a check costs the
 * backlog, not the history.
 */
export function checkCommittedOffsets(cl: Cluster, rec: Recorder): void {
  for (const grp of cl.model.groups) {
    const instances = grp.messageModel === "BROADCASTING" ? runningInstances(cl, grp.index) : null;
    for (const sub of grp.subscriptions) {
      for (const mq of cl.routes.topicQueues(sub.topic)) {
        const q = cl.brokers[cl.routes.brokerOf(mq)]!.store.queue(mq);
        if (instances === null) {
          const committed = cl.brokers[cl.routes.brokerOf(mq)]!.offsets.queryOffset(grp.index, mq);
          checkBelow(rec, grp.index, mq, q, committed, () => `group ${grp.name} committed offset ${committed}`, cl);
          continue;
        }
        for (const c of instances) {
          const local = c.offsetStore.readOffset(mq);
          checkBelow(rec, rec.fates.subjectOf(grp.index, c.addr), mq, q, local, () => `group ${grp.name} instance ${c.clientId} local offset ${local}`, cl);
        }
      }
    }
  }
}

/** Throws if a message of [q.minOffset, offset) is unresolved for the fate subject. */
function checkBelow(rec: Recorder, subject: number, mq: number, q: { minOffset: number; maxOffset: number }, offset: number, what: () => string, cl: Cluster): void {
  const col = rec.fates.column(subject, mq);
  if (col === undefined) return;
  const o = col.nextUnresolved(q.minOffset, Math.min(offset, q.maxOffset));
  if (o >= 0) {
    throw new InvariantError(`${what()} on ${cl.routes.label(mq)} but message ${o} was never consumed, sent back, deleted or skipped`);
  }
}

/**
 * One live process per instance slot: an incarnation that was replaced (a restart) is crashed or shut
 * down, or still finishing its shutdown. Two running incarnations would pull and consume the same
 * queues under one client id.
 */
export function checkIncarnations(cl: Cluster): void {
  for (const c of cl.incarnations) {
    if (c === cl.consumers[c.index] || !c.alive || c.state !== "RUNNING" || c.shuttingDown) continue;
    const now = cl.consumers[c.index]!;
    throw new InvariantError(`instance slot ${c.index} (${c.clientId}) has two running incarnations: epoch ${c.epoch} was replaced by epoch ${now.epoch} while still running`);
  }
}

/**
 * Every check: cache counters, committed offsets, and the conservation of messages (whose accounts it
 * returns). A failure names the virtual time and the seed as well as the queue or group at fault.
 */
export function checkRun(cl: Cluster, rec: Recorder): GroupAccount[] {
  try {
    checkCacheCounters(cl);
    checkIncarnations(cl);
    checkCommittedOffsets(cl, rec);
    return accountMessages(cl, rec);
  } catch (e) {
    if (!(e instanceof Error)) throw e;
    const where = `at ${(cl.sched.nowUs / 1e6).toFixed(6)} s of virtual time (scenario ${cl.model.name}, seed ${cl.model.seed})`;
    e.message = `${where}: ${e.message}`;
    throw e;
  }
}
