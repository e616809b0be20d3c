// The reasons read from the capture's aggregate (aggregate.ts) rather than from kept records, added to
// the intervals derive.ts found once the run is over: the consume pool's saturation (a reason of its own,
// and the cause behind count/size flow control), failed send-backs pinning the committed offset, and
// pulls held at the broker while messages waited.
import type { FaultModel } from "../scenario/faultTypes.ts";
import type { Model } from "../scenario/types.ts";
import type { CaptureAggregate } from "./aggregate.ts";
import { faultTouches, INTERVAL_MIN_US, queueKey, type PullLog, type RawInterval } from "./intervals.ts";
import type { PoolStats, PoolTrack } from "./poolTrack.ts";
import { REASON, type ReasonCode } from "./types.ts";

/** Mean executor-queue wait above which a saturated pool is reported: well past any listener's jitter. */
export const POOL_WAIT_MIN_US = 500_000;

/** One instance's hold on a queue (pqCreated … pqDropped / crash); `toUs` is Infinity while it lasts. */
export interface Ownership {
  slot: number;
  fromUs: number;
  toUs: number;
}

/** What the enrichment needs of the Deriver. */
export interface EnrichHost {
  readonly model: Model;
  readonly durationUs: number;
  /** The queue's broker group (for faults touching it). */
  brokerOf(mq: number): number;
  groupOf(slot: number): number | undefined;
  clientOf(slot: number): string;
  /** The examined (group, queue) pairs and who owned each when. */
  owned(): Iterable<{ group: number; mq: number; ownedBy: readonly Ownership[]; pulls: PullLog }>;
  faultWhere(test: (f: FaultModel, e: { startUs: number; endUs: number }) => boolean): string | undefined;
  /** Adds an interval (dropped when shorter than INTERVAL_MIN_US). */
  push(group: number, mq: number, reason: ReasonCode, startUs: number, endUs: number, ongoing: boolean, figures: Record<string, number | string>): void;
}

export function enrich(host: EnrichHost, agg: CaptureAggregate, out: RawInterval[]): void {
  agg.finish(host.durationUs);
  const examined = new Set<string>();
  for (const q of host.owned()) examined.add(queueKey(q.group, q.mq));
  for (const i of out) if (i.reason === REASON.flowControlCount || i.reason === REASON.flowControlSize) attachPoolCause(host, agg, i);
  poolIntervals(host, agg, out);
  sendBackIntervals(host, agg, out, examined);
  holdIntervals(host, agg, examined);
}

function threadsOf(host: EnrichHost, group: number): number {
  // §6: an unbounded executor queue never grows the pool past its core size, consumeThreadMin.
  return host.model.groups[group]!.config.consumeThreadMin;
}

function poolFigures(s: PoolStats, threads: number): Record<string, number> {
  return {
    poolThreads: threads,
    poolBusyMean: Math.round(s.busyMean * 10) / 10,
    poolStarted: s.started,
    poolWaitMeanMs: Math.round(s.waitMeanUs / 1000),
    poolWaitMaxMs: Math.round(s.waitMaxUs / 1000),
  };
}

/** Count/size flow control: the cache fills because the pool cannot keep up — say how busy it was. */
function attachPoolCause(host: EnrichHost, agg: CaptureAggregate, i: RawInterval): void {
  const slot = i.figures.slot as number;
  const track = agg.pool(slot);
  if (track === undefined) return;
  const threads = threadsOf(host, i.group);
  const s = track.stats(i.startUs, i.endUs);
  Object.assign(i.figures, poolFigures(s, threads), { poolSaturated: s.busyMean >= threads - 0.5 ? 1 : 0 });
}

/**
 * Saturation as a reason of its own: where the owner's pool was full and messages waited at least
 * POOL_WAIT_MIN_US on average, outside the queue's count/size flow control (which names it as its cause).
 */
function poolIntervals(host: EnrichHost, agg: CaptureAggregate, out: RawInterval[]): void {
  const runsBySlot = new Map<number, [number, number][]>();
  for (const q of host.owned()) {
    const threads = threadsOf(host, q.group);
    const flow = out.filter((i) => i.group === q.group && i.mq === q.mq && (i.reason === REASON.flowControlCount || i.reason === REASON.flowControlSize));
    for (const o of q.ownedBy) {
      const track = agg.pool(o.slot);
      if (track === undefined) continue;
      let runs = runsBySlot.get(o.slot);
      if (runs === undefined) runsBySlot.set(o.slot, (runs = track.saturatedRuns(threads)));
      for (const [a, b] of runs) {
        const from = Math.max(a, o.fromUs);
        const to = Math.min(b, o.toUs, host.durationUs);
        for (const [s, e] of subtract([from, to], flow)) {
          // Only a queue with messages of its own in that time is held back by the pool.
          if (pulledIn(q.pulls, s, e)) addPool(host, track, q.group, q.mq, o.slot, threads, s, e);
        }
      }
    }
  }
}

