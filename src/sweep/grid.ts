// The sweep's grid: `--param path=values` arguments, their cartesian product, and the scenario
// variant of each point. Pure: the variants are built with the same immer-based overrides as --set.
//
// Values of one --param are written as
//   - a list:             100,200,500,1000     tokens are trimmed; decimal numbers become numbers,
//                         true/false booleans, anything else a string (5.x); a token in double quotes
//                         is always a string ("4.9"), for string fields whose values look like numbers;
//   - an arithmetic range 100..2000:100        start, start + step, … up to end, inclusive when it lands
//                         on end; floats allowed (0.1..0.5:0.1);
//   - a geometric range   50..5000*2           start, start·factor, … while ≤ end (50, 100, …, 3200);
//                         start > 0 and factor > 1.
// Any value text containing ".." is read as a range, never as a list.
//
// Tied parameters: `--param a,b=values` sets every listed path to the same value at each point, so
// they vary together instead of forming a grid (consumeThreadMin,consumeThreadMax=10,20,40 keeps
// min ≤ max at every point). The first path names the parameter; the others are its `tied` paths.
import type { SweepParam } from "./types.ts";
import { describeValue, InputError } from "../scenario/errors.ts";
import { applySets, parseSet } from "../scenario/overrides.ts";
import { SweepInputError } from "./errors.ts";

export type ParamValue = number | string | boolean;

/** One grid point: parameter path → value, keys in --param order (a tied parameter's paths in turn). */
export type GridPoint = Record<string, ParamValue>;

/** Values one --param may take: more would be a typo (a step of 1 instead of 100), not a sweep. */
export const PARAM_VALUES_MAX = 10_000;
/** Points in the grid: at a second a run, 100 000 points is already more than a day per seed. */
export const GRID_POINTS_MAX = 100_000;

const NUMBER = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;
const ACCEPTED =
  "expected path=values with values a list (100,200,500), an arithmetic range start..end:step (100..2000:100) or a geometric range start..end*factor (50..5000*2)";

/** Parses one `--param path=values`. */
export function parseParam(arg: string): SweepParam {
  const where = `--param ${arg}`;
  const eq = arg.indexOf("=");
  if (eq < 0) throw new SweepInputError(where, ACCEPTED);
  const paths = arg.slice(0, eq).split(",").map((p) => p.trim());
  for (const path of paths) {
    // The same path rules as --set, so a path that works there works here.
    if (path === "" || path.split(".").some((k) => k === "" || k === "__proto__")) {
      throw new SweepInputError(where, "the path must be dot-separated keys and list indexes, e.g. groups.0.config.pullThresholdForQueue (several, comma-separated, to tie them to the same values)");
    }
  }
  const path = paths[0]!;
  const tied = paths.slice(1);
  const spec = arg.slice(eq + 1).trim();
  if (spec === "") throw new SweepInputError(where, `no values; ${ACCEPTED}`);
  const values = spec.includes("..") ? parseRange(spec, where) : parseList(spec, where);
  if (values.length > PARAM_VALUES_MAX) {
    throw new SweepInputError(where, `${values.length} values; at most ${PARAM_VALUES_MAX} are allowed — use a larger step or factor`);
  }
  const seen = new Set<string>();
  for (const v of values) {
    const key = `${typeof v}:${String(v)}`;
    if (seen.has(key)) throw new SweepInputError(where, `the value ${describeValue(v)} appears twice; each value may be given once`);
    seen.add(key);
  }
  return tied.length > 0 ? { path, tied, spec, values } : { path, spec, values };
}

/** Every scenario path a parameter sets: its own, then its tied ones. */
export function paramPaths(p: SweepParam): string[] {
  return [p.path, ...(p.tied ?? [])];
}

/** How a parameter is written on the command line: "a" or "a,b" for tied paths. */
export function paramText(p: SweepParam): string {
  return paramPaths(p).join(",");
}

