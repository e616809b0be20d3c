// Baseline comparison for `rmqsim check --baseline`: does a run's summary still match a stored one,
// figure by figure, within tolerances? Pure: the CLI reads both JSON files and prints the result.
//
// Every leaf of the two summaries is compared, found by walking objects by key and arrays by index,
// so a leaf's path reads like an expectation name (`lag.committed.max`, `perQueue.3.cached`):
//   - numbers may differ within the tolerance that applies to their path;
//   - strings, booleans and null must be equal;
//   - a leaf on one side only is `missing` (gone from the current run) or `added` (new in it); an empty
//     array or object counts as a leaf, so a list that disappears is still reported.
//
// Paths in `overrides` and `ignore` are key paths or prefixes of them, matched whole segment by whole
// segment ("lat" does not match "latency"); a `*` segment matches any one key or index
// ("perQueue.*.cached"). When several override paths match, the one with the most segments wins,
// then the one with fewer `*`, then the first in code-unit order, so the choice never depends on the
// order the overrides were written in.
import { describeValue, InputError } from "../scenario/errors.ts";

/** How far a number may move from its baseline value. */
export type Tolerance =
  /** |current − baseline| ≤ fraction × |baseline|; "5%" is fraction 0.05. */
  | { kind: "relative"; fraction: number }
  /** |current − baseline| ≤ amount; amount 0 is an exact comparison. */
  | { kind: "absolute"; amount: number };

export const EXACT: Tolerance = { kind: "absolute", amount: 0 };

/**
 * Paths never compared unless `useDefaultIgnores: false`: the trace hash, trace record and event
 * counts change whenever the model gains or loses a trace record or event, without any figure a user
 * cares about changing; expectations are the scenario's own verdicts, checked by `rmqsim check` itself.
 */
export const DEFAULT_IGNORES: readonly string[] = ["traceHash", "traceRecords", "events", "expectations"];

/**
 * Numbers that are identities, not measurements, so a tolerance would hide a different run being
 * compared: the seed, and a queue's id (which would also mean the perQueue list changed order).
 * An override with the same path replaces one of these.
 */
export const DEFAULT_OVERRIDES: Readonly<Record<string, Tolerance>> = { seed: EXACT, "perQueue.*.queueId": EXACT };

/**
 * A difference this small is never a drift, whatever the tolerance: the summary rounds its figures to
 * 3 decimals, so it is far below their precision, and it absorbs binary rounding at the boundary
 * (0.1 → 0.105 under "5%"). It is also all a relative tolerance allows when the baseline is 0: a
 * fraction of 0 is 0, so any real change from 0 (say messages.lost 0 → 1) is a drift.
 */
export const DRIFT_EPSILON = 1e-9;

/** Summaries nest a few levels; anything deeper is not a summary (or is cyclic). */
const DEPTH_MAX = 64;

export type LeafValue = number | string | boolean | null;

export interface Drift {
  /** Dotted key path, array indices as segments: `perQueue.3.cached`. */
  path: string;
  /** The baseline's value; null when `kind` is "added" (and when the value itself was null). */
  baseline: LeafValue;
  /** The current run's value; null when `kind` is "missing" (and when the value itself was null). */
  current: LeafValue;
  /** The rule at this path: "±5%", "±100", "exact" for numbers, "equal" for anything else. */
  allowed: string;
  kind: "changed" | "missing" | "added";
}

export interface CompareOptions {
  /** The tolerance for every number no override covers. */
  tolerance: Tolerance;
  /** Tolerances by key path or prefix, e.g. `{ "latency.endToEnd.p99Ms": 10%, latency: 20% }`. */
  overrides?: Record<string, Tolerance>;
  /** Key paths or prefixes never compared, in addition to DEFAULT_IGNORES. */
  ignore?: readonly string[];
  /** Set false to compare DEFAULT_IGNORES too; default true. */
  useDefaultIgnores?: boolean;
}

