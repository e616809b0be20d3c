// Scenario distributions: durations, sizes and counts drawn as non-negative integers. This file
// validates a distribution spec and compiles it into a sampler; the samplers (Dist and its kinds,
// each sampled by inverse CDF) are in distKinds.ts.
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
// exponential, normal, lognormal and pareto also take an optional "max": the distribution truncated
// there (values above max are never drawn; the rest keep their relative likelihood, nothing is
// clamped onto max). Their other parameters still describe the untruncated distribution. A body size
// needs one: an unbounded tail can draw a body above the broker's maxMessageSize.
// Values are clamped to [0, 2^52] so they stay safe integers even in a heavy tail.

import { ConstDist, type Dist, EmpiricalDist, ExponentialDist, LognormalDist, NormalDist, ParetoDist, UniformDist } from "./distKinds.ts";
import { describeValue, InputError, missing } from "./errors.ts";
import { parseBytes, parseDurationUs, UNIT_VALUE_MAX } from "./units.ts";

/** What the numbers of a distribution measure: µs, bytes or plain counts. */
export type DistUnit = "duration" | "bytes" | "count";

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

/** Optional parameters: an upper truncation for the kinds whose tail is unbounded. */
const OPTIONAL_PARAMS: Readonly<Record<DistName, readonly string[]>> = {
  const: [],
  uniform: [],
  exponential: ["max"],
  normal: ["max"],
  lognormal: ["max"],
  pareto: ["max"],
  empirical: [],
};

/** Whether a kind takes the optional upper bound "max" (the kinds with an unbounded tail). */
export function distTakesMax(kind: string): boolean {
  return Object.hasOwn(OPTIONAL_PARAMS, kind) && OPTIONAL_PARAMS[kind as DistName].includes("max");
}

/** The accepted `dist` names, in documentation order. */
export const DIST_NAMES: readonly DistName[] = Object.keys(PARAMS) as DistName[];

/** Most entries an empirical distribution may list; a limit so a typo cannot eat the heap. */
export const EMPIRICAL_ENTRIES_MAX = 100_000;

/** Validates `spec` (see the file header) and returns a sampler; errors name `path`. */
export function compileDist(spec: unknown, unit: DistUnit, path: string): Dist {
  if (typeof spec === "number" || typeof spec === "string") return new ConstDist(parseValue(spec, unit, path));
  if (spec === undefined) throw new InputError(path, missing(`a distribution; ${formsHint(unit)}`));
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
  const optional = OPTIONAL_PARAMS[dist];
  const takes = params.join(", ") + (optional.length > 0 ? `; optionally ${optional.join(", ")}` : "");
  for (const key of Object.keys(fields)) {
    if (key !== "dist" && !params.includes(key) && !optional.includes(key)) {
      throw new InputError(joinPath(path, key), `unknown key for dist "${dist}", which takes ${takes}${didYouMean(key, [...params, ...optional])}`);
    }
  }
  for (const key of params) {
    if (fields[key] === undefined) throw new InputError(path, `dist "${dist}" needs "${key}" (it takes ${takes})`);
  }
  const compiled = compileNamed(dist, fields, unit, path);
  // A max at or below where the distribution starts leaves no probability to draw from (the mean of
  // the truncated distribution is then 0/0).
  if (fields["max"] !== undefined && Number.isNaN(compiled.mean)) {
    const floor = dist === "pareto" ? `greater than scale ${describeValue(fields["scale"])}` : "above the values the distribution draws";
    throw new InputError(joinPath(path, "max"), `${describeValue(fields["max"])} leaves nothing to draw; it must be ${floor}`);
  }
  return compiled;
}

function compileNamed(dist: DistName, fields: Record<string, unknown>, unit: DistUnit, path: string): Dist {
  const value = (key: string): number => parseValue(fields[key], unit, joinPath(path, key));
  // The optional upper truncation of the unbounded kinds (uniform's "max" is its own parameter).
  const truncation = (): number => (fields["max"] === undefined ? Infinity : value("max"));
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
      return new ExponentialDist(value("mean"), truncation());
    case "normal":
      return new NormalDist(value("mean"), value("sd"), truncation());
    case "lognormal": {
      const median = value("median");
      const p99 = value("p99");
      if (median <= 0) throw new InputError(joinPath(path, "median"), `${describeValue(fields["median"])} must be greater than 0`);
      if (p99 < median) {
        throw new InputError(path, `p99 ${describeValue(fields["p99"])} must be at least the median ${describeValue(fields["median"])}`);
      }
      return new LognormalDist(median, p99, truncation());
    }
    case "pareto": {
      const scale = value("scale");
      const shape = fields["shape"];
      if (scale <= 0) throw new InputError(joinPath(path, "scale"), `${describeValue(fields["scale"])} must be greater than 0`);
      if (typeof shape !== "number" || !Number.isFinite(shape) || shape <= 0) {
        throw new InputError(joinPath(path, "shape"), `${describeValue(shape)} must be a number greater than 0 (the tail index; > 1 for a finite mean)`);
      }
      return new ParetoDist(scale, shape, truncation());
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
    // Too different in length to be a typo (and a 1 MB input must not cost a quadratic edit distance).
    if (Math.abs(candidate.length - input.length) > Math.max(1, Math.floor(input.length / 3)) && !candidate.startsWith(lower)) continue;
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
