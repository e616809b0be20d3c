// Which trace records the explainer captures: a filter over the type codes the cluster's components
// defined, resolved by name. The filter only looks up names (Trace#typeName) and never defines a type,
// so the codes — and the trace hash — are exactly those of a run without the explainer.
import { LATER_REASON } from "../client/trace.ts";
import type { Cluster } from "../model/Cluster.ts";
import type { TraceFilter } from "../sim/Trace.ts";

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

/** Every record type the explainer reads, for documentation and tests. */
export const CAPTURED_TYPE_NAMES: readonly string[] = [...PER_QUEUE_TYPES, ...GLOBAL_TYPES];

/**
 * The thinning resolution for the two per-batch record types (FOUND answers, repeated offsets), µs.
 * The filter reads the kernel's clock for it — the time the record is emitted at, its own tUs.
 */
export const THIN_US = 100_000;

const KIND_UNKNOWN = 0;
const KIND_QUEUE = 1;
const KIND_GLOBAL = 2;
const KIND_SKIP = 3;

/**
 * The capture filter for `simulate`: per-queue records of the queues in `mqs` (global queue indexes),
 * global records always. Type names are resolved on first sight of each code and cached.
 */
export function explainFilter(cl: Cluster, mqs: ReadonlySet<number>): TraceFilter {
  const kinds: number[] = [];
  const codes = { later: -1, offset: -1, result: -1 };
  const pins = new OffsetPins();
  const found = new Map<number, number>();
  return (type, f0, f1, f2, f3) => {
    let kind = kinds[type] ?? KIND_UNKNOWN;
    if (kind === KIND_UNKNOWN) {
      const name = cl.trace.typeName(type);
      kind = PER_QUEUE_TYPES.has(name) ? KIND_QUEUE : GLOBAL_TYPES.has(name) ? KIND_GLOBAL : KIND_SKIP;
      if (name === "pullLater") codes.later = type;
      if (name === "offsetUpdate") codes.offset = type;
      if (name === "pullResult") codes.result = type;
      kinds[type] = kind;
    }
    if (kind === KIND_GLOBAL) return true;
    if (kind !== KIND_QUEUE || !mqs.has(f0)) return false;
    if (type === codes.later) return LATER_KEPT.has(f3);
    const bucket = Math.floor(cl.sched.nowUs / THIN_US);
    if (type === codes.offset) return pins.keep(f0, f1, f2, f3, bucket);
    // FOUND answers: the first of each (queue, instance) per bucket. Each carries nextBeginOffset, so
    // the messages pulled between two kept answers are exact; only their timing is rounded to a bucket.
    if (type === codes.result && f2 === 0) return firstInBucket(found, f0 * 65_536 + f1, bucket);
    return true;
  };
}

/**
 * Thins offsetUpdate, which comes after every consumed batch: the explainer needs the committed offset
 * at about the times it looks (when a deferral run starts and ends) and the moment a pinned offset —
 * a stuck firstKey — moves again. So a record is kept when it is the first of its (queue, instance) in
 * its bucket (a sample of the committed offset every THIN_US at most), when it is the first new value
 * after a repeat (the pin is released), and when it is not an increase-only update (an OFFSET_ILLEGAL
 * fix, an orderly commit). Progress itself is read from the pulls.
 */
class OffsetPins {
  private readonly last = new Map<number, { offset: number; repeated: boolean; bucket: number }>();

  keep(mq: number, slot: number, offset: number, increaseOnly: number, bucket: number): boolean {
    const key = mq * 65_536 + slot;
    let prev = this.last.get(key);
    if (prev === undefined) {
      prev = { offset: -1, repeated: false, bucket: -1 };
      this.last.set(key, prev);
    }
    const repeat = prev.offset === offset;
    const released = !repeat && prev.repeated;
    const sampled = prev.bucket !== bucket;
    prev.offset = offset;
    prev.repeated = repeat;
    prev.bucket = bucket;
    return sampled || released || increaseOnly === 0;
  }
}

function firstInBucket(seen: Map<number, number>, key: number, bucket: number): boolean {
  if (seen.get(key) === bucket) return false;
  seen.set(key, bucket);
  return true;
}
