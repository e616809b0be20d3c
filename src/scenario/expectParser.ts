// Expectations: a small expression language over a run's summary and time series, parsed (never
// evaluated as code). Grammar (precedence low → high):
//
//   expectation := clause ("and" clause)*
//   clause      := "never" "(" condition ["," window] ")"
//                | sum cmp sum                      cmp := < <= > >= == !=
//   condition   := sum cmp sum                      (evaluated at every sample; series refer to the sample)
//   sum         := product (("+" | "-") product)*
//   product     := unary (("*" | "/") unary)*
//   unary       := "-" unary | atom
//   atom        := number [unit] | "(" sum ")" | name | call
//   call        := ("max" | "min" | "mean" | "sum" | "last") "(" series ["," window] ")"
//                | "at" "(" series "," time ")"
//                | "first" "(" condition ["," window] ")"      → time of the first sample where it holds
//   window      := [time] ".." [time]                 (inclusive; open ends run to the start / end)
//
// Units: durations (us ms s m h) are milliseconds, sizes (B KiB MiB GiB TiB) are bytes, so
// `latency.endToEnd.p99Ms < 2s` and `first(flowControl.count > 0) < 30s` read naturally.
// A name is a summary figure (`messages.lost`, `lag.committed.max`), a time-series column
// (`lag.committed`, `throughput.consumed`, `cache.countPerQueueMax`, …), or a variable the caller
// provides (the sweep's `best`). Inside a condition a series name is its value at that sample.
// The series and summary names themselves are listed in vocabulary.ts.
// Limits: an expression is at most EXPRESSION_LENGTH_MAX characters, nested at most EXPRESSION_DEPTH_MAX deep.
// Evaluation against a run's output is in expect.ts; this file only tokenizes and parses.
import { describeValue as q, listChoices } from "./errors.ts";
import { parseDurationUs } from "./units.ts";
import { SERIES_ALIASES, SERIES_COLUMNS, type SeriesColumn } from "./vocabulary.ts";

/** Longest expectation accepted: ten times the longest a person writes, and it bounds the tokens and nodes. */
export const EXPRESSION_LENGTH_MAX = 4096;
/**
 * Deepest nesting of parentheses, function calls and unary minus signs. The parser and the evaluator
 * recurse once per level (sums and products are flat lists, so a long `a + b + …` adds no depth); 64
 * levels is far beyond a readable expectation and far below what the stack holds.
 */
export const EXPRESSION_DEPTH_MAX = 64;
/** An error's excerpt: this many characters each side of its column, when the expression is longer than twice that. */
const EXCERPT_SIDE = 40;

export class ExpectError extends Error {
  constructor(
    readonly expression: string,
    readonly position: number,
    readonly reason: string,
  ) {
    super(`${reason} (column ${position + 1} of ${excerpt(expression, position)})`);
  }
}

/** The whole expression when it is short; else ≈ 40 characters each side of `position`, with … marks. */
function excerpt(src: string, position: number): string {
  if (src.length <= 2 * EXCERPT_SIDE + 20) return JSON.stringify(src);
  const from = Math.max(0, position - EXCERPT_SIDE);
  const to = Math.min(src.length, position + EXCERPT_SIDE);
  const text = `${from > 0 ? "…" : ""}${src.slice(from, to)}${to < src.length ? "…" : ""}`;
  return `a ${src.length}-character expression, here: ${JSON.stringify(text)}`;
}

const UNITS: Record<string, number> = {
  us: 0.001, ms: 1, s: 1000, m: 60_000, h: 3_600_000,
  B: 1, KiB: 1024, MiB: 1024 ** 2, GiB: 1024 ** 3, TiB: 1024 ** 4,
};
const DURATION_UNITS: readonly string[] = ["us", "ms", "s", "m", "h"];
const AGGREGATES = ["max", "min", "mean", "sum", "last"] as const;
const CMPS = ["<=", ">=", "==", "!=", "<", ">"] as const;
export type Cmp = (typeof CMPS)[number];

