// Samples the cluster into a time series and tracks run-wide maxima. An observer: it reads the model and
// the recorder and changes nothing in the model (the run loop calls it between events, never as one), so
// how often it samples cannot change what is simulated.
import type { Cluster } from "../model/Cluster.ts";
import { SERIES_COLUMNS, type SeriesColumn, type SeriesData } from "../scenario/vocabulary.ts";
import { FLOW_KIND } from "../client/trace.ts";
import { replicatedNodes } from "./brokerNodes.ts";
import { broadcastCommittedOffset, broadcastNextOffset, runningInstances } from "./broadcastOffsets.ts";
import { heapEstimateBytes } from "./heapEstimate.ts";
import type { Recorder } from "./Recorder.ts";

export { SERIES_COLUMNS, type SeriesColumn };

export interface TimeSeries extends SeriesData {
  columns: Record<SeriesColumn, number[]>;
  /** Per ordinary queue: label and cached messages per sample (Σ over every ProcessQueue of it). */
  perQueue: { label: string; cached: number[] }[];
  /** Per consumer instance (slot): client id, and per sample its cached bytes (its heap share), its
   * cached messages, the ProcessQueues it holds, and its busy consume workers (pool saturation). */
  perConsumer: { clientId: string; cachedBytes: number[]; cached: number[]; queues: number[]; poolBusy: number[] }[];
  /** Only when the model has replicas: per node of a group with replicas (brokerNodes' order), the
   * pull requests it answered per second over each sample interval. */
  perNode?: { name: string; servedPerSec: number[] }[];
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

/**
 * Samples preallocated at most, over all series (64 MiB of doubles; a day of 1-second samples of ~50
 * series is 4.3 M): a run of many queues and instances, or of millions of samples, preallocates the first
 * part of each series and appends the rest, so the up-front allocation never outgrows what --max-memory
 * (resourceGuards.ts) reckons with.
 */
const PREALLOCATE_SAMPLES_MAX = 1 << 23;

export class Sampler {
  readonly series: TimeSeries;
  /** Samples taken; every series holds this many once finish() has run. */
  private count = 0;
  /** Run-wide maxima of the gauges (sampled). */
  readonly max: Gauges = emptyGauges();
  /** Run-wide sampled maximum of one consumer instance's estimated cache heap (heapEstimate.ts), bytes. */
  heapBytesPerConsumerMax = 0;
  private lastUs = 0;
  private lastProduced = 0;
  private lastConsumed = 0;
  private lastPulls = 0;
  private readonly lastFlow = new Float64Array(4);
  /** Ordinary queues (not retry / DLQ), in global order. */
  private readonly ordinaryQueues: number[] = [];
  private readonly nextOffsetMax: Float64Array;
  private readonly cachedByQueue: Float64Array;
  /** Node indexes of perNode's rows, and their served counts at the last sample. */
  private readonly sampledNodes: number[];
  private readonly lastServed: Float64Array;

