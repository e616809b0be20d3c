// Expectations, evaluated: a parsed expectation (expectParser.ts, which documents the language) checked
// against a run's summary and time series, with the figures the verdict rests on — as text (`actual`)
// and as data per clause (`clauses`: threshold, actual value, when and where; expectDetail.ts).
import type { Cmp, Cond, ExprNode, Expectation } from "./expectParser.ts";
import type { SeriesColumn, SeriesData } from "./vocabulary.ts";
import { clauseDetail, type ClauseDetail, type EvalInput, type Evaluator } from "./expectDetail.ts";

export type { ClauseDetail } from "./expectDetail.ts";

export interface ExpectResult {
  expression: string;
  ok: boolean;
  /** The figures the verdict rests on, e.g. "messages.lost = 0". */
  actual: string;
  /**
   * Each clause (`a and b` has two) as data, in the order written: its threshold, actual value, the
   * sample that decided it (`atUs`), the window (`windowUs`) and the worst queue or instance (`where`).
   * ClauseDetail documents each field. Reports draw thresholds from it; `rmqsim check` prints the
   * failed ones. Always set by evaluateExpectation; absent only in summaries written before it was.
   */
  clauses?: ClauseDetail[];
}

export type { EvalInput, Evaluator } from "./expectDetail.ts";

export function evaluateExpectation(e: Expectation, input: EvalInput): ExpectResult {
  const parts: string[] = [];
  const clauses: ClauseDetail[] = [];
  let ok = true;
  for (const c of e.clauses) {
    if (c.k === "never") {
      const t = firstTime(c.cond, c.from, c.to, input);
      const held = t !== Infinity;
      if (held) ok = false;
      parts.push(held ? `${c.cond.text} first at ${fmtTime(t)}` : `${c.cond.text} never held`);
      clauses.push(clauseDetail(c, !held, input, EVAL));
      continue;
    }
    const l = value(c.cond.l, input, -1, parts);
    const r = value(c.cond.r, input, -1, parts);
    let held = true;
    if (Number.isNaN(l) || Number.isNaN(r)) {
      // Never a silent fail: say which side has no value (a figure this run does not have, an empty window).
      held = false;
      parts.push(`not a number: ${whyNaN(Number.isNaN(l) ? c.cond.l : c.cond.r)}`);
    } else if (!compare(l, c.cond.op, r)) held = false;
    if (!held) ok = false;
    clauses.push(clauseDetail(c, held, input, EVAL, l, r));
  }
  return { expression: e.source, ok, actual: [...new Set(parts)].join(", "), clauses };
}

/** Why a side of a comparison has no value. */
function whyNaN(n: ExprNode): string {
  if (n.k === "name") return `${n.name} has no value in this run`;
  if (n.k === "agg" || n.k === "at") return "no sample in that window (or before the first sample)";
  return "a side of the comparison is not a number";
}

function value(n: ExprNode, input: EvalInput, sample: number, parts: string[] | null): number {
  switch (n.k) {
    case "num":
      return n.v;
    case "neg":
      return -value(n.e, input, sample, parts);
    case "chain": {
      // Left to right, as the left-deep tree of binary operations would: the same rounding.
      let acc = value(n.first, input, sample, parts);
      for (const { op, e } of n.rest) {
        const r = value(e, input, sample, parts);
        acc = op === "+" ? acc + r : op === "-" ? acc - r : op === "*" ? acc * r : acc / r;
      }
      return acc;
    }
    case "name": {
      if (n.series && sample >= 0) return input.series.columns[n.series][sample] ?? NaN;
      const v = input.variables && Object.hasOwn(input.variables, n.name) ? input.variables[n.name]! : lookup(input.summary, n.name);
      parts?.push(`${n.name} = ${fmt(v)}`);
      return v;
    }
    case "agg": {
      const vals = windowed(input.series, n.series, n.from, n.to);
      let v: number;
      if (vals.length === 0) v = NaN;
      // A loop, not Math.max(...vals): spreading 200 000 samples as arguments overflows the stack.
      else if (n.fn === "max") v = vals.reduce((a, b) => (b > a || Number.isNaN(b) ? b : a), -Infinity);
      else if (n.fn === "min") v = vals.reduce((a, b) => (b < a || Number.isNaN(b) ? b : a), Infinity);
      else if (n.fn === "sum") v = vals.reduce((a, b) => a + b, 0);
      else if (n.fn === "mean") v = vals.reduce((a, b) => a + b, 0) / vals.length;
      else v = vals[vals.length - 1]!;
      parts?.push(`${n.fn}(${n.label}${windowText(n.from, n.to)}) = ${fmt(v)}`);
      return v;
    }
    case "at": {
      const t = input.series.columns.tSec;
      let idx = -1;
      for (let i = 0; i < t.length; i++) if (sampleMs(t[i]!) <= n.atMs) idx = i;
      const v = idx >= 0 ? input.series.columns[n.series][idx]! : NaN;
      parts?.push(`at(${n.label}, ${fmtTime(n.atMs)}) = ${fmt(v)}`);
      return v;
    }
    case "first": {
      const t = firstTime(n.cond, n.from, n.to, input);
      const label = `first(${n.cond.text}${windowText(n.from, n.to)})`;
      parts?.push(t === Infinity ? `${label} = never` : `${label} = ${fmtTime(t)}`);
      return t;
    }
  }
}

