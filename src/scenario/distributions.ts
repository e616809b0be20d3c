// Scenario distributions: durations, sizes and counts drawn as non-negative integers.
//
// Every distribution is sampled by inverse CDF, so one uniform number gives exactly one value.
// That lets a model derive a message's attributes from hashUniform(seed, queue, offset, ...) and get
// the same consume time on every re-delivery, and keeps stream consumption independent of values.
//
// Spec forms (in scenario JSON):
//   "5ms" | 5                                      a constant (bare value in the field's unit)
//   { "dist": "const", "value": v }
//   { "dist": "uniform", "min": a, "max": b }      integer endpoints: each integer in [a, b] equally likely
//   { "dist": "exponential", "mean": m }
//   { "dist": "normal", "mean": m, "sd": s }       truncated at 0 (resampled by CDF, not clamped)
//   { "dist": "lognormal", "median": m, "p99": p } the 50th and 99th percentiles
//   { "dist": "pareto", "scale": x, "shape": k }   x is the minimum; shape is a plain number
//   { "dist": "empirical", "values": [[v, w], ...] } v with probability w / sum(w)
// Values are clamped to [0, 2^52] so they stay safe integers even in a heavy tail.

import { describeValue, InputError } from "./errors.ts";
import type { Rng } from "../sim/streams.ts";
import { parseBytes, parseDurationUs, UNIT_VALUE_MAX } from "./units.ts";

/** What the numbers of a distribution measure: µs, bytes or plain counts. */
export type DistUnit = "duration" | "bytes" | "count";

export interface Dist {
  readonly kind: string;
  /** Analytic mean of the (unrounded) distribution in its unit; Infinity for pareto with shape ≤ 1. */
  readonly mean: number;
  /** Inverse CDF: u in [0, 1) → a non-negative integer. Allocation-free; u is not checked. */
  quantile(u: number): number;
  /** quantile(rng()). */
  sample(rng: Rng): number;
}

const PARAMS = {
  const: ["value"],
  uniform: ["min", "max"],
  exponential: ["mean"],
  normal: ["mean", "sd"],
  lognormal: ["median", "p99"],
  pareto: ["scale", "shape"],
  empirical: ["values"],
} as const satisfies Record<string, readonly string[]>;

type DistName = keyof typeof PARAMS;

/** The accepted `dist` names, in documentation order. */
export const DIST_NAMES: readonly DistName[] = Object.keys(PARAMS) as DistName[];

/** Most entries an empirical distribution may list; a limit so a typo cannot eat the heap. */
export const EMPIRICAL_ENTRIES_MAX = 100_000;

/** The standard normal's 99th percentile, linking a lognormal's p99 to its σ. */
const Z99 = 2.326347874;

/** Validates `spec` (see the file header) and returns a sampler; errors name `path`. */
export function compileDist(spec: unknown, unit: DistUnit, path: string): Dist {
  if (typeof spec === "number" || typeof spec === "string") return new ConstDist(parseValue(spec, unit, path));
  if (typeof spec !== "object" || spec === null || Array.isArray(spec)) {
    throw new InputError(path, `${describeValue(spec)} is not a distribution; ${formsHint(unit)}`);
  }
  const fields = spec as Record<string, unknown>;
  const name = fields["dist"];
  if (name === undefined) {
    throw new InputError(path, `missing "dist"; ${formsHint(unit)}; "dist" is one of ${DIST_NAMES.join(", ")}`);
  }
  if (typeof name !== "string" || !Object.hasOwn(PARAMS, name)) {
    const guess = typeof name === "string" ? didYouMean(name, DIST_NAMES) : "";
    throw new InputError(`${joinPath(path, "dist")}`, `unknown distribution ${describeValue(name)}; use one of ${DIST_NAMES.join(", ")}${guess}`);
  }
  const dist = name as DistName;
  const params: readonly string[] = PARAMS[dist];
  for (const key of Object.keys(fields)) {
    if (key !== "dist" && !params.includes(key)) {
      throw new InputError(joinPath(path, key), `unknown key for dist "${dist}", which takes ${params.join(", ")}${didYouMean(key, params)}`);
    }
  }
  for (const key of params) {
    if (fields[key] === undefined) throw new InputError(path, `dist "${dist}" needs "${key}" (it takes ${params.join(", ")})`);
  }
  return compileNamed(dist, fields, unit, path);
}

