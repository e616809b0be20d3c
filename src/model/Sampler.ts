// Samples the model every `sampleEvery` into a time series, tracks run-wide maxima, and frees message
// storage nobody can read any more. Reads the model; changes nothing in it but retention and storage.
import { CHUNK, FATE_COUNT_MASK, FATE_DLQ, FATE_RESOLVED, FATE_RETRYING } from "../broker/QueueStore.ts";
import { FLOW_KIND } from "./kinds.ts";
import type { World } from "./World.ts";
import { SERIES_COLUMNS, type SeriesColumn, type SeriesData } from "../scenario/vocabulary.ts";

export interface TimeSeries extends SeriesData {
  columns: Record<SeriesColumn, number[]>;
  /** Per ordinary queue: label and cached messages per sample (Σ over every ProcessQueue of it). */
  perQueue: { label: string; cached: number[] }[];
  /** Per consumer instance (slot): client id, and per sample its cached bytes (its heap share), the
   * ProcessQueues it holds, and its busy consume workers (pool saturation). */
  perConsumer: { clientId: string; cachedBytes: number[]; queues: number[]; poolBusy: number[] }[];
}

/** Instantaneous figures, also used for the summary's final values. */
export interface Gauges {
  lagCommitted: number;
  lagUnpulled: number;
  cached: number;
  cachedBytes: number;
  cachedPerQueueMax: number;
  cachedBytesPerQueueMax: number;
  cachedPerConsumerMax: number;
  cachedBytesPerConsumerMax: number;
  poolQueued: number;
  poolBusy: number;
  queuesOwned: number;
}

export class Sampler {
  readonly series: TimeSeries;
  /** Run-wide maxima of the gauges (sampled). */
  readonly max: Gauges = emptyGauges();
  private lastUs = 0;
  private lastProduced = 0;
  private lastConsumed = 0;
  private lastPulls = 0;
  private readonly lastFlow = new Float64Array(4);
  /** Ordinary queues (not retry / DLQ), in global order. */
  private readonly ordinaryQueues: number[] = [];
  private readonly queueSlot: Int32Array;
  private readonly nextOffsetMax: Float64Array;
  private readonly cachedByQueue: Float64Array;
  /** resolvedUpTo[group][queue]: every message below is resolved for the group (storage floor). */
  private readonly resolvedUpTo: Float64Array[];

  constructor(private readonly w: World) {
    const cols = {} as Record<SeriesColumn, number[]>;
    for (const c of SERIES_COLUMNS) cols[c] = [];
    this.queueSlot = new Int32Array(w.queues.length).fill(-1);
    for (const q of w.queues) {
      if (w.modelTopicOf(q.topicIndex) >= 0) {
        this.queueSlot[q.index] = this.ordinaryQueues.length;
        this.ordinaryQueues.push(q.index);
      }
    }
    this.series = {
      columns: cols,
      perQueue: this.ordinaryQueues.map((q) => ({ label: queueLabel(w, q), cached: [] })),
      perConsumer: w.consumers.map((c) => ({ clientId: c.clientId, cachedBytes: [], queues: [], poolBusy: [] })),
    };
    this.nextOffsetMax = new Float64Array(w.model.groups.length * w.queues.length);
    this.cachedByQueue = new Float64Array(w.queues.length);
    this.resolvedUpTo = w.model.groups.map(() => new Float64Array(w.queues.length));
  }