const NUMBER = /^\s*±?\s*((?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?)\s*(%?)\s*$/;

/** "5%" → relative 5 %, "0.5" or "100" → absolute, "0" → exact. A leading "±" is accepted. */
export function parseTolerance(text: string): Tolerance {
  const m = NUMBER.exec(text);
  const value = m === null ? Number.NaN : Number(m[1]);
  if (m === null || !Number.isFinite(value)) {
    throw new InputError("", `tolerance ${describeValue(text)} is not a tolerance: write a percentage like "5%" (relative), an amount like "0.5" or "100" (absolute), or "0" (exact)`);
  }
  return m[2] === "%" ? { kind: "relative", fraction: value / 100 } : { kind: "absolute", amount: value };
}

/** "±5%", "±0.5", or "exact" for a zero tolerance of either kind. */
export function formatTolerance(t: Tolerance): string {
  const amount = t.kind === "relative" ? t.fraction * 100 : t.amount;
  if (amount === 0) return "exact";
  // toPrecision hides the binary noise of fraction × 100 (0.07 × 100 = 7.000000000000001).
  const shown = String(Number(amount.toPrecision(12)));
  return t.kind === "relative" ? `±${shown}%` : `±${shown}`;
}

/** Whether `current` is within `t` of `baseline` (see DRIFT_EPSILON for the slack and for baseline 0). */
export function withinTolerance(baseline: number, current: number, t: Tolerance): boolean {
  if (Object.is(baseline, current)) return true;
  const limit = t.kind === "relative" ? t.fraction * Math.abs(baseline) : t.amount;
  // A few ulps of slack for large figures (bytes), where DRIFT_EPSILON is below the rounding error.
  const slack = DRIFT_EPSILON + 4 * Number.EPSILON * Math.max(Math.abs(baseline), Math.abs(current));
  return Math.abs(current - baseline) <= limit + slack;
}

/** Every drift of `current` from `baseline` beyond the tolerances, sorted by path (see comparePaths). */
export function compareSummaries(baseline: unknown, current: unknown, options: CompareOptions): Drift[] {
  const rules = toleranceRules(options.tolerance, options.overrides);
  const ignores = [...(options.useDefaultIgnores === false ? [] : DEFAULT_IGNORES), ...(options.ignore ?? [])];
  const drifts: Drift[] = [];
  for (const pair of leafPairs(baseline, current, ignores)) {
    const { path, baseline: b, current: c } = pair;
    const allowedFor = (v: LeafValue) => (typeof v === "number" ? formatTolerance(toleranceAt(rules, path, options.tolerance)) : "equal");
    const at = path.join(".");
    if (pair.kind === "added") drifts.push({ path: at, baseline: null, current: c, allowed: allowedFor(c), kind: "added" });
    else if (pair.kind === "missing") drifts.push({ path: at, baseline: b, current: null, allowed: allowedFor(b), kind: "missing" });
    else if (typeof b === "number" && typeof c === "number") {
      const tolerance = toleranceAt(rules, path, options.tolerance);
      if (!withinTolerance(b, c, tolerance)) drifts.push({ path: at, baseline: b, current: c, allowed: formatTolerance(tolerance), kind: "changed" });
    } else if (b !== c) drifts.push({ path: at, baseline: b, current: c, allowed: "equal", kind: "changed" });
  }
  return drifts.sort((a, b) => comparePaths(a.path, b.path));
}

/** A leaf of either summary, with its value on each side (`kind` says which sides have it). */
export interface LeafPair {
  path: string[];
  /** null when kind is "added". */
  baseline: LeafValue;
  /** null when kind is "missing". */
  current: LeafValue;
  kind: "both" | "missing" | "added";
}

/**
 * Every leaf of the two summaries, paired by key path, in walk order (keys sorted, indices ascending);
 * paths under `ignores` (key paths or prefixes, `*` for any one segment) left out.
 */
export function leafPairs(baseline: unknown, current: unknown, ignores: readonly string[]): LeafPair[] {
  requireObject(baseline, "the baseline");
  requireObject(current, "the current summary");
  const walker = new Walker(ignores.map((p) => pattern(p, "ignore")));
  walker.walk(baseline, current, []);
  return walker.pairs;
}

export interface ToleranceRule {
  pattern: Pattern;
  tolerance: Tolerance;
}

/** DEFAULT_OVERRIDES and `overrides` as rules for toleranceAt, each tolerance checked. */
export function toleranceRules(fallback: Tolerance, overrides: Record<string, Tolerance> = {}): ToleranceRule[] {
  checkTolerance(fallback, "tolerance");
  return Object.entries({ ...DEFAULT_OVERRIDES, ...overrides }).map(([path, tolerance]) => {
    checkTolerance(tolerance, `overrides.${path}`);
    return { pattern: pattern(path, "overrides"), tolerance };
  });
}

/** The most precise rule matching `path` (see the head comment), or null. */
export function ruleAt(rules: readonly ToleranceRule[], path: readonly string[]): ToleranceRule | null {
  let best: ToleranceRule | null = null;
  for (const rule of rules) {
    if (matches(rule.pattern, path) && (best === null || morePrecise(rule.pattern, best.pattern))) best = rule;
  }
  return best;
}

/** The tolerance at `path`: its most precise rule's, else `fallback`. */
export function toleranceAt(rules: readonly ToleranceRule[], path: readonly string[], fallback: Tolerance): Tolerance {
  return ruleAt(rules, path)?.tolerance ?? fallback;
}

/**
 * One line per drift, aligned in columns, sorted by path, at most `limit` lines then "… and N more",
 * under a header with the count:
 *
 *   2 drifts from the baseline (1 changed, 1 missing):
 *     lag.committed.max   41200 → 52310      (+27.0%, allowed ±5%)
 *     perQueue.3.cached      12 → (missing)  (missing from the current run)
 */
export function formatDrift(drifts: readonly Drift[], limit = 50): string {
  if (drifts.length === 0) return "No drift from the baseline.";
  const sorted = [...drifts].sort((a, b) => comparePaths(a.path, b.path));
  const shown = sorted.slice(0, Math.max(0, Math.floor(limit)));
  const rows = shown.map((d) => ({
    path: d.path,
    from: d.kind === "added" ? "(absent)" : show(d.baseline),
    to: d.kind === "missing" ? "(missing)" : show(d.current),
    note: note(d),
  }));
  const width = (get: (r: (typeof rows)[number]) => string) => rows.reduce((w, r) => Math.max(w, get(r).length), 0);
  const pathWidth = width((r) => r.path);
  const fromWidth = width((r) => r.from);
  const toWidth = width((r) => r.to);
  const lines = [header(sorted)];
  for (const r of rows) lines.push(`  ${r.path.padEnd(pathWidth)}   ${r.from.padStart(fromWidth)} → ${r.to.padEnd(toWidth)}  (${r.note})`);
  if (sorted.length > shown.length) lines.push(`  … and ${sorted.length - shown.length} more`);
  return lines.join("\n");
}

/**
 * Orders key paths segment by segment; index segments compare as numbers, so perQueue.10 follows
 * perQueue.9, and a path follows its own prefix.
 */
export function comparePaths(a: string, b: string): number {
  const as = a.split(".");
  const bs = b.split(".");
  for (let i = 0; i < Math.min(as.length, bs.length); i++) {
    const x = as[i]!;
    const y = bs[i]!;
    if (x === y) continue;
    const numeric = /^\d+$/.test(x) && /^\d+$/.test(y);
    if (numeric && Number(x) !== Number(y)) return Number(x) - Number(y);
    return x < y ? -1 : 1;
  }
  return as.length - bs.length;
}

export interface Pattern {
  text: string;
  segments: string[];
  wildcards: number;
}

class Walker {
  readonly pairs: LeafPair[] = [];

  constructor(private readonly ignores: readonly Pattern[]) {}

  walk(base: unknown, cur: unknown, path: string[]): void {
    if (this.ignores.some((p) => matches(p, path))) return;
    if (path.length > DEPTH_MAX) throw new InputError(path.join("."), `nested deeper than ${DEPTH_MAX} levels; is this a run summary?`);
    if (base === undefined && cur === undefined) return;
    if (base === undefined) return this.eachLeaf(cur, path, (p, v) => this.pairs.push({ path: p, baseline: null, current: v, kind: "added" }));
    if (cur === undefined) return this.eachLeaf(base, path, (p, v) => this.pairs.push({ path: p, baseline: v, current: null, kind: "missing" }));
    if (Array.isArray(base) && Array.isArray(cur) && (base.length > 0 || cur.length > 0)) {
      for (let i = 0; i < Math.max(base.length, cur.length); i++) this.walk(base[i], cur[i], [...path, String(i)]);
      return;
    }
    if (isRecord(base) && isRecord(cur) && (Object.keys(base).length > 0 || Object.keys(cur).length > 0)) {
      const keys = [...new Set([...Object.keys(base), ...Object.keys(cur)])].sort();
      for (const key of keys) this.walk(base[key], cur[key], [...path, key]);
      return;
    }
    this.pairs.push({ path, baseline: leaf(base), current: leaf(cur), kind: "both" });
  }

  /** Calls `visit` for every leaf under `value` that is not ignored; an empty container is a leaf. */
  private eachLeaf(value: unknown, path: string[], visit: (path: string[], value: LeafValue) => void): void {
    if (this.ignores.some((p) => matches(p, path))) return;
    if (path.length > DEPTH_MAX) throw new InputError(path.join("."), `nested deeper than ${DEPTH_MAX} levels; is this a run summary?`);
    if (Array.isArray(value) && value.length > 0) value.forEach((v, i) => this.eachLeaf(v, [...path, String(i)], visit));
    else if (isRecord(value) && Object.keys(value).length > 0) {
      for (const key of Object.keys(value).sort()) if (value[key] !== undefined) this.eachLeaf(value[key], [...path, key], visit);
    } else visit(path, leaf(value));
  }
}

export function pattern(text: string, option: string): Pattern {
  const segments = text.split(".");
  if (segments.some((s) => s === "")) throw new InputError(option, `${describeValue(text)} is not a key path: expected dotted keys like "latency.endToEnd.p99Ms" or "perQueue.*.cached"`);
  return { text, segments, wildcards: segments.filter((s) => s === "*").length };
}

export function matches(p: Pattern, path: readonly string[]): boolean {
  if (p.segments.length > path.length) return false;
  return p.segments.every((s, i) => s === "*" || s === path[i]);
}

function morePrecise(a: Pattern, b: Pattern): boolean {
  if (a.segments.length !== b.segments.length) return a.segments.length > b.segments.length;
  if (a.wildcards !== b.wildcards) return a.wildcards < b.wildcards;
  return a.text < b.text;
}

function checkTolerance(t: Tolerance, where: string): void {
  const amount = t.kind === "relative" ? t.fraction : t.amount;
  if (!(Number.isFinite(amount) && amount >= 0)) throw new InputError(where, `${describeValue(t)} is not a tolerance: the amount must be a finite number ≥ 0`);
}

function requireObject(value: unknown, what: string): void {
  if (!isRecord(value)) throw new InputError("", `${what} is not a JSON object (a run summary) but ${describeValue(value)}`);
}

export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** A value as a leaf: JSON scalars as they are; an empty container, or an odd type, as a short text. */
function leaf(v: unknown): LeafValue {
  if (v === null || typeof v === "number" || typeof v === "string" || typeof v === "boolean") return v;
  if (Array.isArray(v)) return v.length === 0 ? "[]" : `[${v.length} items]`;
  if (isRecord(v)) return Object.keys(v).length === 0 ? "{}" : `{${Object.keys(v).length} keys}`;
  return String(v);
}

function header(drifts: readonly Drift[]): string {
  const counts = (["changed", "missing", "added"] as const)
    .map((kind) => [kind, drifts.filter((d) => d.kind === kind).length] as const)
    .filter(([, n]) => n > 0)
    .map(([kind, n]) => `${n} ${kind}`);
  return `${drifts.length} drift${drifts.length === 1 ? "" : "s"} from the baseline (${counts.join(", ")}):`;
}

function note(d: Drift): string {
  if (d.kind === "missing") return "missing from the current run";
  if (d.kind === "added") return "not in the baseline";
  if (typeof d.baseline !== "number" || typeof d.current !== "number") return "must be equal";
  const delta = d.current - d.baseline;
  // A percentage is meaningless from 0, and an absolute tolerance is read in the figure's own unit.
  const change = d.baseline !== 0 && d.allowed.endsWith("%") ? `${signed((delta / Math.abs(d.baseline)) * 100, 1)}%` : signed(delta, 6) + (d.baseline === 0 ? " from 0" : "");
  return `${change}, allowed ${d.allowed}`;
}

function signed(v: number, decimals: number): string {
  const text = decimals === 1 ? v.toFixed(1) : String(Math.round(v * 10 ** decimals) / 10 ** decimals);
  return v >= 0 ? `+${text}` : text;
}

/** Strings are quoted (so "" and trailing spaces show) and cut, hashes included. */
function show(v: LeafValue): string {
  if (typeof v !== "string") return String(v);
  const quoted = JSON.stringify(v);
  return quoted.length > 42 ? `${quoted.slice(0, 40)}…"` : quoted;
}
