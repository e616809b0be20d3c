// What each chart shows, as plain JSON-able data. The PNG renderer and report.html both turn these
// specs into chart.js configurations with the same runtime (chartRuntime.ts), so the two always agree.
import type { RunResult } from "../run/simulate.ts";
import type { SeriesColumn } from "../scenario/vocabulary.ts";
import { expectationLines } from "./chartExpectations.ts";
import { faultLabelsWithClients, withClients } from "./faultClients.ts";
import { formatDisplay } from "./htmlSummary.ts";

/** Longest series drawn; longer runs are bucketed (max per bucket) so PNG and HTML stay small. */
export const CHART_POINTS_MAX = 2400;
const MIB = 1024 * 1024;

export interface ChartAxisSpec {
  id: "y" | "y2" | "y3";
  title: string;
  /** Logarithmic scale (values ≤ 0 are drawn as gaps). */
  log: boolean;
  /** Set on every axis of a chart drawn as stacked panels (first axis on top, all on the left, one x
   * axis): the panel's share of the plot height. Without it, "y" is on the left and "y2" on the right. */
  panelWeight?: number;
  /** The axis reaches at least this value (it still grows to fit larger values), e.g. 100 for a %. */
  suggestedMax?: number;
  /** Counts: ticks on whole numbers only. */
  integer?: boolean;
  /** A state axis: value i is labelled categories[i] (ticks and tooltips); values may sit a little off
   * a whole number so lines in the same state stay apart. */
  categories?: string[];
}

export interface ChartSeriesSpec {
  /** Stable identity across re-slicing (legend toggles are kept by key). */
  key: string;
  label: string;
  axis: "y" | "y2" | "y3";
  color: string;
  width: number;
  dash: number[];
  /** Draw as a staircase (a count that holds its value until the next sample). */
  stepped?: boolean;
  /** One value per chart point; null draws a gap. */
  values: (number | null)[];
  /** Set on per-queue series: the queue label the per-queue selector filters on. */
  queue?: string;
  /** Set on per-consumer series: the client id. A consumer's series share one legend entry (the
   * first), which shows or hides them all. */
  consumer?: string;
  /** Set on per-broker-node series: the node's name; like a consumer's, one legend entry for all of them. */
  node?: string;
}

export type { ChartLineSpec } from "./chartExpectations.ts";
import type { ChartLineSpec } from "./chartExpectations.ts";

export interface ChartSpec {
  /** Also the PNG file name without extension. */
  id: string;
  title: string;
  /** Appended to the subtitle: what the chart leaves out or marks (the initial backlog). */
  note?: string;
  axes: ChartAxisSpec[];
  series: ChartSeriesSpec[];
  lines: ChartLineSpec[];
}

export interface ChartMarker {
  tSec: number;
  kind: "rebalance" | "fault" | "retention";
  label: string;
}

export interface ChartData {
  subtitle: string;
  /** x of every chart point, seconds of virtual time. */
  tSec: number[];
  markers: ChartMarker[];
  charts: ChartSpec[];
}

// Tableau 10 without its red (kept for faults) and grey (kept for rebalances).
const PALETTE = ["#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#bcbd22", "#17becf"];