/** Time (ms) of the first sample in the window where the condition holds; Infinity if none. */
function firstTime(c: Cond, from: number, to: number, input: EvalInput): number {
  const t = input.series.columns.tSec;
  for (let i = 0; i < t.length; i++) {
    const ms = sampleMs(t[i]!);
    if (ms < from || ms > to) continue;
    if (compare(value(c.l, input, i, null), c.op, value(c.r, input, i, null))) return ms;
  }
  return Infinity;
}

function windowed(s: SeriesData, col: SeriesColumn, from: number, to: number): number[] {
  const t = s.columns.tSec;
  const out: number[] = [];
  for (let i = 0; i < t.length; i++) {
    const ms = sampleMs(t[i]!);
    if (ms >= from && ms <= to) out.push(s.columns[col][i]!);
  }
  return out;
}

/** A sample's time in ms. tSec is µs / 1e6, and `1.005 * 1000` is 1004.99…, so go back through whole µs. */
function sampleMs(tSec: number): number {
  return Math.round(tSec * 1e6) / 1000;
}

function compare(l: number, op: Cmp, r: number): boolean {
  if (Number.isNaN(l) || Number.isNaN(r)) return false;
  switch (op) {
    case "<": return l < r;
    case "<=": return l <= r;
    case ">": return l > r;
    case ">=": return l >= r;
    case "==": return l === r;
    case "!=": return l !== r;
  }
}

const EVAL: Evaluator = { value: (n, input, sample) => value(n, input, sample, null), firstTime, sampleMs };

function lookup(obj: unknown, path: string): number {
  let cur: unknown = obj;
  const parts = path.split(".");
  for (let i = 0; i < parts.length; i++) {
    if (cur === null || typeof cur !== "object") return NaN;
    if (Array.isArray(cur)) {
      // An array of groups: the entry whose `group` is the name (which may itself contain dots); else
      // an index (a BROADCASTING group's instances).
      let found: unknown = undefined;
      for (let j = parts.length - 1; j >= i && found === undefined; j--) {
        const name = parts.slice(i, j + 1).join(".");
        found = (cur as unknown[]).find((e) => e !== null && typeof e === "object" && Object.hasOwn(e, "group") && (e as { group: unknown }).group === name);
        if (found !== undefined) i = j;
      }
      if (found === undefined && /^\d+$/.test(parts[i]!)) found = (cur as unknown[])[Number(parts[i])];
      cur = found;
      continue;
    }
    cur = Object.hasOwn(cur, parts[i]!) ? (cur as Record<string, unknown>)[parts[i]!] : undefined;
  }
  return typeof cur === "number" ? cur : typeof cur === "boolean" ? Number(cur) : NaN;
}

/** Every numeric leaf path of an object (arrays skipped), for validation and error messages. */
export function numericPaths(obj: unknown, prefix = ""): string[] {
  if (obj === null || typeof obj !== "object" || Array.isArray(obj)) return [];
  const out: string[] = [];
  for (const [k, v] of Object.entries(obj as Record<string, unknown>)) {
    const p = prefix ? `${prefix}.${k}` : k;
    if (typeof v === "number" || typeof v === "boolean") out.push(p);
    else out.push(...numericPaths(v, p));
  }
  return out;
}

function fmt(v: number): string {
  if (!Number.isFinite(v)) return String(v);
  return Number.isInteger(v) ? String(v) : v.toFixed(3).replace(/\.?0+$/, "");
}

function fmtTime(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000}s` : `${fmt(ms)}ms`;
}

function windowText(from: number, to: number): string {
  if (from === -Infinity && to === Infinity) return "";
  return `, ${from === -Infinity ? "" : fmtTime(from)}..${to === Infinity ? "" : fmtTime(to)}`;
}