  /**
   * @param expectedSamples how many samples the run will take (simulate: ⌈duration ÷ sampleEvery⌉): every
   * series is allocated at that length up front and written in place, so a long run's series neither
   * carry an array's growth slack (up to half again) nor leave the old copy behind at each growth —
   * all ~50 series grow at the same sample, a day's at once by ~30 MB. finish() cuts them to the samples
   * taken. 0 (the default): they grow as arrays do, and are exact at every moment.
   */
  constructor(
    private readonly cl: Cluster,
    private readonly rec: Recorder,
    expectedSamples = 0,
  ) {
    for (const q of cl.routes.queues) if (cl.routes.isOrdinary(q.index)) this.ordinaryQueues.push(q.index);
    const nodes = replicatedNodes(cl);
    const seriesCount = SERIES_COLUMNS.length + this.ordinaryQueues.length + 4 * cl.consumers.length + nodes.length;
    const n = Math.min(Math.max(0, Math.floor(expectedSamples)), Math.floor(PREALLOCATE_SAMPLES_MAX / seriesCount));
    const cols = {} as Record<SeriesColumn, number[]>;
    for (const c of SERIES_COLUMNS) cols[c] = series(n);
    this.series = {
      columns: cols,
      perQueue: this.ordinaryQueues.map((q) => ({ label: cl.routes.label(q), cached: series(n) })),
      perConsumer: cl.consumers.map((c) => ({ clientId: c.clientId, cachedBytes: series(n), cached: series(n), queues: series(n), poolBusy: series(n) })),
    };
    this.nextOffsetMax = new Float64Array(cl.model.groups.length * cl.routes.queues.length);
    this.cachedByQueue = new Float64Array(cl.routes.queues.length);
    this.sampledNodes = nodes.map((n) => n.index);
    this.lastServed = new Float64Array(nodes.length);
    if (nodes.length > 0) this.series.perNode = nodes.map((node) => ({ name: node.name, servedPerSec: series(n) }));
  }

  /** Cuts every series to the samples taken (the run ended before the samples expected). */
  finish(): void {
    const n = this.count;
    const s = this.series;
    for (const c of SERIES_COLUMNS) s.columns[c].length = n;
    for (const q of s.perQueue) q.cached.length = n;
    for (const c of s.perConsumer) c.cachedBytes.length = c.cached.length = c.queues.length = c.poolBusy.length = n;
    for (const node of s.perNode ?? []) node.servedPerSec.length = n;
  }

  /** Takes one sample at the current time. */
  sample(): void {
    const cl = this.cl;
    const now = cl.sched.nowUs;
    const g = this.gauges();
    const stats = cl.clientStats;
    const dtSec = Math.max(1e-9, (now - this.lastUs) / 1e6);
    const cols = this.series.columns;
    const consumedOk = this.rec.consumeOkTotal;
    const at = this.count++;
    put(cols.tSec, at, now / 1e6);
    put(cols.producedPerSec, at, (this.rec.producedTotal - this.lastProduced) / dtSec);
    put(cols.consumedPerSec, at, (consumedOk - this.lastConsumed) / dtSec);
    put(cols.pullsPerSec, at, (stats.pullsTotal - this.lastPulls) / dtSec);
    put(cols.flowControlCountPerSec, at, (stats.flowControl[FLOW_KIND.count]! - this.lastFlow[0]!) / dtSec);
    put(cols.flowControlSizePerSec, at, (stats.flowControl[FLOW_KIND.size]! - this.lastFlow[1]!) / dtSec);
    put(cols.flowControlSpanPerSec, at, (stats.flowControl[FLOW_KIND.span]! - this.lastFlow[2]!) / dtSec);
    put(cols.flowControlPausedPerSec, at, (stats.flowControl[FLOW_KIND.paused]! - this.lastFlow[3]!) / dtSec);
    const e2e = this.rec.endToEndInterval;
    put(cols.endToEndP50Ms, at, e2e.count > 0 ? e2e.quantile(0.5) / 1000 : 0);
    put(cols.endToEndP99Ms, at, e2e.count > 0 ? e2e.quantile(0.99) / 1000 : 0);
    this.rec.endToEnd.merge(e2e);
    e2e.reset();
    for (const k of Object.keys(g) as (keyof Gauges)[]) {
      put(cols[k], at, g[k]);
      if (g[k] > this.max[k]) this.max[k] = g[k];
    }
    this.ordinaryQueues.forEach((q, i) => (this.series.perQueue[i]!.cached[at] = this.cachedByQueue[q]!));
    cl.consumers.forEach((c, i) => {
      const row = this.series.perConsumer[i]!;
      let bytes = 0;
      let count = 0;
      for (const [, pq] of c.rebalance.processQueues()) {
        bytes += pq.msgSize;
        count += pq.msgCount;
      }
      row.cachedBytes[at] = bytes;
      row.cached[at] = count;
      const heap = heapEstimateBytes(count, bytes);
      if (heap > this.heapBytesPerConsumerMax) this.heapBytesPerConsumerMax = heap;
      row.queues[at] = c.rebalance.queueCount;
      row.poolBusy[at] = c.alive ? c.consumeService.busyWorkers : 0;
    });
    this.sampledNodes.forEach((node, i) => {
      const served = cl.nodes[node]!.processor.served;
      put(this.series.perNode![i]!.servedPerSec, at, (served - this.lastServed[i]!) / dtSec);
      this.lastServed[i] = served;
    });
    this.lastUs = now;
    this.lastProduced = this.rec.producedTotal;
    this.lastConsumed = consumedOk;
    this.lastPulls = stats.pullsTotal;
    this.lastFlow.set(stats.flowControl);
  }