/** An expression of the parsed tree, as expect.ts evaluates it. */
export type ExprNode =
  | { k: "num"; v: number; text: string }
  | { k: "name"; name: string; pos: number; series: SeriesColumn | null }
  | { k: "neg"; e: ExprNode }
  /** `first op₁ e₁ op₂ e₂ …`, left to right: a sum of products or a product of unary terms (a flat list, so a sum of 2 000 terms is not 2 000 levels deep). */
  | { k: "chain"; first: ExprNode; rest: { op: "+" | "-" | "*" | "/"; e: ExprNode }[] }
  | { k: "agg"; fn: (typeof AGGREGATES)[number]; series: SeriesColumn; label: string; from: number; to: number }
  | { k: "at"; series: SeriesColumn; label: string; atMs: number }
  | { k: "first"; cond: Cond; from: number; to: number; text: string };

export interface Cond {
  l: ExprNode;
  op: Cmp;
  r: ExprNode;
  text: string;
}

export type Clause = { k: "cmp"; cond: Cond } | { k: "never"; cond: Cond; from: number; to: number; text: string };

export interface Expectation {
  source: string;
  clauses: Clause[];
}

/** What names an expectation may use: summary figures (dotted paths) and caller variables. */
export interface ExpectNames {
  summaryPaths: readonly string[];
  variables?: readonly string[];
}

// ---------------------------------------------------------------- tokenizer

type Tok = { t: "num"; v: number; unit: string; pos: number; text: string } | { t: "id"; v: string; pos: number } | { t: "op"; v: string; pos: number } | { t: "end"; pos: number };

function tokenize(src: string): Tok[] {
  const out: Tok[] = [];
  let i = 0;
  while (i < src.length) {
    const ch = src[i]!;
    if (/\s/.test(ch)) {
      i++;
      continue;
    }
    // A compound duration ("1m30s", "1h0m5s"): parsed, and its unit order checked, as scenario durations are.
    const compound = /^(?:\d+(?:\.\d+)?(?:ms|us|h|m|s)){2,}(?![A-Za-z0-9_])/.exec(src.slice(i));
    if (compound) {
      let us: number;
      try {
        us = parseDurationUs(compound[0], "duration");
      } catch (e) {
        throw new ExpectError(src, i, e instanceof Error ? e.message.replace(/^duration: /, "") : String(e));
      }
      out.push({ t: "num", v: us / 1000, unit: "ms", pos: i, text: compound[0] });
      i += compound[0].length;
      continue;
    }
    const num = /^(\d+(?:\.\d+)?|\.\d+)([A-Za-z]+)?/.exec(src.slice(i));
    if (num && !(src[i] === "." && src[i + 1] === ".")) {
      const unit = num[2] ?? "";
      if (unit !== "" && !Object.hasOwn(UNITS, unit)) {
        throw new ExpectError(src, i + num[1]!.length, `unknown unit ${q(unit)} (durations: us ms s m h; sizes: B KiB MiB GiB TiB)`);
      }
      const scaled = Number(num[1]) * (unit ? UNITS[unit]! : 1);
      // Durations are whole microseconds, like virtual time; rounding keeps 0.27m == 16200ms exact.
      const v = DURATION_UNITS.includes(unit) ? Math.round(scaled * 1000) / 1000 : scaled;
      out.push({ t: "num", v, unit, pos: i, text: num[0] });
      i += num[0].length;
      continue;
    }
    const id = /^[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z0-9_]+)*/.exec(src.slice(i));
    if (id) {
      out.push({ t: "id", v: id[0], pos: i });
      i += id[0].length;
      continue;
    }
    const op = ["..", "<=", ">=", "==", "!=", "<", ">", "(", ")", ",", "+", "-", "*", "/"].find((o) => src.startsWith(o, i));
    if (!op) throw new ExpectError(src, i, `unexpected character ${q(ch)}`);
    out.push({ t: "op", v: op, pos: i });
    i += op.length;
  }
  out.push({ t: "end", pos: src.length });
  return out;
}

// ---------------------------------------------------------------- parser

class Parser {
  private i = 0;
  /** Parentheses, calls and unary minus signs open around the current token. */
  private depth = 0;
  private readonly toks: Tok[];
  constructor(
    private readonly src: string,
    private readonly names: ExpectNames,
  ) {
    this.toks = tokenize(src);
  }