/** Builds every chart's data from the run's time series and markers. */
export function buildChartData(result: RunResult): ChartData {
  const cols = result.series.columns;
  const samples = cols.tSec.length;
  const stride = Math.max(1, Math.ceil(samples / CHART_POINTS_MAX));
  const thin = (values: readonly number[]) => bucketMax(values, stride);
  const col = (c: SeriesColumn) => thin(cols[c]);
  const tSec = bucketLast(cols.tSec, stride);
  const sampleSec = result.model.sampleEveryUs / 1e6;
  const note = stride > 1 ? ` · each point: max over ${stride} samples (${fmtSec(stride * sampleSec)})` : "";
  const subtitle = `${result.summary.scenario} · seed ${result.summary.seed} · profile ${result.summary.profile}${note}`;
  const threshold = result.model.groups[0]?.config.pullThresholdForQueue;
  const backlog = initialBacklog(result);

  const charts: ChartSpec[] = [
    {
      id: "throughput",
      title: "Throughput: produced vs consumed",
      ...(backlog > 0 ? { note: `backlog of ${formatDisplay(backlog)} messages already stored at 0 s, not drawn as production` } : {}),
      axes: [axis("y", "messages per second (msg/s)")],
      series: [
        line("produced", "produced (msg/s)", PALETTE[0]!, thin(withoutBacklog(cols.producedPerSec, backlog, sampleSec))),
        line("consumed", "consumed (msg/s)", PALETTE[2]!, col("consumedPerSec")),
      ],
      lines: [],
    },
    {
      id: "lag",
      title: "Lag: committed, unpulled and cached",
      axes: [axis("y", "lag (messages)"), axis("y2", "cached in ProcessQueues (messages)")],
      series: [
        line("lagCommitted", "lagCommitted: max offset − committed (msg)", PALETTE[3]!, col("lagCommitted")),
        // Dashed: it often runs just under lagCommitted and would vanish beneath a solid line.
        { ...line("lagUnpulled", "lagUnpulled: max offset − next pull (msg)", PALETTE[0]!, col("lagUnpulled")), dash: [6, 4] },
        { ...line("cached", "cached in ProcessQueues (msg, right axis)", PALETTE[1]!, col("cached")), axis: "y2" },
      ],
      lines: [],
    },
    {
      id: "cache",
      title: "ProcessQueue cache per queue",
      axes: [axis("y", "cached messages per queue"), axis("y2", "cached bytes, all queues (MiB)")],
      series: [
        ...result.series.perQueue.map((q, i) => ({
          ...line(`queue:${q.label}`, q.label, queueColor(i), thin(q.cached)),
          width: 1.5,
          queue: q.label,
        })),
        {
          ...line("cachedBytes", "cached bytes, all queues (MiB, right axis)", "#555555", col("cachedBytes").map((b) => round3(b / MIB))),
          axis: "y2",
          dash: [2, 3],
        },
      ],
      lines: threshold === undefined ? [] : [
        { key: "threshold", label: `pullThresholdForQueue = ${threshold}`, axis: "y", value: threshold, color: "#000000" },
      ],
    },
    {
      id: "flow-control",
      title: "Flow control events by kind",
      axes: [axis("y", "flow-control events per second (1/s)")],
      series: [
        line("count", "count (pullThresholdForQueue)", PALETTE[0]!, col("flowControlCountPerSec")),
        line("size", "size (pullThresholdSizeForQueue)", PALETTE[1]!, col("flowControlSizePerSec")),
        line("span", "span (consumeConcurrentlyMaxSpan)", PALETTE[3]!, col("flowControlSpanPerSec")),
        line("paused", "paused", PALETTE[4]!, col("flowControlPausedPerSec")),
      ],
      lines: [],
    },
    {
      id: "latency",
      title: "End-to-end latency: born to consumed, per sample interval",
      axes: [{ id: "y", title: "latency (ms, log scale)", log: true }],
      series: [
        // An interval with nothing consumed reports 0: a gap on a log axis, not a dive to −∞.
        line("p50", "p50 (ms)", PALETTE[0]!, col("endToEndP50Ms").map(positiveOrNull)),
        line("p99", "p99 (ms)", PALETTE[1]!, col("endToEndP99Ms").map(positiveOrNull)),
      ],
      lines: [],
    },
    consumersChart(result, thin),
    ...nodesChart(result, tSec, thin),
  ];
  const faultLabels = faultLabelsWithClients(result.model);
  const markers = result.markers.map((m) => ({ tSec: m.tUs / 1e6, kind: m.kind, label: m.kind === "fault" ? withClients(m.label, faultLabels) : m.label }));
  const expected = expectationLines(result.summary.expectations);
  for (const c of charts) c.lines.push(...(expected.get(c.id) ?? []));
  return { subtitle, tSec, markers, charts };
}

/**
 * Per consumer instance, three stacked panels sharing the time axis and one colour per consumer (the
 * colour the ownership timeline in report.html gives it): cached MiB (its heap share), ProcessQueues
 * held, and pool saturation = busy consume workers / consumeThreads.
 */
function consumersChart(result: RunResult, thin: (values: readonly number[]) => number[]): ChartSpec {
  const threads = new Map(result.summary.perConsumer.map((c) => [c.clientId, c.consumeThreads]));
  const series: ChartSeriesSpec[] = [];
  const perConsumer = result.series.perConsumer;
  const each = (axisId: ChartSeriesSpec["axis"], values: (c: (typeof perConsumer)[number]) => (number | null)[], stepped: boolean) =>
    perConsumer.forEach((c, i) => {
      series.push({ ...line(`${axisId}:${c.clientId}`, c.clientId, consumerColor(i), values(c)), axis: axisId, width: 1.5, consumer: c.clientId,
        ...(stepped ? { stepped: true } : {}) });
    });
  each("y", (c) => thin(c.cachedBytes).map((b) => round3(b / MIB)), false);
  each("y2", (c) => thin(c.queues), true);
  each("y3", (c) => {
    const n = threads.get(c.clientId) ?? 0;
    // Bucketed busy counts, then the share: the max of the shares is the share of the max.
    return thin(c.poolBusy).map((b) => (n > 0 ? Math.round((b / n) * 1000) / 10 : null));
  }, false);
  return {
    id: "consumers",
    title: "Per consumer instance: cache, queues held, pool saturation",
    axes: [
      { ...axis("y", "cached (MiB)"), panelWeight: 2 },
      { ...axis("y2", "queues held (retry incl.)"), panelWeight: 1, integer: true },
      { ...axis("y3", "pool busy (%)"), panelWeight: 1, suggestedMax: 100 },
    ],
    series,
    lines: [],
  };
}

