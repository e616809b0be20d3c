// Message accounting and the conservation check.
//
// Counters kept while running say how many of each group's messages were consumed, dead-lettered or
// lost; everything else is still "awaiting". Here the awaiting ones are found independently — by
// walking the fate columns — and split by where they are: in a listener call, cached in a
// ProcessQueue, in the retry chain, or not pulled. The two ways of counting must agree:
//   produced = filtered + consumed + dlq + lost + inFlight + cached + retrying + unpulled
// and the walk must find exactly produced − filtered − consumed − dlq − lost awaiting messages.
// It holds at any moment between events, so the run can check it as it goes.
import type { Cluster } from "../model/Cluster.ts";
import { FATE_COUNT_MASK, FATE_DLQ, FATE_FILTERED, FATE_LOST, FATE_RETRYING } from "./MessageFates.ts";
import type { Recorder } from "./Recorder.ts";

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

export function accountMessages(cl: Cluster, rec: Recorder): GroupAccount[] {
  return cl.model.groups.map((grp) => {
    const f = rec.groups[grp.index]!;
    const isAwaiting = (key: number) => (rec.fates.fate(grp.index, key) & UNSETTLED) === 0;
    // 1. Walk every held fate of the group's topics.
    let awaitingWalked = 0;
    let retryingWalked = 0;
    for (const sub of grp.subscriptions) {
      for (const mq of cl.routes.topicQueues(sub.topic)) {
        rec.fates.forEachHeld(grp.index, mq, (_o, fate) => {
          if ((fate & FATE_FILTERED) !== 0 || (fate & UNSETTLED) !== 0) return;
          awaitingWalked++;
          if (fate & FATE_RETRYING) retryingWalked++;
        });
      }
    }
    for (const [k, fate] of rec.fates.retryFates) {
      if (Math.floor(k / 2 ** 40) !== grp.index) continue;
      if ((fate & UNSETTLED) === 0) {
        awaitingWalked++;
        retryingWalked++;
      }
    }
    // 2. Where the awaiting ones are.
    const inFlight = new Set<number>();
    const cached = new Set<number>();
    for (const c of cl.consumers) {
      // A dead incarnation's listener calls will never report: those messages are back to unpulled.
      if (c.group !== grp.index || !c.alive) continue;
      c.consumeService.forEachInFlight((_mq, _o, key) => {
        if (isAwaiting(key)) inFlight.add(key);
      });
    }
    for (const c of cl.consumers) {
      if (c.group !== grp.index) continue;
      for (const [, pq] of c.rebalance.processQueues()) {
        pq.forEachCached((o) => {
          const key = pq.originKey(o);
          if (isAwaiting(key) && !inFlight.has(key)) cached.add(key);
        });
      }
    }
    let retryingElsewhere = 0;
    if (retryingWalked > 0) {
      // Retrying messages not already counted as in flight or cached.
      for (const key of inFlight) if (rec.fates.fate(grp.index, key) & FATE_RETRYING) retryingElsewhere++;
      for (const key of cached) if (rec.fates.fate(grp.index, key) & FATE_RETRYING) retryingElsewhere++;
    }
    const retrying = retryingWalked - retryingElsewhere;
    const awaitingCounted = f.produced - f.filtered - f.consumed - f.dlq - f.lost;
    const unpulled = awaitingWalked - inFlight.size - cached.size - retrying;
    if (awaitingCounted !== awaitingWalked || unpulled < 0 || retrying < 0) {
      throw new ConservationError(
        `message conservation violated for group ${grp.name}: counters say ${awaitingCounted} awaiting ` +
          `(produced ${f.produced} − filtered ${f.filtered} − consumed ${f.consumed} − dlq ${f.dlq} − lost ${f.lost}), ` +
          `the fates hold ${awaitingWalked} (in flight ${inFlight.size}, cached ${cached.size}, retrying ${retrying}, unpulled ${unpulled})`,
      );
    }
    return {
      group: grp.name, produced: f.produced, filtered: f.filtered, consumed: f.consumed, duplicates: f.duplicates,
      dlq: f.dlq, lost: f.lost, inFlight: inFlight.size, cached: cached.size, retrying, unpulled,
    };
  });
}