  /** Takes one sample at the current time. */
  sample(): void {
    const w = this.w;
    const now = w.sched.nowUs;
    w.advanceProducers(now);
    for (const q of this.ordinaryQueues) w.applyRetention(q);
    const g = this.gauges();
    const m = w.metrics;
    const dtSec = Math.max(1e-9, (now - this.lastUs) / 1e6);
    const cols = this.series.columns;
    const consumedOk = m.fates.reduce((a, f) => a + f.consumeOk, 0);
    push(cols.tSec, now / 1e6);
    push(cols.producedPerSec, (m.producedTotal - this.lastProduced) / dtSec);
    push(cols.consumedPerSec, (consumedOk - this.lastConsumed) / dtSec);
    push(cols.pullsPerSec, (m.pullsTotal - this.lastPulls) / dtSec);
    push(cols.flowControlCountPerSec, (m.flowControl[FLOW_KIND.count]! - this.lastFlow[0]!) / dtSec);
    push(cols.flowControlSizePerSec, (m.flowControl[FLOW_KIND.size]! - this.lastFlow[1]!) / dtSec);
    push(cols.flowControlSpanPerSec, (m.flowControl[FLOW_KIND.span]! - this.lastFlow[2]!) / dtSec);
    push(cols.flowControlPausedPerSec, (m.flowControl[FLOW_KIND.paused]! - this.lastFlow[3]!) / dtSec);
    const e2e = m.endToEndInterval;
    push(cols.endToEndP50Ms, e2e.count > 0 ? e2e.quantile(0.5) / 1000 : 0);
    push(cols.endToEndP99Ms, e2e.count > 0 ? e2e.quantile(0.99) / 1000 : 0);
    m.endToEnd.merge(e2e);
    e2e.reset();
    for (const k of Object.keys(g) as (keyof Gauges)[]) {
      push(cols[k], g[k]);
      if (g[k] > this.max[k]) this.max[k] = g[k];
    }
    this.ordinaryQueues.forEach((q, i) => this.series.perQueue[i]!.cached.push(this.cachedByQueue[q]!));
    w.consumers.forEach((c, i) => {
      const row = this.series.perConsumer[i]!;
      row.cachedBytes.push(consumerBytes(c.rebalance.processQueues()));
      row.queues.push(c.rebalance.queueCount);
      row.poolBusy.push(c.alive ? c.consumeService.busyWorkers : 0);
    });
    this.lastUs = now;
    this.lastProduced = m.producedTotal;
    this.lastConsumed = consumedOk;
    this.lastPulls = m.pullsTotal;
    this.lastFlow.set(m.flowControl);
    this.freeStorage();
  }

  /** Current lags, caches and pool figures. */
  gauges(): Gauges {
    const w = this.w;
    const out = emptyGauges();
    const nQ = w.queues.length;
    this.nextOffsetMax.fill(-1);
    this.cachedByQueue.fill(0);
    for (const c of w.consumers) {
      let count = 0;
      let bytes = 0;
      for (const [mq, pq] of c.rebalance.processQueues()) {
        count += pq.msgCount;
        bytes += pq.msgSize;
        this.cachedByQueue[mq] = this.cachedByQueue[mq]! + pq.msgCount;
        if (pq.msgCount > out.cachedPerQueueMax) out.cachedPerQueueMax = pq.msgCount;
        if (pq.msgSize > out.cachedBytesPerQueueMax) out.cachedBytesPerQueueMax = pq.msgSize;
        const id = c.rebalance.pullRequestOf(mq);
        if (id !== undefined) {
          const k = c.group * nQ + mq;
          const next = w.pullRequests[id]!.nextOffset;
          if (next > this.nextOffsetMax[k]!) this.nextOffsetMax[k] = next;
        }
        out.queuesOwned++;
      }
      out.cached += count;
      out.cachedBytes += bytes;
      if (count > out.cachedPerConsumerMax) out.cachedPerConsumerMax = count;
      if (bytes > out.cachedBytesPerConsumerMax) out.cachedBytesPerConsumerMax = bytes;
      // A crashed or stopped incarnation's workers are gone with it, whatever they were doing.
      if (c.alive) {
        out.poolQueued += c.consumeService.queueLength;
        out.poolBusy += c.consumeService.busyWorkers;
      }
    }
    for (const grp of w.model.groups) {
      for (const sub of grp.subscriptions) {
        for (const mq of w.topicQueues(sub.topic)) {
          const store = w.queues[mq]!;
          const committed = w.brokers[store.brokerIndex]!.queryOffset(grp.index, mq);
          const base = committed >= 0 ? committed : store.minOffset;
          out.lagCommitted += Math.max(0, store.maxOffset - base);
          const next = this.nextOffsetMax[grp.index * nQ + mq]!;
          out.lagUnpulled += Math.max(0, store.maxOffset - (next >= 0 ? next : base));
        }
      }
    }
    return out;
  }