/** A broker node's states, bottom to top: the state chart's rows. */
export const NODE_STATES = ["down", "slave", "master"] as const;

/**
 * Only for a model with replicas: per broker node of a group with replicas, two stacked panels sharing
 * the time axis and one colour per node — its state at each point (down / slave / master, from the
 * summary's roleTimeline; nodes in one state drawn a little apart) and the pull requests it answered
 * per second (the sampler's count over each sample interval).
 */
function nodesChart(result: RunResult, tSec: readonly number[], thin: (values: readonly number[]) => number[]): ChartSpec[] {
  const nodes = result.summary.brokerNodes;
  const served = result.series.perNode;
  if (nodes === undefined || nodes.length === 0 || served === undefined) return [];
  const series: ChartSeriesSpec[] = [];
  nodes.forEach((n, i) => {
    const apart = round3((i - (nodes.length - 1) / 2) * 0.06);
    const states = tSec.map((t) => {
      let state: string | undefined;
      for (const e of n.roleTimeline) if (e.atMs <= t * 1000) state = e.state;
      return state === undefined ? null : round3(NODE_STATES.indexOf(state as (typeof NODE_STATES)[number]) + apart);
    });
    series.push({ ...line(`state:${n.name}`, n.name, consumerColor(i), states), width: 1.5, stepped: true, node: n.name });
  });
  served.forEach((n, i) => {
    series.push({ ...line(`served:${n.name}`, n.name, consumerColor(i), thin(n.servedPerSec)), axis: "y2", width: 1.5, node: n.name });
  });
  return [{
    id: "nodes",
    title: "Broker nodes: role, and pulls each node served",
    axes: [
      { ...axis("y", "state"), panelWeight: 1, categories: [...NODE_STATES] },
      { ...axis("y2", "pulls served (1/s)"), panelWeight: 2 },
    ],
    series,
    lines: [],
  }];
}

/** Messages every topic's queues hold at the start (ProduceModel.backlog per queue), which the sampler
 * counts as produced in the first sample. */
function initialBacklog(result: RunResult): number {
  return result.model.topics.reduce((a, t) => a + (t.produce?.backlog ?? 0) * t.queuesPerBroker * t.brokers.length, 0);
}

/** The produced rate with the backlog taken out of the first sample, where it was counted (≥ 0). */
function withoutBacklog(produced: readonly number[], backlog: number, sampleSec: number): number[] {
  if (backlog <= 0 || produced.length === 0 || sampleSec <= 0) return produced.slice();
  const out = produced.slice();
  out[0] = Math.max(0, round3(out[0]! - backlog / sampleSec));
  return out;
}

/** A consumer's colour, the same on the consumers chart and the ownership timeline. */
export function consumerColor(i: number): string {
  return queueColor(i);
}

function axis(id: "y" | "y2" | "y3", title: string): ChartAxisSpec {
  return { id, title, log: false };
}

function line(key: string, label: string, color: string, values: (number | null)[]): ChartSeriesSpec {
  return { key, label, axis: "y", color, width: 2, dash: [], values };
}

function positiveOrNull(v: number | null): number | null {
  return v !== null && v > 0 ? v : null;
}

function round3(v: number): number {
  return Math.round(v * 1000) / 1000;
}

function fmtSec(s: number): string {
  return `${round3(s)} s`;
}

/** Max of each run of `stride` values (peaks survive thinning). */
export function bucketMax(values: readonly number[], stride: number): number[] {
  if (stride <= 1) return values.slice();
  const out: number[] = [];
  for (let i = 0; i < values.length; i += stride) {
    let m = values[i]!;
    for (let j = i + 1; j < Math.min(values.length, i + stride); j++) if (values[j]! > m) m = values[j]!;
    out.push(m);
  }
  return out;
}

/** Last value of each run of `stride` values (the bucket's end time). */
function bucketLast(values: readonly number[], stride: number): number[] {
  if (stride <= 1) return values.slice();
  const out: number[] = [];
  for (let i = 0; i < values.length; i += stride) out.push(values[Math.min(values.length, i + stride) - 1]!);
  return out;
}

/** The palette first, then golden-angle hues so any number of queues stay distinguishable. */
export function queueColor(i: number): string {
  if (i < PALETTE.length) return PALETTE[i]!;
  return hslHex(((i - PALETTE.length) * 137.508 + 20) % 360, 0.6, 0.42);
}

function hslHex(h: number, s: number, l: number): string {
  const a = s * Math.min(l, 1 - l);
  const f = (n: number) => {
    const k = (n + h / 30) % 12;
    const c = l - a * Math.max(-1, Math.min(k - 3, 9 - k, 1));
    return Math.round(c * 255).toString(16).padStart(2, "0");
  };
  return `#${f(0)}${f(8)}${f(4)}`;
}
