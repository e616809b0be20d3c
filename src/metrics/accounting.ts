// Message accounting and the conservation check.
//
// Counters kept while running say how many of each group's messages were consumed, dead-lettered, lost
// or skipped at start; everything else is still "awaiting". Here the awaiting ones are found
// independently — from the fate columns — and split by where they are: in a listener call, cached in a
// ProcessQueue, in the retry chain, or not pulled. The two ways of counting must agree:
//   produced = filtered + consumed + dlq + lost + skippedAtStart + inFlight + cached + retrying + unpulled
// and the fates must hold exactly produced − filtered − consumed − dlq − lost − skippedAtStart awaiting
// messages. It holds at any moment between events, so the run can check it as it goes. The fates count
// their compact (resolved) chunks by counters and walk only the others, so a check costs the backlog,
// not the history.
import type { Cluster } from "../model/Cluster.ts";
import { FATE_RETRYING, FATE_SETTLED } from "./MessageFates.ts";
import type { Recorder } from "./Recorder.ts";

export interface GroupAccount {
  group: string;
  produced: number;
  filtered: number;
  consumed: number;
  duplicates: number;
  dlq: number;
  lost: number;
  skippedAtStart: number;
  inFlight: number;
  cached: number;
  retrying: number;
  unpulled: number;
}

export class ConservationError extends Error {}

export function accountMessages(cl: Cluster, rec: Recorder): GroupAccount[] {
  return cl.model.groups.map((grp) => {
    const f = rec.groups[grp.index]!;
    const isAwaiting = (key: number) => (rec.fates.fate(grp.index, key) & FATE_SETTLED) === 0;
    // 1. Every awaited message of the group's topics, and of those the ones in the retry chain.
    const walked = rec.fates.awaiting(grp.index);
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
    if (walked.retrying > 0) {
      // Retrying messages already counted as in flight or cached.
      for (const key of inFlight) if (rec.fates.fate(grp.index, key) & FATE_RETRYING) retryingElsewhere++;
      for (const key of cached) if (rec.fates.fate(grp.index, key) & FATE_RETRYING) retryingElsewhere++;
    }
    const retrying = walked.retrying - retryingElsewhere;
    const awaitingCounted = f.produced - f.filtered - f.consumed - f.dlq - f.lost - f.skippedAtStart;
    const unpulled = walked.awaiting - inFlight.size - cached.size - retrying;
    if (awaitingCounted !== walked.awaiting || unpulled < 0 || retrying < 0) {
      throw new ConservationError(
        `message conservation violated for group ${grp.name}: counters say ${awaitingCounted} awaiting ` +
          `(produced ${f.produced} − filtered ${f.filtered} − consumed ${f.consumed} − dlq ${f.dlq} − lost ${f.lost} − skipped at start ${f.skippedAtStart}), ` +
          `the fates hold ${walked.awaiting} (in flight ${inFlight.size}, cached ${cached.size}, retrying ${retrying}, unpulled ${unpulled})`,
      );
    }
    return {
      group: grp.name, produced: f.produced, filtered: f.filtered, consumed: f.consumed, duplicates: f.duplicates,
      dlq: f.dlq, lost: f.lost, skippedAtStart: f.skippedAtStart, inFlight: inFlight.size, cached: cached.size, retrying, unpulled,
    };
  });
}
