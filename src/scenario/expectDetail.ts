// An expectation's clause as data (issue 17, "CI failures you can act on"): the threshold, the actual
// value, and for a time-series expression when and where it was decided — the window it covers, the
// sample that decided it and the worst queue or consumer instance at that sample. `rmqsim check`
// prints it and writes it to JUnit; report.html draws the threshold on the series' chart.
import type { Clause, Cmp, Cond, ExprNode } from "./expectParser.ts";
import type { SeriesColumn, SeriesData } from "./vocabulary.ts";

export interface EvalInput {
  summary: unknown;
  /** The run's time series; per-queue and per-instance rows (the Sampler's TimeSeries has them) let a
   * failure name the worst queue or instance. */
  series: DetailSeries;
  variables?: Record<string, number>;
}

/** What this file needs of expect.ts's evaluator, passed in so that nothing here imports expect.ts. */
export interface Evaluator {
  value(n: ExprNode, input: EvalInput, sample: number): number;
  firstTime(c: Cond, from: number, to: number, input: EvalInput): number;
  sampleMs(tSec: number): number;
}

/** The run's series as the evaluator reads them; per-queue and per-instance rows are optional (the
 * Sampler's TimeSeries has them; a sweep's means do not). */
export interface DetailSeries extends SeriesData {
  /** Per ordinary queue: its label and cached messages per sample. */
  perQueue?: readonly { label: string; cached: readonly number[] }[];
  /** Per consumer instance: its client id, and per sample its cached bytes and busy consume workers. */
  perConsumer?: readonly { clientId: string; cachedBytes: readonly number[]; poolBusy: readonly number[] }[];
}

/**
 * One clause of an expectation. JSON-safe: every number is finite or null.
 *
 * The clause reads as `actual op threshold`: the *figure* is the side that names something (a
 * summary figure, a series aggregate, a variable), the *threshold* the side that is only numbers; when
 * both sides name something the left is the figure. `1000 > max(x)` is stored as actual max(x), op
 * "<", threshold 1000. Durations are ms and sizes bytes, as in the expression.
 */
export interface ClauseDetail {
  /** The clause as written, e.g. "max(lag.committed, 90s..) < 1000". */
  text: string;
  ok: boolean;
  /** How the figure compares with the threshold, figure first. */
  op: Cmp;
  /** The bound the figure is compared with; null when it has no value (NaN). */
  threshold: number | null;
  /**
   * The figure's value; null when it has none (a figure the run lacks, an empty window). For
   * `first(…)` it is the time in ms (null: never held). For `never(…)` it is the condition's left side
   * at the first sample where the condition held (null: it never held).
   */
  actual: number | null;
  /** "ms" when actual and threshold are times (`first(…)`); null when they are in the figure's own unit. */
  unit: "ms" | null;
  /** The time series the figure reads, as written (`lag.committed`), when it is one aggregate, `at`,
   * `first` or `never` over a series: the chart to draw the threshold on. Null for summary figures. */
  series: string | null;
  /**
   * The sample that decided the value, µs of virtual time: the (first) peak of max / min, the last
   * sample of last, the sample `at` read, the time `first` found, the first sample where a `never`
   * condition held. Null for mean and sum (the whole window decides) and summary figures.
   */
  atUs: number | null;
  /** The window the figure covers, µs of virtual time [from, to]: the expression's window, an open start
   * closed at 0 and an open end at the last sample. Null for summary figures and `at`. */
  windowUs: [number, number] | null;
  /**
   * At `atUs`, the queue or instance the series is worst in, with its value: for cache.countPerQueueMax
   * and cache.count the queue holding the most messages ("queue TopicTest@broker-a#3, 1024 cached"),
   * for cache.bytesPerConsumerMax and cache.bytes the instance holding the most bytes, for pool.busy the
   * busiest instance. Null for other series (lag has no per-queue series) and without atUs.
   */
  where: string | null;
}

const FLIP: Record<Cmp, Cmp> = { "<": ">", "<=": ">=", ">": "<", ">=": "<=", "==": "==", "!=": "!=" };

/** A clause's detail; `l` and `r` are the sides' values when the evaluator already has them. */
export function clauseDetail(c: Clause, ok: boolean, input: EvalInput, ev: Evaluator, l?: number, r?: number): ClauseDetail {
  const lastMs = lastSampleMs(input.series, ev);
  if (c.k === "never") {
    const t = ok ? Infinity : ev.firstTime(c.cond, c.from, c.to, input);
    const idx = t === Infinity ? -1 : sampleIndexAt(input.series, t, ev);
    const series = seriesOf(c.cond.l) ?? seriesOf(c.cond.r);
    return {
      text: c.text,
      ok,
      op: c.cond.op,
      unit: null,
      threshold: num(ev.value(c.cond.r, input, idx)),
      actual: idx < 0 ? null : num(ev.value(c.cond.l, input, idx)),
      series: series?.label ?? null,
      atUs: idx < 0 ? null : usOf(t),
      windowUs: windowUs(c.from, c.to, lastMs),
      where: idx < 0 || series === null ? null : whereAt(input.series, series.column, idx),
    };
  }
  const cond = c.cond;
  const figureLeft = !isConstant(cond.l) || isConstant(cond.r);
  const figure = figureLeft ? cond.l : cond.r;
  const lv = l ?? ev.value(cond.l, input, -1);
  const rv = r ?? ev.value(cond.r, input, -1);
  const decided = decide(figure, input, ev, lastMs);
  return {
    text: cond.text,
    ok,
    op: figureLeft ? cond.op : FLIP[cond.op],
    unit: figure.k === "first" ? "ms" : null,
    threshold: num(figureLeft ? rv : lv),
    actual: num(figureLeft ? lv : rv),
    ...decided,
  };
}