function addPool(host: EnrichHost, track: PoolTrack, group: number, mq: number, slot: number, threads: number, s: number, e: number): void {
  if (e - s < INTERVAL_MIN_US) return;
  const st = track.stats(s, e);
  // All threads stuck (nothing started) is saturation too; otherwise the waits must be long.
  if (st.started > 0 && st.waitMeanUs < POOL_WAIT_MIN_US) return;
  const figures: Record<string, number | string> = { consumer: host.clientOf(slot), slot, ...poolFigures(st, threads) };
  const f = host.faultWhere((x, ev) => (x.kind === "consumeTime" || x.kind === "hangMessage") && ev.startUs <= e && ev.endUs >= s && (x.kind !== "consumeTime" || x.group === group));
  if (f !== undefined) figures.fault = f;
  host.push(group, mq, REASON.poolSaturated, s, e, e >= host.durationUs, figures);
}

function pulledIn(log: PullLog, startUs: number, endUs: number): boolean {
  for (let j = 0; j < log.tUs.length; j++) if (log.tUs[j]! >= startUs && log.tUs[j]! < endUs) return true;
  return false;
}

/** [from, to) minus the intervals `cut`, as pieces. */
function subtract(range: [number, number], cut: readonly RawInterval[]): [number, number][] {
  let pieces: [number, number][] = range[1] > range[0] ? [range] : [];
  for (const c of cut) {
    const next: [number, number][] = [];
    for (const [s, e] of pieces) {
      if (c.endUs <= s || c.startUs >= e) next.push([s, e]);
      else {
        if (c.startUs > s) next.push([s, c.startUs]);
        if (c.endUs < e) next.push([c.endUs, e]);
      }
    }
    pieces = next;
  }
  return pieces;
}

/** Failed send-backs: the message stays in the ProcessQueue and pins the committed offset (§7.3). */
function sendBackIntervals(host: EnrichHost, agg: CaptureAggregate, out: RawInterval[], examined: ReadonlySet<string>): void {
  for (const run of agg.sendBackRuns()) {
    const group = host.groupOf(run.slot);
    if (group === undefined || !examined.has(queueKey(group, run.mq))) continue;
    // Orderly consumption retries locally by design (SUSPEND_CURRENT_QUEUE_A_MOMENT): not a failed send-back.
    if (host.model.groups[group]!.consumeMode === "ORDERLY") continue;
    const broker = host.brokerOf(run.mq);
    const figures: Record<string, number | string> = {
      consumer: host.clientOf(run.slot), slot: run.slot, pinnedOffset: run.pinnedOffset, retries: run.retries, end: run.end, lastRetryUs: run.lastRetryUs, drainedUs: run.drainedUs,
    };
    const f = host.faultWhere((x, e) => (x.kind === "sendBackFailure" ? x.broker === broker : faultTouches(x, broker)) && e.startUs <= run.lastRetryUs && e.endUs >= run.startUs);
    if (f !== undefined) figures.fault = f;
    host.push(group, run.mq, REASON.sendBackFailed, run.startUs, run.endUs, run.end === "open", figures);
    // Span flow control whose pinned firstKey is this message: a failed send-back, not a hung listener.
    for (const i of out) {
      if (i.reason === REASON.flowControlSpan && i.mq === run.mq && i.figures.slot === run.slot && i.figures.committedAtStart === run.pinnedOffset) i.figures.pinnedBy = REASON.sendBackFailed;
    }
  }
}

/** Pulls held at the broker and answered late with messages that had arrived meanwhile. */
function holdIntervals(host: EnrichHost, agg: CaptureAggregate, examined: ReadonlySet<string>): void {
  for (const run of agg.holdRuns()) {
    const group = host.groupOf(run.slot);
    if (group === undefined || !examined.has(queueKey(group, run.mq))) continue;
    const broker = host.brokerOf(run.mq);
    const cfg = host.model.brokers[broker]!.config;
    const figures: Record<string, number | string> = {
      consumer: host.clientOf(run.slot), slot: run.slot, holds: run.holds, heldMeanMs: Math.round(run.heldUs / run.holds / 1000), msgs: run.msgs,
      longPollingEnable: cfg.longPollingEnable ? 1 : 0, shortPollingTimeMills: cfg.shortPollingTimeMills,
    };
    const f = host.faultWhere((x, e) => x.kind === "lostWakeup" && x.broker === broker && e.startUs <= run.endUs && e.endUs >= run.startUs);
    if (f !== undefined) figures.fault = f;
    host.push(group, run.mq, REASON.longPollHold, run.startUs, run.endUs, false, figures);
  }
}