function compileNamed(dist: DistName, fields: Record<string, unknown>, unit: DistUnit, path: string): Dist {
  const value = (key: string): number => parseValue(fields[key], unit, joinPath(path, key));
  switch (dist) {
    case "const":
      return new ConstDist(value("value"));
    case "uniform": {
      const min = value("min");
      const max = value("max");
      if (min > max) throw new InputError(path, `min ${describeValue(fields["min"])} must not exceed max ${describeValue(fields["max"])}`);
      return new UniformDist(min, max);
    }
    case "exponential":
      return new ExponentialDist(value("mean"));
    case "normal":
      return new NormalDist(value("mean"), value("sd"));
    case "lognormal": {
      const median = value("median");
      const p99 = value("p99");
      if (median <= 0) throw new InputError(joinPath(path, "median"), `${describeValue(fields["median"])} must be greater than 0`);
      if (p99 < median) {
        throw new InputError(path, `p99 ${describeValue(fields["p99"])} must be at least the median ${describeValue(fields["median"])}`);
      }
      return new LognormalDist(median, p99);
    }
    case "pareto": {
      const scale = value("scale");
      const shape = fields["shape"];
      if (scale <= 0) throw new InputError(joinPath(path, "scale"), `${describeValue(fields["scale"])} must be greater than 0`);
      if (typeof shape !== "number" || !Number.isFinite(shape) || shape <= 0) {
        throw new InputError(joinPath(path, "shape"), `${describeValue(shape)} must be a number greater than 0 (the tail index; > 1 for a finite mean)`);
      }
      return new ParetoDist(scale, shape);
    }
    case "empirical":
      return compileEmpirical(fields["values"], unit, joinPath(path, "values"));
  }
}

function compileEmpirical(entries: unknown, unit: DistUnit, path: string): Dist {
  const shapeHint = 'use a non-empty list of [value, weight] pairs, e.g. [["1ms", 9], ["50ms", 1]]';
  if (!Array.isArray(entries) || entries.length === 0) throw new InputError(path, `${describeValue(entries)} is not valid; ${shapeHint}`);
  if (entries.length > EMPIRICAL_ENTRIES_MAX) throw new InputError(path, `${entries.length} entries exceed the limit of ${EMPIRICAL_ENTRIES_MAX}`);
  const pairs: { value: number; weight: number }[] = [];
  let total = 0;
  entries.forEach((entry: unknown, i) => {
    const at = joinPath(path, String(i));
    if (!Array.isArray(entry) || entry.length !== 2) throw new InputError(at, `${describeValue(entry)} is not a [value, weight] pair; ${shapeHint}`);
    const weight: unknown = entry[1];
    if (typeof weight !== "number" || !Number.isFinite(weight) || weight < 0) {
      throw new InputError(joinPath(at, "1"), `weight ${describeValue(weight)} must be a finite number ≥ 0`);
    }
    pairs.push({ value: parseValue(entry[0], unit, joinPath(at, "0")), weight });
    total += weight;
  });
  if (!(total > 0)) throw new InputError(path, "the weights add up to 0; at least one must be positive");
  // Sorting by value makes quantile a true (monotone) inverse CDF; the sort is stable, so equal
  // values keep their listed order and the result does not depend on anything but the input.
  pairs.sort((x, y) => x.value - y.value);
  return new EmpiricalDist(
    Float64Array.from(pairs, (p) => p.value),
    Float64Array.from(pairs, (p) => p.weight),
  );
}

function parseValue(raw: unknown, unit: DistUnit, path: string): number {
  if (unit === "duration") return parseDurationUs(raw, path);
  if (unit === "bytes") return parseBytes(raw, path);
  if (typeof raw !== "number" || !Number.isFinite(raw) || raw < 0 || raw > UNIT_VALUE_MAX) {
    throw new InputError(path, `${describeValue(raw)} is not a count; use a number from 0 to 2^52`);
  }
  return raw;
}

function toInteger(x: number): number {
  // `x > 0` is false for NaN, so NaN never escapes into the model.
  return x > 0 ? (x < UNIT_VALUE_MAX ? Math.round(x) : UNIT_VALUE_MAX) : 0;
}

