// Invariant checkers that sit outside the code under test (TigerBeetle style): they read the cluster's
// state and the run's books and throw if something is impossible. The run calls them at the end, and
// every `checkEvery` of virtual time while it runs when asked to.
import type { Cluster } from "../model/Cluster.ts";
import { accountMessages, type GroupAccount } from "../metrics/accounting.ts";
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
 * or filtered out. The fates skip whole chunks without an unresolved message, so a check costs the
 * backlog, not the history.
 */
export function checkCommittedOffsets(cl: Cluster, rec: Recorder): void {
  for (const grp of cl.model.groups) {
    for (const sub of grp.subscriptions) {
      for (const mq of cl.routes.topicQueues(sub.topic)) {
        const col = rec.fates.column(grp.index, mq);
        if (col === undefined) continue;
        const broker = cl.brokers[cl.routes.brokerOf(mq)]!;
        const q = broker.store.queue(mq);
        const committed = broker.offsets.queryOffset(grp.index, mq);
        const o = col.nextUnresolved(q.minOffset, Math.min(committed, q.maxOffset));
        if (o >= 0) {
          throw new InvariantError(
            `group ${grp.name} committed offset ${committed} on ${cl.routes.label(mq)} but message ${o} was never consumed, sent back, deleted or skipped`,
          );
        }
      }
    }
  }
}

/**
 * Every check: cache counters, committed offsets, and the conservation of messages (whose accounts it
 * returns). A failure names the virtual time and the seed as well as the queue or group at fault.
 */
export function checkRun(cl: Cluster, rec: Recorder): GroupAccount[] {
  try {
    checkCacheCounters(cl);
    checkCommittedOffsets(cl, rec);
    return accountMessages(cl, rec);
  } catch (e) {
    if (!(e instanceof Error)) throw e;
    const where = `at ${(cl.sched.nowUs / 1e6).toFixed(6)} s of virtual time (scenario ${cl.model.name}, seed ${cl.model.seed})`;
    e.message = `${where}: ${e.message}`;
    throw e;
  }
}
