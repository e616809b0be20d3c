// End-of-run message accounting and the conservation check.
//
// Counters kept while running say how many of each group's messages were consumed, dead-lettered or
// lost; everything else is still "awaiting". Here the awaiting ones are found independently — by
// walking the stored queues — and split by where they are: in a listener call, cached in a
// ProcessQueue, in the retry chain, or not pulled. The two ways of counting must agree:
//   produced = filtered + consumed + dlq + lost + inFlight + cached + retrying + unpulled
// and the walk must find exactly produced − filtered − consumed − dlq − lost awaiting messages.
import { FATE_COUNT_MASK, FATE_DLQ, FATE_LOST, FATE_RETRYING } from "../broker/QueueStore.ts";
import type { World } from "./World.ts";

export interface GroupAccount {
  group: string;
  produced: number;
  filtered: number;
  consumed: number;
  duplicates: number;
  dlq: number;
  lost: number;
  inFlight: number;
  cached: number;
  retrying: number;
  unpulled: number;
}

export class ConservationError extends Error {}

const UNSETTLED = FATE_COUNT_MASK | FATE_DLQ | FATE_LOST;

export function accountMessages(w: World): GroupAccount[] {
  return w.model.groups.map((grp) => {
    const f = w.metrics.fates[grp.index]!;
    const isAwaiting = (key: number) => (w.fates.fate(grp.index, key) & UNSETTLED) === 0;
    // 1. Walk every stored message of the group's topics.
    let awaitingWalked = 0;
    let retryingWalked = 0;
    for (const sub of grp.subscriptions) {
      const slot = w.fates.slotOf(grp.index, sub.topic);
      for (const mq of w.topicQueues(sub.topic)) {
        const store = w.queues[mq]!;
        for (let o = store.physicalMin; o < store.maxOffset; o++) {
          if (sub.tagSet !== null && !sub.tagSet.has(store.tag(o))) continue;
          const fate = store.fate(slot, o);
          if ((fate & UNSETTLED) !== 0) continue;
          awaitingWalked++;
          if (fate & FATE_RETRYING) retryingWalked++;
        }
      }
    }
    for (const [k, fate] of w.fates.retryFates) {
      if (Math.floor(k / 2 ** 40) !== grp.index) continue;
      if ((fate & UNSETTLED) === 0) {
        awaitingWalked++;
        retryingWalked++;
      }
    }
    // 2. Where the awaiting ones are.
    const inFlight = new Set<number>();
    const cached = new Set<number>();
    for (const c of w.consumers) {
      // A dead incarnation's listener calls will never report: those messages are back to unpulled.
      if (c.group !== grp.index || !c.alive) continue;
      c.consumeService.forEachInFlight((mq, o) => {
        const key = w.queues[mq]!.originKey(o);
        if (isAwaiting(key)) inFlight.add(key);
      });
    }
    for (const c of w.consumers) {
      if (c.group !== grp.index) continue;
      for (const [mq, pq] of c.rebalance.processQueues()) {
        const store = w.queues[mq]!;
        pq.forEachCached((o) => {
          const key = store.originKey(o);
          if (isAwaiting(key) && !inFlight.has(key)) cached.add(key);
        });
      }
    }
    let retryingElsewhere = 0;
    if (retryingWalked > 0) {
      // Retrying messages not already counted as in flight or cached.
      for (const key of inFlight) if (w.fates.fate(grp.index, key) & FATE_RETRYING) retryingElsewhere++;
      for (const key of cached) if (w.fates.fate(grp.index, key) & FATE_RETRYING) retryingElsewhere++;
    }
    const retrying = retryingWalked - retryingElsewhere;
    const awaitingCounted = f.produced - f.filtered - f.consumed - f.dlq - f.lost;
    const unpulled = awaitingWalked - inFlight.size - cached.size - retrying;
    if (awaitingCounted !== awaitingWalked || unpulled < 0 || retrying < 0) {
      throw new ConservationError(
        `message conservation violated for group ${grp.name}: counters say ${awaitingCounted} awaiting ` +
          `(produced ${f.produced} − filtered ${f.filtered} − consumed ${f.consumed} − dlq ${f.dlq} − lost ${f.lost}), ` +
          `the queues hold ${awaitingWalked} (in flight ${inFlight.size}, cached ${cached.size}, retrying ${retrying}, unpulled ${unpulled})`,
      );
    }
    return {
      group: grp.name, produced: f.produced, filtered: f.filtered, consumed: f.consumed, duplicates: f.duplicates,
      dlq: f.dlq, lost: f.lost, inFlight: inFlight.size, cached: cached.size, retrying, unpulled,
    };
  });
}
