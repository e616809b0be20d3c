// Message accounting and the conservation check.
//
// Counters kept while running say how many of each fate subject's messages were consumed, dead-lettered,
// lost (dropped, in part) or skipped at start; everything else is still "awaiting". Here the awaiting
// ones are found independently — from the fate columns — and split by where they are: in a listener
// call, cached in a ProcessQueue, in the retry chain, or not pulled. The two ways of counting must agree:
//   produced = filtered + consumed + dlq + lost + skippedAtStart + inFlight + cached + retrying + unpulled
// and the fates must hold exactly produced − filtered − consumed − dlq − lost − skippedAtStart awaiting
// messages. It holds at any moment between events, so the run can check it as it goes. The fates count
// their compact (resolved) chunks by counters and walk only the others, so a check costs the backlog,
// not the history.
//
// A fate subject is a CLUSTERING group, whose in-flight and cached messages are those of all its
// instances, or one instance slot of a BROADCASTING group, whose are only that slot's current
// incarnation's. A broadcasting group's account is the sum of its instance slots' — every slot, started
// or not (a slot that never started awaits everything, as unpulled): its `produced` is the messages of
// its topics times its instance slots (instancesMax).
import type { PushConsumer } from "../client/PushConsumer.ts";
import type { Cluster } from "../model/Cluster.ts";
import type { ConsumeMode, MessageModel } from "../scenario/types.ts";
import { FATE_RETRYING, isAwaiting } from "./MessageFates.ts";
import type { Recorder } from "./Recorder.ts";
import type { ReplayCounts } from "./ReplayBooks.ts";

/** One fate subject's messages, by where they ended up or are. */
export interface FateAccount {
  produced: number;
  filtered: number;
  consumed: number;
  duplicates: number;
  dlq: number;
  lost: number;
  /** Of `lost`, dropped after a failed listener call (a BROADCASTING instance; retryQueueNums 0). */
  dropped: number;
  skippedAtStart: number;
  inFlight: number;
  cached: number;
  retrying: number;
  unpulled: number;
}

/** A BROADCASTING group's instance slot: its own account (every message of the group's topics is due to it). */
export interface InstanceAccount extends FateAccount {
  clientId: string;
  /** Whether an incarnation of the slot ever started (a slot a scale fault never started awaits everything). */
  started: boolean;
}

export interface GroupAccount extends FateAccount {
  group: string;
  messageModel: MessageModel;
  consumeMode: ConsumeMode;
  /** BROADCASTING: per instance slot, in slot order (their sum is the group's account); null for CLUSTERING. */
  instances: InstanceAccount[] | null;
  /** Only when the model has replicas (the summary adds it): the group's duplicates by cause (ReplayBooks.ts). */
  replays?: ReplayCounts;
}

const FATE_ACCOUNT_KEYS = [
  "produced", "filtered", "consumed", "duplicates", "dlq", "lost", "dropped", "skippedAtStart", "inFlight", "cached", "retrying", "unpulled",
] as const satisfies readonly (keyof FateAccount)[];

export class ConservationError extends Error {}

export function accountMessages(cl: Cluster, rec: Recorder): GroupAccount[] {
  return cl.model.groups.map((grp) => {
    const subjects = rec.fates.subjectsOf(grp.index);
    const mode = { group: grp.name, messageModel: grp.messageModel, consumeMode: grp.consumeMode };
    if (grp.messageModel !== "BROADCASTING") {
      const consumers = cl.consumers.filter((c) => c.group === grp.index);
      return { ...mode, ...accountSubject(rec, subjects[0]!, consumers, grp.name), instances: null };
    }
    const instances = subjects.map((s): InstanceAccount => {
      const slot = rec.fates.subjects[s]!.slot;
      const c = cl.consumers[slot]!;
      const account = accountSubject(rec, s, [c], `${grp.name} (instance ${c.clientId}, slot ${slot})`);
      const started = cl.incarnations.some((i) => i.index === slot && i.state !== "CREATE_JUST");
      return { clientId: c.clientId, started, ...account };
    });
    const total = {} as FateAccount;
    for (const k of FATE_ACCOUNT_KEYS) total[k] = instances.reduce((a, i) => a + i[k], 0);
    return { ...mode, ...total, instances };
  });
}

/**
 * One subject's account, checked: `consumers` are the current incarnations whose in-flight and cached
 * messages are the subject's. Throws a ConservationError when the counters and the fates disagree.
 */
function accountSubject(rec: Recorder, subject: number, consumers: readonly PushConsumer[], name: string): FateAccount {
  const f = rec.fates.subjects[subject]!.counters;
  // A message held by a consumer is awaited unless settled or filtered (FateColumn's isAwaiting, as the walk counts).
  const awaited = (key: number) => isAwaiting(rec.fates.fate(subject, key));
  // 1. Every awaited message of the subject's topics, and of those the ones in the retry chain.
  const walked = rec.fates.awaiting(subject);
  // 2. Where the awaiting ones are.
  const inFlight = new Set<number>();
  const cached = new Set<number>();
  for (const c of consumers) {
    // A dead incarnation's listener calls will never report: those messages are back to unpulled.
    if (!c.alive) continue;
    c.consumeService.forEachInFlight((_mq, _o, key) => {
      if (awaited(key)) inFlight.add(key);
    });
  }
  for (const c of consumers) {
    for (const [, pq] of c.rebalance.processQueues()) {
      pq.forEachCached((o) => {
        const key = pq.originKey(o);
        if (awaited(key) && !inFlight.has(key)) cached.add(key);
      });
    }
  }
  let retryingElsewhere = 0;
  if (walked.retrying > 0) {
    // Retrying messages already counted as in flight or cached.
    for (const key of inFlight) if (rec.fates.fate(subject, key) & FATE_RETRYING) retryingElsewhere++;
    for (const key of cached) if (rec.fates.fate(subject, key) & FATE_RETRYING) retryingElsewhere++;
  }
  const retrying = walked.retrying - retryingElsewhere;
  const awaitingCounted = f.produced - f.filtered - f.consumed - f.dlq - f.lost - f.skippedAtStart;
  const unpulled = walked.awaiting - inFlight.size - cached.size - retrying;
  if (awaitingCounted !== walked.awaiting || unpulled < 0 || retrying < 0) {
    throw new ConservationError(
      `message conservation violated for group ${name}: counters say ${awaitingCounted} awaiting ` +
        `(produced ${f.produced} − filtered ${f.filtered} − consumed ${f.consumed} − dlq ${f.dlq} − lost ${f.lost} − skipped at start ${f.skippedAtStart}), ` +
        `the fates hold ${walked.awaiting} (in flight ${inFlight.size}, cached ${cached.size}, retrying ${retrying}, unpulled ${unpulled})`,
    );
  }
  return {
    produced: f.produced, filtered: f.filtered, consumed: f.consumed, duplicates: f.duplicates, dlq: f.dlq, lost: f.lost, dropped: f.dropped,
    skippedAtStart: f.skippedAtStart, inFlight: inFlight.size, cached: cached.size, retrying, unpulled,
  };
}
