// The distribution kinds a scenario can name, each a Dist sampled by inverse CDF (the spec forms and
// their validation are in distributions.ts).
//
// Sampling by inverse CDF means one uniform number gives exactly one value. That lets a model derive a
// message's attributes from hashUniform(seed, queue, offset, ...) and get the same consume time on every
// re-delivery, and keeps stream consumption independent of values. Values are clamped to [0, 2^52] so
// they stay safe integers even in a heavy tail.

import type { Rng } from "../sim/streams.ts";
import { normalCdf, normalPdf, normalQuantile } from "./normalMath.ts";
import { UNIT_VALUE_MAX } from "./units.ts";

/** A compiled distribution: a sampler of non-negative integers in its unit (µs, bytes or a count). */
export interface Dist {
  readonly kind: string;
  /** Analytic mean of the (unrounded) distribution in its unit; Infinity for pareto with shape ≤ 1. */
  readonly mean: number;
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

export class UniformDist implements Dist {
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

export class ExponentialDist implements Dist {
  readonly kind = "exponential";
  constructor(readonly mean: number) {}
  quantile(u: number): number {
    return toInteger(-this.mean * Math.log1p(-u));
  }
  sample(rng: Rng): number {
    return this.quantile(rng());
  }
}

export class NormalDist implements Dist {
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

export class LognormalDist implements Dist {
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

export class ParetoDist implements Dist {
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

export class EmpiricalDist implements Dist {
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
