// Which trace records the explainer captures: a filter over the type codes the cluster's components
// defined, resolved by name; the per-message records it does not keep it aggregates (aggregate.ts). The
// filter only looks up names (Trace#typeName) and never defines a type, so the codes — and the trace
// hash — are exactly those of a run without the explainer.
import { LATER_REASON } from "../client/trace.ts";
import type { Cluster } from "../model/Cluster.ts";
import type { TraceFilter } from "../sim/Trace.ts";
import { CaptureAggregate } from "./aggregate.ts";
import { THIN_US } from "./intervals.ts";

/** Record types whose first field is a queue (mq): kept only for the queues being explained. */
const PER_QUEUE_TYPES: ReadonlySet<string> = new Set([
  "flowControl", "pullLater", "pullResult", "offsetUpdate", "pqCreated", "pqDropped",
]);

/** Record types kept whatever they name: faults, broker channel expiry, per-topic thresholds. */
const GLOBAL_TYPES: ReadonlySet<string> = new Set(["fault", "channelExpired", "thresholdChanged"]);

/** pullLater reasons that explain something; flowControl has its own record, pullInterval is normal. */
const LATER_KEPT: ReadonlySet<number> = new Set([
  LATER_REASON.paused, LATER_REASON.exception, LATER_REASON.brokerFlowControl, LATER_REASON.notLocked,
]);

/** Per-message record types the filter aggregates (aggregate.ts) and never keeps. */
export const AGGREGATED_TYPE_NAMES: readonly string[] = ["consumeStart", "consumeEnd", "pullHeld", "sendBack", "dlq"];

/** Every record type the explainer reads, for documentation and tests (the aggregated ones are not kept). */
export const CAPTURED_TYPE_NAMES: readonly string[] = [...PER_QUEUE_TYPES, ...GLOBAL_TYPES];

export { THIN_US };

// What the filter does with a record type, resolved from its name on first sight.
const ROLE_UNKNOWN = 0;
const ROLE_SKIP = 1;
const ROLE_GLOBAL = 2;
const ROLE_QUEUE = 3;
const ROLE_LATER = 4;
const ROLE_OFFSET = 5;
const ROLE_RESULT = 6;
const ROLE_CREATED = 7;
const ROLE_DROPPED = 8;
const ROLE_START = 9;
const ROLE_END = 10;
const ROLE_HELD = 11;
const ROLE_SENT_BACK = 12;

const ROLE_BY_NAME: Readonly<Record<string, number>> = {
  pullLater: ROLE_LATER, offsetUpdate: ROLE_OFFSET, pullResult: ROLE_RESULT, pqCreated: ROLE_CREATED, pqDropped: ROLE_DROPPED,
  consumeStart: ROLE_START, consumeEnd: ROLE_END, pullHeld: ROLE_HELD, sendBack: ROLE_SENT_BACK, dlq: ROLE_SENT_BACK,
};

function roleOf(name: string): number {
  const role = ROLE_BY_NAME[name];
  if (role !== undefined) return role;
  return PER_QUEUE_TYPES.has(name) ? ROLE_QUEUE : GLOBAL_TYPES.has(name) ? ROLE_GLOBAL : ROLE_SKIP;
}

/** The capture filter and what it aggregates; hand `aggregate` to derive / Deriver. */
export interface ExplainCapture {
  filter: TraceFilter;
  aggregate: CaptureAggregate;
}

/**
 * The capture for `simulate`: keeps per-queue records of the queues in `mqs` (global queue indexes) and
 * global records, and feeds every record the aggregate measures (the consume pool, failed send-backs,
 * held pulls) to `aggregate` as it passes, keeping none of those. Type names are resolved once per code.
 */
