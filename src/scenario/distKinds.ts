// The distribution kinds a scenario can name, each a Dist sampled by inverse CDF (the spec forms and
// their validation are in distributions.ts).
//
// Sampling by inverse CDF means one uniform number gives exactly one value. That lets a model derive a
// message's attributes from hashUniform(seed, queue, offset, ...) and get the same consume time on every
// re-delivery, and keeps stream consumption independent of values. Values are clamped to [0, 2^52] so
// they stay safe integers even in a heavy tail.
//
// The kinds with an unbounded upper tail (exponential, normal, lognormal, pareto) take an optional
// upper bound `max` and are then truncated there: u is mapped into [F(lower end), F(max)), as the
// normal is already truncated at 0, so no mass piles up at max the way a clamp would put it. Without
// max, F(max) is 1 and every value is exactly what it was before max existed.

import type { Rng } from "../sim/streams.ts";
import { normalCdf, normalPdf, normalQuantile } from "./normalMath.ts";
import { UNIT_VALUE_MAX } from "./units.ts";

/** A compiled distribution: a sampler of non-negative integers in its unit (µs, bytes or a count). */
export interface Dist {
  readonly kind: string;
  /** Analytic mean of the (unrounded) distribution in its unit; Infinity for pareto with shape ≤ 1; NaN
   * when a `max` leaves no probability below it (compileDist rejects that). */
  readonly mean: number;
  /**
   * Largest value quantile can return: finite for the bounded kinds (const, uniform, empirical) and for a
   * tail truncated by `max`; Infinity for an unbounded tail (whose draws are clamped at 2^52 only as a
   * safety net). Validators compare it with limits such as a broker's maxMessageSize.
   */
  readonly valueMax: number;
  /** Inverse CDF: u in [0, 1) → a non-negative integer. Allocation-free; u is not checked. */
  quantile(u: number): number;
  /** quantile(rng()). */
  sample(rng: Rng): number;
}

/** The standard normal's 99th percentile, linking a lognormal's p99 to its σ. */
const Z99 = 2.326347874;

function toInteger(x: number): number {
  // `x > 0` is false for NaN, so NaN never escapes into the model.
  return x > 0 ? (x < UNIT_VALUE_MAX ? Math.round(x) : UNIT_VALUE_MAX) : 0;
}

export class ConstDist implements Dist {
  readonly kind = "const";
  readonly mean: number;
  readonly valueMax: number;
  private readonly value: number;
  constructor(value: number) {
    this.mean = value;
    this.value = toInteger(value);
    this.valueMax = this.value;
  }
  quantile(_u: number): number {
    return this.value;
  }
  sample(rng: Rng): number {
    rng(); // one draw per value, as for every other kind, so swapping a dist keeps streams aligned
    return this.value;
  }
}