class ConstDist implements Dist {
  readonly kind = "const";
  readonly mean: number;
  private readonly value: number;
  constructor(value: number) {
    this.mean = value;
    this.value = toInteger(value);
  }
  quantile(_u: number): number {
    return this.value;
  }
  sample(rng: Rng): number {
    rng(); // one draw per value, as for every other kind, so swapping a dist keeps streams aligned
    return this.value;
  }
}

class UniformDist implements Dist {
  readonly kind = "uniform";
  readonly mean: number;
  // Integer endpoints use floor over [min, max + 1) so every integer, ends included, is equally
  // likely — what "uniform 1..3 messages" means to a user. Fractional counts fall back to rounding.
  private readonly base: number;
  private readonly width: number;
  private readonly top: number;
  private readonly discrete: boolean;
  constructor(min: number, max: number) {
    this.mean = (min + max) / 2;
    this.discrete = Number.isInteger(min) && Number.isInteger(max);
    this.base = min;
    this.top = max;
    this.width = this.discrete ? max - min + 1 : max - min;
  }
  quantile(u: number): number {
    const x = this.base + u * this.width;
    // The min() guards against u·width rounding up to width for very wide ranges.
    return this.discrete ? Math.min(Math.floor(x), this.top) : toInteger(x);
  }
  sample(rng: Rng): number {
    return this.quantile(rng());
  }
}

class ExponentialDist implements Dist {
  readonly kind = "exponential";
  constructor(readonly mean: number) {}
  quantile(u: number): number {
    return toInteger(-this.mean * Math.log1p(-u));
  }
  sample(rng: Rng): number {
    return this.quantile(rng());
  }
}

class NormalDist implements Dist {
  readonly kind = "normal";
  readonly mean: number;
  private readonly mu: number;
  private readonly sigma: number;
  // The truncation maps u into [Φ(−μ/σ), 1) so values below 0 are never produced, rather than
  // piling them up at 0 as clamping would.
  private readonly uLow: number;
  constructor(mu: number, sigma: number) {
    this.mu = mu;
    this.sigma = sigma;
    if (sigma === 0) {
      this.uLow = 0;
      this.mean = mu;
    } else {
      const alpha = -mu / sigma;
      this.uLow = normalCdf(alpha);
      this.mean = mu + (sigma * normalPdf(alpha)) / (1 - this.uLow);
    }
  }
  quantile(u: number): number {
    if (this.sigma === 0) return toInteger(this.mu);
    return toInteger(this.mu + this.sigma * normalQuantile(this.uLow + u * (1 - this.uLow)));
  }
  sample(rng: Rng): number {
    return this.quantile(rng());
  }
}

class LognormalDist implements Dist {
  readonly kind = "lognormal";
  readonly mean: number;
  private readonly mu: number;
  private readonly sigma: number;
  constructor(median: number, p99: number) {
    this.mu = Math.log(median);
    this.sigma = (Math.log(p99) - this.mu) / Z99;
    this.mean = Math.exp(this.mu + (this.sigma * this.sigma) / 2);
  }
  quantile(u: number): number {
    return toInteger(Math.exp(this.mu + this.sigma * normalQuantile(u)));
  }
  sample(rng: Rng): number {
    return this.quantile(rng());
  }
}

class ParetoDist implements Dist {
  readonly kind = "pareto";
  readonly mean: number;
  private readonly scale: number;
  private readonly negInvShape: number;
  constructor(scale: number, shape: number) {
    this.scale = scale;
    this.negInvShape = -1 / shape;
    this.mean = shape > 1 ? (shape * scale) / (shape - 1) : Infinity;
  }
  quantile(u: number): number {
    return toInteger(this.scale * Math.pow(1 - u, this.negInvShape));
  }
  sample(rng: Rng): number {
    return this.quantile(rng());
  }
}

class EmpiricalDist implements Dist {
  readonly kind = "empirical";
  readonly mean: number;
  private readonly values: Float64Array;
  private readonly cumulative: Float64Array;
  private readonly total: number;
  constructor(values: Float64Array, weights: Float64Array) {
    this.cumulative = new Float64Array(values.length);
    let total = 0;
    let weighted = 0;
    for (let i = 0; i < values.length; i++) {
      total += weights[i]!;
      weighted += values[i]! * weights[i]!;
      this.cumulative[i] = total;
    }
    this.total = total;
    this.mean = weighted / total;
    this.values = values.map(toInteger);
  }
  quantile(u: number): number {
    // The first entry whose cumulative weight exceeds u·total; zero-weight entries are never chosen.
    const target = u * this.total;
    const cumulative = this.cumulative;
    let lo = 0;
    let hi = cumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cumulative[mid]! > target) hi = mid;
      else lo = mid + 1;
    }
    return this.values[lo]!;
  }
  sample(rng: Rng): number {
    return this.quantile(rng());
  }
}