/** A side is a threshold when it holds numbers only. */
function isConstant(n: ExprNode): boolean {
  if (n.k === "num") return true;
  if (n.k === "neg") return isConstant(n.e);
  if (n.k === "chain") return isConstant(n.first) && n.rest.every((x) => isConstant(x.e));
  return false;
}

function seriesOf(n: ExprNode): { column: SeriesColumn; label: string } | null {
  return n.k === "name" && n.series !== null ? { column: n.series, label: n.name } : null;
}

type Decided = Pick<ClauseDetail, "series" | "atUs" | "windowUs" | "where">;

/** When and where a figure's value was decided; all null for summary figures and arithmetic. */
function decide(n: ExprNode, input: EvalInput, ev: Evaluator, lastMs: number): Decided {
  const s = input.series;
  const none: Decided = { series: null, atUs: null, windowUs: null, where: null };
  if (n.k === "agg") {
    const t = s.columns.tSec;
    const col = s.columns[n.series];
    let idx = -1;
    for (let i = 0; i < t.length; i++) {
      const ms = ev.sampleMs(t[i]!);
      if (ms < n.from || ms > n.to) continue;
      const v = col[i]!;
      if (n.fn === "last") idx = i;
      else if (n.fn === "max" && (idx < 0 || v > col[idx]!)) idx = i;
      else if (n.fn === "min" && (idx < 0 || v < col[idx]!)) idx = i;
    }
    const decisive = n.fn === "max" || n.fn === "min" || n.fn === "last";
    return {
      series: n.label,
      atUs: decisive && idx >= 0 ? usOf(ev.sampleMs(t[idx]!)) : null,
      windowUs: windowUs(n.from, n.to, lastMs),
      where: decisive && idx >= 0 ? whereAt(s, n.series, idx) : null,
    };
  }
  if (n.k === "at") {
    const idx = sampleIndexAt(s, n.atMs, ev);
    return { series: n.label, atUs: idx < 0 ? null : usOf(ev.sampleMs(s.columns.tSec[idx]!)), windowUs: null, where: idx < 0 ? null : whereAt(s, n.series, idx) };
  }
  if (n.k === "first") {
    const t = ev.firstTime(n.cond, n.from, n.to, input);
    const idx = t === Infinity ? -1 : sampleIndexAt(s, t, ev);
    const series = seriesOf(n.cond.l) ?? seriesOf(n.cond.r);
    return {
      series: series?.label ?? null,
      atUs: idx < 0 ? null : usOf(t),
      windowUs: windowUs(n.from, n.to, lastMs),
      where: idx < 0 || series === null ? null : whereAt(s, series.column, idx),
    };
  }
  return none;
}

/** The last sample at or before `ms`; -1 if none. */
function sampleIndexAt(s: SeriesData, ms: number, ev: Evaluator): number {
  const t = s.columns.tSec;
  let idx = -1;
  for (let i = 0; i < t.length && ev.sampleMs(t[i]!) <= ms; i++) idx = i;
  return idx;
}

function lastSampleMs(s: SeriesData, ev: Evaluator): number {
  const t = s.columns.tSec;
  return t.length === 0 ? 0 : ev.sampleMs(t[t.length - 1]!);
}

function windowUs(from: number, to: number, lastMs: number): [number, number] {
  return [usOf(from === -Infinity ? 0 : from), usOf(to === Infinity ? Math.max(lastMs, from === -Infinity ? 0 : from) : to)];
}

/** The worst queue or instance of a series that sums or maximises over them, at sample `idx`. */
export function whereAt(s: DetailSeries, column: SeriesColumn, idx: number): string | null {
  if ((column === "cachedPerQueueMax" || column === "cached") && s.perQueue && s.perQueue.length > 0) {
    const worst = argmax(s.perQueue.map((q) => q.cached[idx] ?? 0));
    const q = s.perQueue[worst]!;
    return `queue ${q.label}, ${q.cached[idx] ?? 0} cached`;
  }
  if ((column === "cachedBytesPerConsumerMax" || column === "cachedBytes") && s.perConsumer && s.perConsumer.length > 0) {
    const worst = argmax(s.perConsumer.map((c) => c.cachedBytes[idx] ?? 0));
    const c = s.perConsumer[worst]!;
    return `instance ${c.clientId}, ${c.cachedBytes[idx] ?? 0} bytes cached`;
  }
  if (column === "poolBusy" && s.perConsumer && s.perConsumer.length > 0) {
    const worst = argmax(s.perConsumer.map((c) => c.poolBusy[idx] ?? 0));
    const c = s.perConsumer[worst]!;
    return `instance ${c.clientId}, ${c.poolBusy[idx] ?? 0} consume threads busy`;
  }
  return null;
}

/** Index of the largest value, the first on a tie (queue / instance order is fixed, so this is too). */
function argmax(values: readonly number[]): number {
  let best = 0;
  for (let i = 1; i < values.length; i++) if (values[i]! > values[best]!) best = i;
  return best;
}

/** ms (possibly fractional, whole µs) → µs. */
function usOf(ms: number): number {
  return Math.round(ms * 1000);
}

function num(v: number): number | null {
  return Number.isFinite(v) ? v : null;
}