/**
 * Parses every --param. Two params may not name the same path, nor one a prefix of the other
 * (`groups.0.config` and `groups.0.config.pullBatchSize`): the later would silently overwrite part of
 * the earlier, so the result would depend on the order of the flags.
 */
export function parseParams(args: readonly string[]): SweepParam[] {
  const params = args.map(parseParam);
  // Every path against every earlier one, a tied parameter's own paths included.
  const seen: { path: string; param: SweepParam }[] = [];
  for (const p of params) {
    for (const path of paramPaths(p)) {
      for (const q of seen) {
        const where = `--param ${paramText(p)}=${p.spec}`;
        const other = q.param === p ? `another path of the same --param` : `--param ${paramText(q.param)}=${q.param.spec}`;
        if (path === q.path) throw new SweepInputError(where, `${path} is already ${q.param === p ? "set by" : "swept by"} ${other}; give each path once`);
        if (isPrefix(path, q.path) || isPrefix(q.path, path)) throw new SweepInputError(where, `${path} overlaps ${other} (${q.path}): one path lies inside the other`);
      }
      seen.push({ path, param: p });
    }
  }
  return params;
}

function isPrefix(outer: string, inner: string): boolean {
  return inner.startsWith(`${outer}.`);
}

function parseList(spec: string, where: string): ParamValue[] {
  return spec.split(",").map((raw) => {
    const token = raw.trim();
    if (token === "") throw new SweepInputError(where, `an empty value in the list ${describeValue(spec)}; ${ACCEPTED}`);
    if (token === "true") return true;
    if (token === "false") return false;
    if (token.startsWith('"')) {
      try {
        const s: unknown = JSON.parse(token);
        if (typeof s === "string") return s;
      } catch {
        // Fall through to the error below.
      }
      throw new SweepInputError(where, `${describeValue(token)} is not a quoted string; write "text" with no comma inside`);
    }
    if (NUMBER.test(token)) return finite(token, where);
    return token;
  });
}

function parseRange(spec: string, where: string): number[] {
  const halves = spec.split("..");
  const tail = halves.length === 2 ? /^([^:*]*)([:*])(.*)$/.exec(halves[1]!) : null;
  if (!tail) {
    throw new SweepInputError(where, `${describeValue(spec)} is not a range; a range is start..end:step (100..2000:100) or start..end*factor (50..5000*2)`);
  }
  const arithmeticRange = tail[2] === ":";
  const start = rangeNumber(halves[0]!, "start", where);
  const end = rangeNumber(tail[1]!, "end", where);
  const by = rangeNumber(tail[3]!, arithmeticRange ? "step" : "factor", where);
  if (end < start) throw new SweepInputError(where, `the range ends (${end}) before it starts (${start})`);
  return arithmeticRange ? arithmetic(start, end, by, where) : geometric(start, end, by, where);
}

function rangeNumber(text: string, what: string, where: string): number {
  const t = text.trim();
  if (!NUMBER.test(t)) throw new SweepInputError(where, `the range ${what} ${describeValue(t)} is not a number; ${ACCEPTED}`);
  return finite(t, where);
}

function finite(token: string, where: string): number {
  const v = Number(token);
  if (!Number.isFinite(v)) throw new SweepInputError(where, `${token.length <= 40 ? token : describeValue(token)} is not a finite number`);
  return v === 0 ? 0 : v; // -0 and 0 are the same setting
}

/**
 * start + k·step (never a running sum, which drifts: 0.1 added 3 times is 0.30000000000000004),
 * rounded to the decimals of start and step, so 0.1..0.3:0.1 gives 0.1, 0.2, 0.3.
 */