  /**
   * Frees whole chunks of queue storage below the lowest offset anything may still read: every group's
   * committed offset and first unresolved message, every ProcessQueue's first cached message, every
   * pull request's next offset or in-flight request offset, every in-memory offset, every message in a
   * consume worker.
   */
  private freeStorage(): void {
    const w = this.w;
    const floor = new Float64Array(w.queues.length).fill(Infinity);
    const lower = (mq: number, o: number) => {
      if (o >= 0 && o < floor[mq]!) floor[mq] = o;
    };
    for (const grp of w.model.groups) {
      const upTo = this.resolvedUpTo[grp.index]!;
      for (const sub of grp.subscriptions) {
        const slot = w.fates.slotOf(grp.index, sub.topic);
        for (const mq of w.topicQueues(sub.topic)) {
          const store = w.queues[mq]!;
          const committed = w.brokers[store.brokerIndex]!.queryOffset(grp.index, mq);
          lower(mq, committed >= 0 ? committed : 0);
          let o = Math.max(upTo[mq]!, store.physicalMin);
          while (o < store.maxOffset) {
            const fate = store.fate(slot, o);
            const filtered = sub.tagSet !== null && !sub.tagSet.has(store.tag(o));
            if ((fate & FATE_RESOLVED) === 0 && !filtered) break;
            o++;
          }
          upTo[mq] = o;
          lower(mq, o);
        }
      }
    }
    for (const c of w.consumers) {
      if (!c.alive) continue; // nothing of a dead incarnation reads the store again
      for (const [mq, pq] of c.rebalance.processQueues()) lower(mq, pq.firstKey);
      for (const [mq, off] of c.offsetStore.entries()) lower(mq, off);
      c.consumeService.forEachInFlight((mq, o) => lower(mq, o));
    }
    for (const pr of w.pullRequests) {
      if (pr.inFlight) lower(pr.mq, pr.reqOffset);
      if (!pr.pq.dropped) lower(pr.mq, pr.nextOffset);
    }
    for (const mq of this.ordinaryQueues) {
      const f = floor[mq]!;
      const store = w.queues[mq]!;
      if (f === Infinity) continue;
      // Messages in the retry chain keep their fate in a side table once their chunk goes.
      this.moveRetryingFates(mq, Math.min(f, store.maxOffset));
      store.freeBelow(f);
    }
  }

  private moveRetryingFates(mq: number, below: number): void {
    const w = this.w;
    const store = w.queues[mq]!;
    const end = Math.floor(below / CHUNK) * CHUNK;
    if (end <= store.physicalMin) return;
    for (const grp of w.model.groups) {
      const mt = w.modelTopicOf(store.topicIndex);
      const slot = w.fates.slotOf(grp.index, mt);
      if (slot < 0) continue;
      for (let o = store.physicalMin; o < end; o++) {
        const fate = store.fate(slot, o);
        if ((fate & FATE_RETRYING) !== 0 && (fate & (FATE_COUNT_MASK | FATE_DLQ)) === 0) {
          w.fates.retryFates.set(grp.index * 2 ** 40 + store.originKey(o), fate);
        }
      }
    }
  }
}

function emptyGauges(): Gauges {
  return {
    lagCommitted: 0, lagUnpulled: 0, cached: 0, cachedBytes: 0, cachedPerQueueMax: 0, cachedBytesPerQueueMax: 0,
    cachedPerConsumerMax: 0, cachedBytesPerConsumerMax: 0, poolQueued: 0, poolBusy: 0, queuesOwned: 0,
  };
}

function push(col: number[], v: number): void {
  col.push(Math.round(v * 1000) / 1000);
}

function consumerBytes(pqs: [number, { msgSize: number }][]): number {
  let b = 0;
  for (const [, pq] of pqs) b += pq.msgSize;
  return b;
}

export function queueLabel(w: World, mq: number): string {
  const q = w.queues[mq]!;
  return `${q.topic}@${q.brokerName}#${q.queueId}`;
}