  private peek(): Tok {
    return this.toks[this.i]!;
  }
  private next(): Tok {
    return this.toks[this.i++]!;
  }
  private fail(reason: string, tok: Tok = this.peek()): never {
    throw new ExpectError(this.src, tok.pos, reason);
  }
  private isOp(v: string): boolean {
    const t = this.peek();
    return t.t === "op" && t.v === v;
  }
  private expectOp(v: string): void {
    if (!this.isOp(v)) this.fail(`expected "${v}"`);
    this.i++;
  }
  /** One more level of nesting at `tok`; refused beyond EXPRESSION_DEPTH_MAX (leave() undoes it). */
  private enter(tok: Tok): void {
    if (++this.depth > EXPRESSION_DEPTH_MAX) this.fail(`expression nested deeper than ${EXPRESSION_DEPTH_MAX} levels`, tok);
  }
  private leave(): void {
    this.depth--;
  }
  private textFrom(start: number): string {
    const end = this.peek().pos;
    return this.src.slice(start, end).trim();
  }

  parse(): Expectation {
    if (this.peek().t === "end") this.fail("empty expectation");
    const clauses: Clause[] = [this.clause()];
    while (this.peek().t === "id" && (this.peek() as { v: string }).v === "and") {
      this.i++;
      clauses.push(this.clause());
    }
    if (this.peek().t !== "end") this.fail(`unexpected ${q(tokText(this.peek()))} — join clauses with "and"`);
    return { source: this.src, clauses };
  }

  private clause(): Clause {
    const t = this.peek();
    if (t.t === "id" && t.v === "never" && this.toks[this.i + 1]?.t === "op" && (this.toks[this.i + 1] as { v: string }).v === "(") {
      const start = t.pos;
      this.enter(t);
      this.i += 2;
      const cond = this.condition(true);
      const [from, to] = this.optionalWindow();
      this.expectOp(")");
      this.leave();
      return { k: "never", cond, from, to, text: this.textFrom(start) };
    }
    return { k: "cmp", cond: this.condition(false) };
  }

  private condition(perSample: boolean): Cond {
    const start = this.peek().pos;
    const l = this.sum(perSample);
    const t = this.peek();
    if (t.t !== "op" || !(CMPS as readonly string[]).includes(t.v)) this.fail(`expected a comparison (${CMPS.join(" ")})`);
    this.i++;
    const r = this.sum(perSample);
    return { l, op: t.v as Cmp, r, text: this.src.slice(start, this.peek().pos).trim() };
  }

  private sum(perSample: boolean): ExprNode {
    const first = this.product(perSample);
    const rest: { op: "+" | "-"; e: ExprNode }[] = [];
    while (this.isOp("+") || this.isOp("-")) {
      const op = (this.next() as { v: "+" | "-" }).v;
      rest.push({ op, e: this.product(perSample) });
    }
    return rest.length === 0 ? first : { k: "chain", first, rest };
  }

  private product(perSample: boolean): ExprNode {
    const first = this.unary(perSample);
    const rest: { op: "*" | "/"; e: ExprNode }[] = [];
    while (this.isOp("*") || this.isOp("/")) {
      const op = (this.next() as { v: "*" | "/" }).v;
      rest.push({ op, e: this.unary(perSample) });
    }
    return rest.length === 0 ? first : { k: "chain", first, rest };
  }

  private unary(perSample: boolean): ExprNode {
    if (this.isOp("-")) {
      this.enter(this.next());
      const e = this.unary(perSample);
      this.leave();
      return { k: "neg", e };
    }
    return this.atom(perSample);
  }

  private atom(perSample: boolean): ExprNode {
    const t = this.next();
    if (t.t === "num") return { k: "num", v: t.v, text: t.text };
    if (t.t === "op" && t.v === "(") {
      this.enter(t);
      const e = this.sum(perSample);
      this.expectOp(")");
      this.leave();
      return e;
    }
    if (t.t !== "id") this.fail(t.t === "end" ? "expression ends too early" : `unexpected ${q(tokText(t))}`, t);
    if (this.isOp("(")) {
      this.enter(t);
      const call = this.call(t.v, t.pos, perSample);
      this.leave();
      return call;
    }
    return this.name(t.v, t.pos, perSample);
  }

