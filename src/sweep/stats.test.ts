import { describe, expect, it } from "vitest";
import { studentT975, summarize } from "./stats.ts";

describe("studentT975", () => {
  it("gives the table values for small df", () => {
    expect(studentT975(1)).toBeCloseTo(12.706, 3);
    expect(studentT975(2)).toBeCloseTo(4.303, 3);
    expect(studentT975(4)).toBeCloseTo(2.776, 3);
    expect(studentT975(5)).toBeCloseTo(2.571, 3);
    expect(studentT975(10)).toBeCloseTo(2.228, 3);
    expect(studentT975(30)).toBeCloseTo(2.042, 3);
  });

  it("approximates beyond the table closely (reference values from the t quantile function)", () => {
    expect(studentT975(31)).toBeCloseTo(2.039513, 6);
    expect(studentT975(40)).toBeCloseTo(2.021075, 6);
    expect(studentT975(60)).toBeCloseTo(2.000298, 6);
    expect(studentT975(100)).toBeCloseTo(1.984, 3);
    expect(studentT975(100)).toBeCloseTo(1.983972, 6);
    expect(studentT975(1000)).toBeCloseTo(1.962339, 6);
  });

  it("tends to the normal 1.960 as df → ∞ and decreases along the way", () => {
    expect(studentT975(Infinity)).toBeCloseTo(1.96, 3);
    let prev = Infinity;
    for (let df = 1; df <= 200; df++) {
      const t = studentT975(df);
      expect(t).toBeLessThan(prev);
      prev = t;
    }
  });

  it("rejects df < 1 and fractional df", () => {
    expect(() => studentT975(0)).toThrow(RangeError);
    expect(() => studentT975(2.5)).toThrow(RangeError);
  });
});

describe("summarize", () => {
  it("[1,2,3,4,5]: mean 3, sample sd √2.5, ci95 = 2.776·√2.5/√5 = 1.963", () => {
    const s = summarize([1, 2, 3, 4, 5]);
    expect(s.mean).toBe(3);
    expect(s.ci95).toBeCloseTo((2.776445 * Math.sqrt(2.5)) / Math.sqrt(5), 6);
    expect(s.ci95).toBeCloseTo(1.963, 3);
    expect(s).toMatchObject({ n: 5, min: 1, max: 5 });
  });

  it("two values 10 and 20: sd √50, ci95 = 12.706·√50/√2 = 63.53", () => {
    const s = summarize([20, 10]);
    expect(s.mean).toBe(15);
    expect(s.ci95).toBeCloseTo(12.706205 * 5, 4);
    expect(s).toMatchObject({ n: 2, min: 10, max: 20 });
  });

  it("one value has no interval: ci95 0", () => {
    expect(summarize([7])).toEqual({ mean: 7, ci95: 0, n: 1, min: 7, max: 7 });
  });

  it("equal values have ci95 0", () => {
    expect(summarize([4, 4, 4]).ci95).toBe(0);
  });

  it("leaves NaN (and null, NaN after JSON) out as missing: n counts only the values present", () => {
    expect(summarize([1, NaN, 3, null])).toEqual({ mean: 2, ci95: (12.706205 * Math.SQRT2) / Math.SQRT2, n: 2, min: 1, max: 3 });
  });

  it("no values at all: NaN figures and n = 0", () => {
    const s = summarize([NaN]);
    expect(s.n).toBe(0);
    expect(s.mean).toBeNaN();
    expect(s.ci95).toBeNaN();
  });
});