export class UniformDist implements Dist {
  readonly kind = "uniform";
  readonly mean: number;
  readonly valueMax: number;
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
    this.valueMax = this.discrete ? max : toInteger(max);
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

export class ExponentialDist implements Dist {
  readonly kind = "exponential";
  readonly mean: number;
  readonly valueMax: number;
  /** The mean before truncation. */
  private readonly scale: number;
  /** F(max) = 1 − e^(−max/scale); 1 without max. */
  private readonly uHigh: number;
  constructor(mean: number, max = Infinity) {
    this.scale = mean;
    if (mean === 0) {
      this.uHigh = 1;
      this.mean = 0;
      this.valueMax = 0;
    } else if (max === Infinity) {
      this.uHigh = 1;
      this.mean = mean;
      this.valueMax = Infinity;
    } else {
      this.uHigh = -Math.expm1(-max / mean);
      // E[X | X ≤ max] = m − max·e^(−max/m) / (1 − e^(−max/m)); NaN (0/0) when max is 0.
      this.mean = mean - (max * Math.exp(-max / mean)) / this.uHigh;
      this.valueMax = max;
    }
  }
  quantile(u: number): number {
    return Math.min(toInteger(-this.scale * Math.log1p(-u * this.uHigh)), this.valueMax);
  }
  sample(rng: Rng): number {
    return this.quantile(rng());
  }
}

export class NormalDist implements Dist {
  readonly kind = "normal";
  readonly mean: number;
  readonly valueMax: number;
  private readonly mu: number;
  private readonly sigma: number;
  // The truncation maps u into [Φ(−μ/σ), Φ((max − μ)/σ)) so values below 0 (or above max) are never
  // produced, rather than piling them up at 0 as clamping would.
  private readonly uLow: number;
  /** Φ((max − μ)/σ) − Φ(−μ/σ): the probability kept; 1 − uLow without max. */
  private readonly uSpan: number;
  constructor(mu: number, sigma: number, max = Infinity) {
    this.mu = mu;
    this.sigma = sigma;
    if (sigma === 0) {
      this.uLow = 0;
      this.uSpan = 1;
      this.mean = mu <= max ? mu : NaN;
      this.valueMax = toInteger(mu);
    } else {
      const alpha = -mu / sigma;
      const beta = (max - mu) / sigma;
      this.uLow = normalCdf(alpha);
      this.uSpan = (max === Infinity ? 1 : normalCdf(beta)) - this.uLow;
      const pdfBeta = max === Infinity ? 0 : normalPdf(beta);
      // Mean of the normal truncated to [0, max]: μ + σ·(φ(α) − φ(β)) / (Φ(β) − Φ(α)).
      this.mean = this.uSpan > 0 ? mu + (sigma * (normalPdf(alpha) - pdfBeta)) / this.uSpan : NaN;
      this.valueMax = max;
    }
  }
  quantile(u: number): number {
    if (this.sigma === 0) return toInteger(this.mu);
    return Math.min(toInteger(this.mu + this.sigma * normalQuantile(this.uLow + u * this.uSpan)), this.valueMax);
  }
  sample(rng: Rng): number {
    return this.quantile(rng());
  }
}

export class LognormalDist implements Dist {
  readonly kind = "lognormal";
  readonly mean: number;
  readonly valueMax: number;
  private readonly mu: number;
  private readonly sigma: number;
  /** F(max) = Φ((ln max − μ)/σ); 1 without max. */
  private readonly uHigh: number;
  constructor(median: number, p99: number, max = Infinity) {
    this.mu = Math.log(median);
    this.sigma = (Math.log(p99) - this.mu) / Z99;
    const untruncatedMean = Math.exp(this.mu + (this.sigma * this.sigma) / 2);
    if (this.sigma === 0) {
      // median = p99: a constant.
      this.uHigh = 1;
      this.mean = median <= max ? untruncatedMean : NaN;
      this.valueMax = toInteger(untruncatedMean);
    } else if (max === Infinity) {
      this.uHigh = 1;
      this.mean = untruncatedMean;
      this.valueMax = Infinity;
    } else {
      const b = (Math.log(max) - this.mu) / this.sigma;
      this.uHigh = normalCdf(b);
      // E[X | X ≤ max] = e^(μ + σ²/2) · Φ(b − σ) / Φ(b).
      this.mean = this.uHigh > 0 ? (untruncatedMean * normalCdf(b - this.sigma)) / this.uHigh : NaN;
      this.valueMax = max;
    }
  }
  quantile(u: number): number {
    return Math.min(toInteger(Math.exp(this.mu + this.sigma * normalQuantile(u * this.uHigh))), this.valueMax);
  }
  sample(rng: Rng): number {
    return this.quantile(rng());
  }
}

export class ParetoDist implements Dist {
  readonly kind = "pareto";
  readonly mean: number;
  readonly valueMax: number;
  private readonly scale: number;
  private readonly negInvShape: number;
  /** F(max) = 1 − (scale/max)^shape; 1 without max. */
  private readonly uHigh: number;
  constructor(scale: number, shape: number, max = Infinity) {
    this.scale = scale;
    this.negInvShape = -1 / shape;
    if (max === Infinity) {
      this.uHigh = 1;
      this.mean = shape > 1 ? (shape * scale) / (shape - 1) : Infinity;
      this.valueMax = Infinity;
    } else {
      // The bounded Pareto on [scale, max]; r = scale/max.
      const r = scale / max;
      this.uHigh = -Math.expm1(shape * Math.log(r));
      const mean = shape === 1
        ? (scale * Math.log(max / scale)) / (1 - r)
        : ((shape / (shape - 1)) * scale * (1 - Math.pow(r, shape - 1))) / this.uHigh;
      this.mean = this.uHigh > 0 ? mean : NaN;
      this.valueMax = max;
    }
  }
  quantile(u: number): number {
    return Math.min(toInteger(this.scale * Math.pow(1 - u * this.uHigh, this.negInvShape)), this.valueMax);
  }
  sample(rng: Rng): number {
    return this.quantile(rng());
  }
}

export class EmpiricalDist implements Dist {
  readonly kind = "empirical";
  readonly mean: number;
  readonly valueMax: number;
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
    // Values are sorted ascending; the largest one with a positive weight is the largest ever drawn.
    let top = values.length - 1;
    while (top > 0 && !(weights[top]! > 0)) top--;
    this.valueMax = this.values[top]!;
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