  /** Current lags, caches and pool figures. */
  gauges(): Gauges {
    const cl = this.cl;
    const out = emptyGauges();
    const nQ = cl.routes.queues.length;
    this.nextOffsetMax.fill(-1);
    this.cachedByQueue.fill(0);
    for (const c of cl.consumers) {
      let count = 0;
      let bytes = 0;
      for (const [mq, pq] of c.rebalance.processQueues()) {
        count += pq.msgCount;
        bytes += pq.msgSize;
        this.cachedByQueue[mq] = this.cachedByQueue[mq]! + pq.msgCount;
        if (pq.msgCount > out.cachedPerQueueMax) out.cachedPerQueueMax = pq.msgCount;
        if (pq.msgSize > out.cachedBytesPerQueueMax) out.cachedBytesPerQueueMax = pq.msgSize;
        const pr = c.rebalance.pullRequestOf(mq);
        if (pr !== undefined) {
          const k = c.group * nQ + mq;
          if (pr.nextOffset > this.nextOffsetMax[k]!) this.nextOffsetMax[k] = pr.nextOffset;
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
    for (const grp of cl.model.groups) {
      // A broadcasting group's offsets are its instances' own (none on the broker): its lags are its
      // slowest running instance's (broadcastOffsets.ts).
      const running = grp.messageModel === "BROADCASTING" ? runningInstances(cl, grp.index) : null;
      for (const sub of grp.subscriptions) {
        for (const mq of cl.routes.topicQueues(sub.topic)) {
          const broker = cl.brokers[cl.routes.brokerOf(mq)]!;
          const q = broker.store.queue(mq);
          const committed = running === null ? broker.offsets.queryOffset(grp.index, mq) : broadcastCommittedOffset(running, mq);
          const base = committed >= 0 ? committed : q.minOffset;
          out.lagCommitted += Math.max(0, q.maxOffset - base);
          const next = running === null ? this.nextOffsetMax[grp.index * nQ + mq]! : broadcastNextOffset(running, mq);
          out.lagUnpulled += Math.max(0, q.maxOffset - (next >= 0 ? next : base));
        }
      }
    }
    return out;
  }
}

function emptyGauges(): Gauges {
  return {
    lagCommitted: 0, lagUnpulled: 0, cached: 0, cachedBytes: 0, cachedPerQueueMax: 0, cachedBytesPerQueueMax: 0,
    cachedPerConsumerMax: 0, cachedBytesPerConsumerMax: 0, poolQueued: 0, poolBusy: 0, queuesOwned: 0,
  };
}

/** Writes sample `at` of a series, rounded to 3 decimals. */
function put(col: number[], at: number, v: number): void {
  col[at] = Math.round(v * 1000) / 1000;
}

/**
 * A series of `n` preallocated samples: a fast array of doubles (filled with a double so it is one from
 * the start, not converted at the first fractional sample), written by index — an index past the end
 * appends, as an array does.
 */
function series(n: number): number[] {
  return n === 0 ? [] : new Array<number>(n).fill(0.5);
}