function arithmetic(start: number, end: number, step: number, where: string): number[] {
  if (!(step > 0)) throw new SweepInputError(where, `the step must be greater than 0, got ${step}`);
  // The tolerance lets an end that is a whole number of steps away count despite binary rounding.
  const steps = Math.floor((end - start) / step + 1e-9);
  if (steps + 1 > PARAM_VALUES_MAX) {
    throw new SweepInputError(where, `${steps + 1} values; at most ${PARAM_VALUES_MAX} are allowed — use a larger step`);
  }
  const decimals = Math.min(20, Math.max(decimalPlaces(start), decimalPlaces(step)));
  const out: number[] = [];
  for (let k = 0; k <= steps; k++) {
    const v = Number((start + k * step).toFixed(decimals));
    out.push(v === 0 ? 0 : v);
  }
  return out;
}

/** start·factor^k while ≤ end, at 12 significant digits so 0.1·10³ is 100, not 100.00000000000001. */
function geometric(start: number, end: number, factor: number, where: string): number[] {
  if (!(factor > 1)) throw new SweepInputError(where, `the factor must be greater than 1, got ${factor}`);
  if (!(start > 0)) throw new SweepInputError(where, `a geometric range must start above 0, got ${start}`);
  const out: number[] = [];
  for (let k = 0; ; k++) {
    const v = Number((start * factor ** k).toPrecision(12));
    if (v > end * (1 + 1e-12)) break;
    if (out.length === PARAM_VALUES_MAX) {
      throw new SweepInputError(where, `more than ${PARAM_VALUES_MAX} values; use a larger factor`);
    }
    out.push(v);
  }
  return out;
}

/** Digits after the point in the shortest form of x: 0.25 → 2, 1e-7 → 7, 1.5e-7 → 8, 300 → 0. */
function decimalPlaces(x: number): number {
  const [mantissa = "", exponent] = String(Math.abs(x)).split("e");
  const fraction = mantissa.split(".")[1]?.length ?? 0;
  return Math.max(0, fraction - Number(exponent ?? 0));
}

/**
 * The cartesian product of the params' values, row-major with the FIRST param slowest: for params
 * a=[1,2] and b=[x,y] the points are (1,x) (1,y) (2,x) (2,y). A point's index in this list is the
 * `index` of its SweepPoint. No params give one empty point (the base scenario).
 */
export function expandGrid(params: readonly SweepParam[]): GridPoint[] {
  const total = gridSize(params);
  const out: GridPoint[] = [];
  for (let index = 0; index < total; index++) out.push(gridPoint(params, index));
  return out;
}

/** The number of points, checked against GRID_POINTS_MAX. */
export function gridSize(params: readonly SweepParam[]): number {
  let total = 1;
  for (const p of params) {
    total *= p.values.length;
    if (total > GRID_POINTS_MAX) {
      const sizes = params.map((q) => `${q.values.length} (${q.path})`).join(" × ");
      throw new SweepInputError("--param", `the grid has ${sizes} points, more than the ${GRID_POINTS_MAX} allowed; sweep fewer values`);
    }
  }
  return total;
}

/** The point at `index` of expandGrid(params), without building the others. */
export function gridPoint(params: readonly SweepParam[], index: number): GridPoint {
  const point: GridPoint = {};
  let rest = index;
  const digits: number[] = [];
  for (let i = params.length - 1; i >= 0; i--) {
    const n = params[i]!.values.length;
    digits[i] = rest % n;
    rest = Math.floor(rest / n);
  }
  params.forEach((p, i) => {
    for (const path of paramPaths(p)) point[path] = p.values[digits[i]!]!;
  });
  return point;
}

/**
 * The raw scenario with the point's values set, through applySets like --set (missing objects on
 * the way are created; the input is not changed). Validation happens later, in simulate.
 */
export function buildVariant(raw: unknown, point: GridPoint): unknown {
  // JSON round trip through parseSet: every ParamValue is finite, so it comes back identical.
  const sets = Object.entries(point).map(([path, value]) => parseSet(`${path}=${JSON.stringify(value)}`));
  try {
    return applySets(raw, sets);
  } catch (error) {
    if (error instanceof InputError) throw new SweepInputError(error.path.replace(/^--set /, "--param "), error.reason);
    throw error;
  }
}
