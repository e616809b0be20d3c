import { describe, expect, it } from "vitest";
import { RandomStreams } from "./streams.ts";
import { bucketLow, bucketOf, bucketWidth, Histogram } from "./Histogram.ts";

/** Nearest-rank quantile of ascending data: the ⌈q·n⌉-th smallest. */
function referenceQuantile(sorted: Float64Array, q: number): number {
  return sorted[Math.max(1, Math.ceil(q * sorted.length)) - 1]!;
}

/** Heavy-tailed latencies from 1 µs to about 10 minutes (log-uniform), integers. */
function latencies(n: number, label: string): Float64Array {
  const rng = new RandomStreams(99).get(label);
  return Float64Array.from({ length: n }, () => Math.floor(Math.exp(rng() * Math.log(6e8))));
}

const QUANTILES = [0, 0.001, 0.01, 0.1, 0.25, 0.5, 0.75, 0.9, 0.99, 0.999, 0.9999, 1];

describe("bucketOf", () => {
  it("stores values below 256 exactly", () => {
    for (let v = 0; v < 256; v++) {
      expect(bucketOf(v)).toBe(v);
      expect(bucketWidth(bucketOf(v))).toBe(1);
    }
  });

  it("maps each value into a bucket that contains it and is at most 1/128 of it wide", () => {
    const values = [256, 257, 511, 512, 1000, 65_535, 65_536, 2 ** 32 - 1, 2 ** 32, 2 ** 40 + 12_345, Number.MAX_SAFE_INTEGER];
    for (const v of values) {
      const index = bucketOf(v);
      expect(bucketLow(index)).toBeLessThanOrEqual(v);
      expect(bucketLow(index) + bucketWidth(index)).toBeGreaterThan(v);
      expect(bucketWidth(index) / bucketLow(index)).toBeLessThanOrEqual(1 / 128);
    }
  });

  it("is monotone and contiguous across powers of two", () => {
    let previous = bucketOf(255);
    const jumps: number[] = [];
    for (let v = 256; v < 70_000; v++) {
      const index = bucketOf(v);
      if (index !== previous && index !== previous + 1) jumps.push(v);
      previous = index;
    }
    expect(jumps).toEqual([]);
  });
});

describe("Histogram.record", () => {
  it("tracks count, sum, mean, min and max exactly", () => {
    const h = new Histogram();
    for (const v of [5, 1_000_000, 0, 300]) h.record(v);
    expect(h.count).toBe(4);
    expect(h.sum).toBe(1_000_305);
    expect(h.mean).toBe(1_000_305 / 4);
    expect(h.min).toBe(0);
    expect(h.max).toBe(1_000_000);
  });

  it("rejects negative, fractional, NaN and unsafe values", () => {
    const h = new Histogram();
    for (const bad of [-1, 1.5, Number.NaN, Infinity, 2 ** 53]) expect(() => h.record(bad)).toThrow(RangeError);
    expect(h.count).toBe(0);
  });
});

describe("Histogram.quantile", () => {
  it("is within 1 % of the sorted reference for 200 000 heavy-tailed values", () => {
    const data = latencies(200_000, "histogram");
    const h = new Histogram();
    for (const v of data) h.record(v);
    const sorted = data.slice().sort();
    for (const q of QUANTILES) {
      const truth = referenceQuantile(sorted, q);
      expect(Math.abs(h.quantile(q) - truth)).toBeLessThanOrEqual(truth * 0.01);
    }
    expect(h.quantile(0)).toBe(sorted[0]);
    expect(h.quantile(1)).toBe(sorted[sorted.length - 1]);
  });

  it("is exact for values below 256", () => {
    const h = new Histogram();
    for (let v = 0; v < 100; v++) h.record(v);
    expect(h.quantile(0.5)).toBe(49);
    expect(h.quantile(0.9)).toBe(89);
  });

  it("returns NaN when empty and rejects q outside [0, 1]", () => {
    const h = new Histogram();
    expect(h.quantile(0.5)).toBeNaN();
    expect(h.mean).toBeNaN();
    expect(() => h.quantile(1.5)).toThrow(RangeError);
  });
});

describe("Histogram.merge", () => {
  it("equals one histogram of all the values", () => {
    const a = latencies(10_000, "a");
    const b = latencies(10_000, "b");
    const left = new Histogram();
    const right = new Histogram();
    const all = new Histogram();
    for (const v of a) {
      left.record(v);
      all.record(v);
    }
    for (const v of b) {
      right.record(v);
      all.record(v);
    }
    left.merge(right);
    expect(left.toJSON()).toEqual(all.toJSON());
  });

  it("merging an empty histogram changes nothing", () => {
    const h = new Histogram();
    h.record(7);
    h.merge(new Histogram());
    expect(h.toJSON()).toEqual({ count: 1, sum: 7, mean: 7, min: 7, max: 7, p50: 7, p90: 7, p99: 7, p999: 7 });
  });
});

describe("Histogram.reset", () => {
  it("forgets every value", () => {
    const h = new Histogram();
    h.record(1_000);
    h.reset();
    expect(h.count).toBe(0);
    expect(h.toJSON()).toEqual({ count: 0, sum: 0, mean: null, min: null, max: null, p50: null, p90: null, p99: null, p999: null });
    h.record(3);
    expect(h.min).toBe(3);
    expect(h.max).toBe(3);
  });
});

describe("Histogram.toJSON", () => {
  it("serialises to the summary used by reports", () => {
    const h = new Histogram();
    for (const v of [1, 2, 3, 4]) h.record(v);
    expect(JSON.parse(JSON.stringify(h))).toEqual({ count: 4, sum: 10, mean: 2.5, min: 1, max: 4, p50: 2, p90: 4, p99: 4, p999: 4 });
  });
});
