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
// Evaluation against a run's output is in expect.ts; this file only tokenizes and parses.
import { SERIES_ALIASES, SERIES_COLUMNS, type SeriesColumn } from "./vocabulary.ts";

export class ExpectError extends Error {
  constructor(
    readonly expression: string,
    readonly position: number,
    readonly reason: string,
  ) {
    super(`${reason} (column ${position + 1} of "${expression}")`);
  }
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
  | { k: "bin"; op: "+" | "-" | "*" | "/"; l: ExprNode; r: ExprNode }
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
    const num = /^(\d+(?:\.\d+)?|\.\d+)([A-Za-z]+)?/.exec(src.slice(i));
    if (num && !(src[i] === "." && src[i + 1] === ".")) {
      const unit = num[2] ?? "";
      if (unit !== "" && !Object.hasOwn(UNITS, unit)) {
        throw new ExpectError(src, i + num[1]!.length, `unknown unit "${unit}" (durations: us ms s m h; sizes: B KiB MiB GiB TiB)`);
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
    if (!op) throw new ExpectError(src, i, `unexpected character "${ch}"`);
    out.push({ t: "op", v: op, pos: i });
    i += op.length;
  }
  out.push({ t: "end", pos: src.length });
  return out;
}

// ---------------------------------------------------------------- parser

class Parser {
  private i = 0;
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
    if (this.peek().t !== "end") this.fail(`unexpected "${tokText(this.peek())}" — join clauses with "and"`);
    return { source: this.src, clauses };
  }

  private clause(): Clause {
    const t = this.peek();
    if (t.t === "id" && t.v === "never" && this.toks[this.i + 1]?.t === "op" && (this.toks[this.i + 1] as { v: string }).v === "(") {
      const start = t.pos;
      this.i += 2;
      const cond = this.condition(true);
      const [from, to] = this.optionalWindow();
      this.expectOp(")");
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
    let l = this.product(perSample);
    while (this.isOp("+") || this.isOp("-")) {
      const op = (this.next() as { v: "+" | "-" }).v;
      l = { k: "bin", op, l, r: this.product(perSample) };
    }
    return l;
  }

  private product(perSample: boolean): ExprNode {
    let l = this.unary(perSample);
    while (this.isOp("*") || this.isOp("/")) {
      const op = (this.next() as { v: "*" | "/" }).v;
      l = { k: "bin", op, l, r: this.unary(perSample) };
    }
    return l;
  }

  private unary(perSample: boolean): ExprNode {
    if (this.isOp("-")) {
      this.i++;
      return { k: "neg", e: this.unary(perSample) };
    }
    return this.atom(perSample);
  }

  private atom(perSample: boolean): ExprNode {
    const t = this.next();
    if (t.t === "num") return { k: "num", v: t.v, text: t.text };
    if (t.t === "op" && t.v === "(") {
      const e = this.sum(perSample);
      this.expectOp(")");
      return e;
    }
    if (t.t !== "id") this.fail(t.t === "end" ? "expression ends too early" : `unexpected "${tokText(t)}"`, t);
    if (this.isOp("(")) return this.call(t.v, t.pos, perSample);
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
    this.fail(`unknown function "${fn}"; functions are ${[...AGGREGATES, "at", "first", "never"].join(", ")}`, { t: "id", v: fn, pos });
  }

  private seriesArg(): { series: SeriesColumn; label: string } {
    const t = this.next();
    if (t.t !== "id") this.fail("expected a time-series name", t);
    const series = seriesOf(t.v);
    if (!series) this.fail(`"${t.v}" is not a time series; series are: ${seriesNames().join(", ")}`, t);
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
    if (t.unit !== "" && !DURATION_UNITS.includes(t.unit)) this.fail(`expected a duration, got "${t.text}"`, t);
    return t.v;
  }

  private name(name: string, pos: number, perSample: boolean): ExprNode {
    const series = seriesOf(name);
    if (perSample && series) return { k: "name", name, pos, series };
    if (this.names.variables?.includes(name)) return { k: "name", name, pos, series: null };
    if (this.names.summaryPaths.includes(name)) return { k: "name", name, pos, series: null };
    if (series) {
      this.fail(`"${name}" is a time series; use it inside max(…), min(…), mean(…), sum(…), last(…), at(…), first(…) or never(…)`, { t: "id", v: name, pos });
    }
    const known = [...this.names.summaryPaths, ...(this.names.variables ?? [])];
    const close = known.filter((k) => k.startsWith(name.split(".")[0]! + ".") || k === name.split(".")[0]).slice(0, 12);
    this.fail(
      `unknown name "${name}"${close.length ? `; under "${name.split(".")[0]}" there are: ${close.join(", ")}` : `; summary figures start with ${[...new Set(known.map((k) => k.split(".")[0]))].join(", ")}, series are ${seriesNames().join(", ")}`}`,
      { t: "id", v: name, pos },
    );
  }
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
  return new Parser(src, names).parse();
}