  private call(fn: string, pos: number, perSample: boolean): ExprNode {
    if (perSample) this.fail(`${fn}(…) cannot be used inside first(…) or never(…)`, { t: "id", v: fn, pos });
    this.expectOp("(");
    if ((AGGREGATES as readonly string[]).includes(fn)) {
      const { series, label } = this.seriesArg();
      const [from, to] = this.optionalWindow();
      this.expectOp(")");
      return { k: "agg", fn: fn as (typeof AGGREGATES)[number], series, label, from, to };
    }
    if (fn === "at") {
      const { series, label } = this.seriesArg();
      if (!this.isOp(",")) this.fail(`at(…) needs a time after the series, e.g. at(${label}, 15m)`);
      this.i++;
      const atMs = this.time("a time, e.g. 15m");
      this.expectOp(")");
      return { k: "at", series, label, atMs };
    }
    if (fn === "first") {
      const start = pos;
      const cond = this.condition(true);
      const [from, to] = this.optionalWindow();
      this.expectOp(")");
      return { k: "first", cond, from, to, text: this.textFrom(start) };
    }
    if (fn === "never") this.fail(`never(…) is a clause of its own; join it to others with "and"`, { t: "id", v: fn, pos });
    this.fail(`unknown function ${q(fn)}; functions are ${[...AGGREGATES, "at", "first", "never"].join(", ")}`, { t: "id", v: fn, pos });
  }

  private seriesArg(): { series: SeriesColumn; label: string } {
    const t = this.next();
    if (t.t !== "id") this.fail("expected a time-series name", t);
    const series = seriesOf(t.v);
    if (!series) this.fail(`${q(t.v)} is not a time series; series are: ${listChoices(seriesNames(), 160)}`, t);
    return { series, label: t.v };
  }

  private optionalWindow(): [number, number] {
    if (!this.isOp(",")) return [-Infinity, Infinity];
    this.i++;
    const windowTok = this.peek();
    let from = -Infinity;
    let to = Infinity;
    if (!this.isOp("..")) from = this.time("a window like 5m..10m, 2m.. or ..30s");
    this.expectOp("..");
    if (this.peek().t === "num") to = this.time("a window end");
    if (to < from) this.fail("the window ends before it starts", windowTok);
    return [from, to];
  }

  private time(what: string): number {
    const t = this.next();
    if (t.t !== "num") this.fail(`expected ${what}`, t);
    if (t.unit !== "" && !DURATION_UNITS.includes(t.unit)) this.fail(`expected a duration, got ${q(t.text)}`, t);
    return t.v;
  }

  private name(name: string, pos: number, perSample: boolean): ExprNode {
    const series = seriesOf(name);
    if (perSample && series) return { k: "name", name, pos, series };
    if (this.names.variables?.includes(name)) return { k: "name", name, pos, series: null };
    if (this.names.summaryPaths.includes(name)) return { k: "name", name, pos, series: null };
    if (series) {
      this.fail(`${q(name)} is a time series; use it inside max(…), min(…), mean(…), sum(…), last(…), at(…), first(…) or never(…)`, { t: "id", v: name, pos });
    }
    const known = [...this.names.summaryPaths, ...(this.names.variables ?? [])];
    // Names under the same first word, those sharing the longest prefix with the typo first.
    const close = known
      .filter((k) => k.startsWith(name.split(".")[0]! + ".") || k === name.split(".")[0])
      .map((k, i) => ({ k, i, shared: sharedPrefix(k, name) }))
      .sort((a, b) => b.shared - a.shared || a.i - b.i)
      .map((x) => x.k)
      .slice(0, 12);
    this.fail(
      `unknown name ${q(name)}${close.length ? `; under ${q(name.split(".")[0])} there are: ${listChoices(close, 120)}` : `; summary figures start with ${listChoices([...new Set(known.map((k) => k.split(".")[0]!))], 90)}; series are ${listChoices(seriesNames(), 90)}`}`,
      { t: "id", v: name, pos },
    );
  }
}

function sharedPrefix(a: string, b: string): number {
  let n = 0;
  while (n < a.length && n < b.length && a[n] === b[n]) n++;
  return n;
}

function tokText(t: Tok): string {
  return t.t === "end" ? "end" : t.t === "num" ? t.text : String(t.v);
}

function seriesOf(name: string): SeriesColumn | null {
  if (Object.hasOwn(SERIES_ALIASES, name)) return SERIES_ALIASES[name]!;
  return (SERIES_COLUMNS as readonly string[]).includes(name) ? (name as SeriesColumn) : null;
}

export function seriesNames(): string[] {
  return Object.keys(SERIES_ALIASES);
}

export function parseExpectation(src: string, names: ExpectNames): Expectation {
  if (src.length > EXPRESSION_LENGTH_MAX) {
    throw new ExpectError(src, EXPRESSION_LENGTH_MAX, `expression longer than ${EXPRESSION_LENGTH_MAX} characters (it has ${src.length})`);
  }
  return new Parser(src, names).parse();
}