/** Standard normal density. */
export function normalPdf(x: number): number {
  return Math.exp(-0.5 * x * x) / 2.5066282746310002;
}

/** Standard normal CDF, Hart's algorithm 5666 as given by West (2005): double precision accuracy. */
export function normalCdf(x: number): number {
  const z = Math.abs(x);
  let tail: number;
  if (z > 37) {
    tail = 0;
  } else {
    const e = Math.exp(-0.5 * z * z);
    if (z < 7.07106781186547) {
      let num = 3.52624965998911e-2 * z + 0.700383064443688;
      num = num * z + 6.37396220353165;
      num = num * z + 33.912866078383;
      num = num * z + 112.079291497871;
      num = num * z + 221.213596169931;
      num = num * z + 220.206867912376;
      let den = 8.83883476483184e-2 * z + 1.75566716318264;
      den = den * z + 16.064177579207;
      den = den * z + 86.7807322029461;
      den = den * z + 296.564248779674;
      den = den * z + 637.333633378831;
      den = den * z + 793.826512519948;
      den = den * z + 440.413735824752;
      tail = (e * num) / den;
    } else {
      const b = z + 1 / (z + 2 / (z + 3 / (z + 4 / (z + 0.65))));
      tail = e / b / 2.506628274631;
    }
  }
  return x > 0 ? 1 - tail : tail;
}

/** Inverse standard normal CDF, Acklam's rational approximation (relative error < 1.15e-9). */
export function normalQuantile(p: number): number {
  if (p <= 0) return -Infinity;
  if (p >= 1) return Infinity;
  if (p < 0.02425) {
    const q = Math.sqrt(-2 * Math.log(p));
    return acklamTail(q);
  }
  if (p > 0.97575) {
    const q = Math.sqrt(-2 * Math.log1p(-p));
    return -acklamTail(q);
  }
  const q = p - 0.5;
  const r = q * q;
  return (
    ((((((-3.969683028665376e1 * r + 2.209460984245205e2) * r - 2.759285104469687e2) * r + 1.38357751867269e2) * r -
      3.066479806614716e1) *
      r +
      2.506628277459239) *
      q) /
    (((((-5.447609879822406e1 * r + 1.615858368580409e2) * r - 1.556989798598866e2) * r + 6.680131188771972e1) * r -
      1.328068155288572e1) *
      r +
      1)
  );
}

function acklamTail(q: number): number {
  return (
    (((((-7.784894002430293e-3 * q - 3.223964580411365e-1) * q - 2.400758277161838) * q - 2.549732539343734) * q +
      4.374664141464968) *
      q +
      2.938163982698783) /
    ((((7.784695709041462e-3 * q + 3.224671290700398e-1) * q + 2.445134137142996) * q + 3.754408661907416) * q + 1)
  );
}

function formsHint(unit: DistUnit): string {
  const example = unit === "duration" ? '"5ms"' : unit === "bytes" ? '"1KiB"' : "3";
  const mean = unit === "duration" ? '"5ms"' : unit === "bytes" ? '"1KiB"' : "3";
  return `use a value (e.g. ${example}) or an object like {"dist": "exponential", "mean": ${mean}}`;
}

function joinPath(path: string, key: string): string {
  return path === "" ? key : `${path}.${key}`;
}

/** ` (did you mean "x"?)` for the closest candidate within a small edit distance, else "". */
export function didYouMean(input: string, candidates: readonly string[]): string {
  const lower = input.toLowerCase();
  let best = "";
  let bestDistance = Infinity;
  for (const candidate of candidates) {
    const d = candidate.startsWith(lower) && lower.length >= 3 ? 0 : editDistance(lower, candidate.toLowerCase());
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  return bestDistance <= Math.max(1, Math.floor(input.length / 3)) ? ` (did you mean "${best}"?)` : "";
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1);
      current.push(Math.min(previous[j]! + 1, current[j - 1]! + 1, substitution));
    }
    previous = current;
  }
  return previous[b.length]!;
}