export function explainCapture(cl: Cluster, mqs: ReadonlySet<number>): ExplainCapture {
  const roles: number[] = [];
  const pins = new OffsetPins();
  const found = new Map<number, number>();
  const agg = new CaptureAggregate(mqs);
  const filter: TraceFilter = (type, f0, f1, f2, f3) => {
    let role = roles[type] ?? ROLE_UNKNOWN;
    if (role === ROLE_UNKNOWN) roles[type] = role = roleOf(cl.trace.typeName(type));
    switch (role) {
      case ROLE_SKIP:
        return false;
      case ROLE_GLOBAL:
        return true;
      case ROLE_START:
        agg.onConsumeStart(cl.sched.nowUs, f0, f1, f2, f3);
        return false;
      case ROLE_END:
        agg.onConsumeEnd(cl.sched.nowUs, f0, f1, f2, f3);
        return false;
      case ROLE_HELD:
        agg.onPullHeld(cl.sched.nowUs, f0, f1, f2);
        return false;
      case ROLE_SENT_BACK:
        agg.onSentBack(f0, f1);
        return false;
      case ROLE_CREATED:
        agg.onPqCreated(f0, f1, f2);
        return mqs.has(f0);
      case ROLE_DROPPED:
        agg.onPqDropped(cl.sched.nowUs, f0, f1);
        return mqs.has(f0);
      case ROLE_RESULT:
        agg.onPullResult(cl.sched.nowUs, f0, f1, f2, f3);
        if (!mqs.has(f0)) return false;
        // FOUND answers: the first of each (queue, instance) per bucket. Each carries nextBeginOffset, so
        // the messages pulled between two kept answers are exact; only their timing is rounded to a bucket.
        return f2 !== 0 || firstInBucket(found, f0 * 65_536 + f1, Math.floor(cl.sched.nowUs / THIN_US));
      case ROLE_OFFSET:
        agg.onOffsetUpdate(cl.sched.nowUs, f0, f1, f2);
        return mqs.has(f0) && pins.keep(f0, f1, f2, f3, Math.floor(cl.sched.nowUs / THIN_US));
      case ROLE_LATER:
        return mqs.has(f0) && LATER_KEPT.has(f3);
      default:
        return mqs.has(f0);
    }
  };
  return { filter, aggregate: agg };
}

/** The capture filter alone (its aggregate unread): `explainCapture(cl, mqs).filter`. */
export function explainFilter(cl: Cluster, mqs: ReadonlySet<number>): TraceFilter {
  return explainCapture(cl, mqs).filter;
}

/**
 * Thins offsetUpdate, which comes after every consumed batch: the explainer needs the committed offset
 * at about the times it looks (when a deferral run starts and ends) and the moment a pinned offset —
 * a stuck firstKey — moves again. So a record is kept when it is the first of its (queue, instance) in
 * its bucket (a sample of the committed offset every THIN_US at most), when it is the first new value
 * after one held across a bucket boundary (the pin is released), and when it is not an increase-only update (an OFFSET_ILLEGAL
 * fix, an orderly commit). Progress itself is read from the pulls.
 */
class OffsetPins {
  private readonly last = new Map<number, { offset: number; sinceBucket: number; bucket: number }>();

  keep(mq: number, slot: number, offset: number, increaseOnly: number, bucket: number): boolean {
    const key = mq * 65_536 + slot;
    let prev = this.last.get(key);
    if (prev === undefined) {
      prev = { offset: -1, sinceBucket: bucket, bucket: -1 };
      this.last.set(key, prev);
    }
    const moved = prev.offset !== offset;
    // Released: the offset moves after holding across a bucket boundary. A value repeated within one
    // bucket is the normal churn of concurrent consumption (the committed offset repeats while the head
    // batch is still in the listener) and is not a pin worth a record: keeping those was ~90 % of the
    // records on a long run.
    const released = moved && prev.offset >= 0 && bucket > prev.sinceBucket;
    const sampled = prev.bucket !== bucket;
    if (moved) {
      prev.offset = offset;
      prev.sinceBucket = bucket;
    }
    prev.bucket = bucket;
    return sampled || released || increaseOnly === 0;
  }
}

function firstInBucket(seen: Map<number, number>, key: number, bucket: number): boolean {
  if (seen.get(key) === bucket) return false;
  seen.set(key, bucket);
  return true;
}
