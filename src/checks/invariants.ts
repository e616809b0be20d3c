// Invariant checkers that sit outside the code under test (TigerBeetle style): they read the model's
// state and throw if it is impossible. simulate() runs them at the end of every run.
import { FATE_RESOLVED } from "../broker/QueueStore.ts";
import type { World } from "../model/World.ts";

export class InvariantError extends Error {}

/** Cache counters equal the cache contents, for every live ProcessQueue. */
export function checkCacheCounters(w: World): void {
  for (const c of w.consumers) {
    for (const [mq, pq] of c.rebalance.processQueues()) {
      let count = 0;
      let bytes = 0;
      const store = w.queues[mq]!;
      pq.forEachCached((o) => {
        count++;
        bytes += store.bodyBytes(o);
      });
      count += pq.consumingCount;
      if (count !== pq.msgCount || (pq.consumingCount === 0 && bytes !== pq.msgSize)) {
        throw new InvariantError(
          `${c.clientId} ProcessQueue of ${store.topic}#${store.queueId}: msgCount ${pq.msgCount} / msgSize ${pq.msgSize} ` +
            `but it holds ${count} messages / ${bytes} bytes`,
        );
      }
    }
  }
}

/**
 * Committed offsets never run ahead of consumption: every message below a group's committed offset on
 * the broker is consumed, sent back, dead-lettered, deleted by retention, or filtered out.
 */
export function checkCommittedOffsets(w: World): void {
  for (const grp of w.model.groups) {
    for (const sub of grp.subscriptions) {
      const slot = w.fates.slotOf(grp.index, sub.topic);
      for (const mq of w.topicQueues(sub.topic)) {
        const store = w.queues[mq]!;
        const committed = w.brokers[store.brokerIndex]!.queryOffset(grp.index, mq);
        const end = Math.min(committed, store.maxOffset);
        for (let o = Math.max(store.physicalMin, store.minOffset); o < end; o++) {
          if (sub.tagSet !== null && !sub.tagSet.has(store.tag(o))) continue;
          if ((store.fate(slot, o) & FATE_RESOLVED) === 0) {
            throw new InvariantError(
              `group ${grp.name} committed offset ${committed} on ${store.topic}@${store.brokerName}#${store.queueId} ` +
                `but message ${o} was never consumed, sent back or deleted`,
            );
          }
        }
      }
    }
  }
}

export function checkInvariants(w: World): void {
  checkCacheCounters(w);
  checkCommittedOffsets(w);
}
