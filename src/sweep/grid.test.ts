import { describe, expect, it } from "vitest";
import { InputError } from "../scenario/errors.ts";
import { SweepInputError } from "./errors.ts";
import { buildVariant, expandGrid, gridPoint, parseParam, parseParams } from "./grid.ts";
import type { SweepParam } from "./types.ts";

function sweepError(fn: () => unknown): SweepInputError {
  try {
    fn();
  } catch (e) {
    if (e instanceof SweepInputError) return e;
    throw e;
  }
  throw new Error("expected a SweepInputError");
}

const P = "groups.0.config.pullThresholdForQueue";

describe("parseParam: lists", () => {
  it("parses numbers, booleans and other tokens as strings, trimming spaces", () => {
    expect(parseParam(`${P}=100,200,500,1000`)).toEqual({ path: P, spec: "100,200,500,1000", values: [100, 200, 500, 1000] });
    expect(parseParam("profile=4.9, 5.x ,true,false,-1.5e3").values).toEqual([4.9, "5.x", true, false, -1500]);
  });

  it("a token in double quotes is always a string", () => {
    expect(parseParam('profile="4.9","5.x"').values).toEqual(["4.9", "5.x"]);
  });

  it("a single value is a list of one", () => {
    expect(parseParam("a=7").values).toEqual([7]);
  });

  it("rejects an empty list, empty tokens, a missing '=' and a bad path, with the argument and what is accepted", () => {
    const e = sweepError(() => parseParam("a="));
    expect(e).toBeInstanceOf(InputError); // so the CLI maps it to exit 2
    expect(e.message).toMatch(/^--param a=: no values; expected path=values with values a list/);
    expect(sweepError(() => parseParam("a=1,,2")).message).toMatch(/an empty value in the list "1,,2"/);
    expect(sweepError(() => parseParam("a=1,")).message).toMatch(/an empty value/);
    expect(sweepError(() => parseParam("a")).message).toMatch(/^--param a: expected path=values/);
    expect(sweepError(() => parseParam("a..b=1")).message).toMatch(/dot-separated keys/);
    expect(sweepError(() => parseParam('a="x')).message).toMatch(/not a quoted string/);
  });

  it("rejects numbers that are not finite and duplicate values (0 and -0 are the same)", () => {
    expect(sweepError(() => parseParam("a=1e999")).message).toBe("--param a=1e999: 1e999 is not a finite number");
    expect(sweepError(() => parseParam("a=1,2,1")).message).toMatch(/the value 1 appears twice/);
    expect(sweepError(() => parseParam("a=0,-0")).message).toMatch(/the value 0 appears twice/);
    expect(parseParam("a=1,\"1\"").values).toEqual([1, "1"]); // a number and a string are different values
  });
});

describe("parseParam: arithmetic ranges", () => {
  it("includes the end when it lands on it", () => {
    expect(parseParam("a=100..500:100").values).toEqual([100, 200, 300, 400, 500]);
    expect(parseParam("a=100..550:100").values).toEqual([100, 200, 300, 400, 500]);
    expect(parseParam("a=100..2000:100").values).toHaveLength(20);
    expect(parseParam("a=5..5:1").values).toEqual([5]);
  });

  it("computes start + k·step, so float steps do not accumulate error", () => {
    expect(parseParam("a=0.1..0.5:0.1").values).toEqual([0.1, 0.2, 0.3, 0.4, 0.5]);
    expect(parseParam("a=0..1:0.1").values).toEqual([0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1]);
    expect(parseParam("a=-1..1:0.5").values).toEqual([-1, -0.5, 0, 0.5, 1]);
  });

  it("rejects a step ≤ 0, an end before the start, bad numbers and a range without step or factor", () => {
    expect(sweepError(() => parseParam("a=1..10:0")).message).toBe("--param a=1..10:0: the step must be greater than 0, got 0");
    expect(sweepError(() => parseParam("a=1..10:-1")).message).toMatch(/step must be greater than 0/);
    expect(sweepError(() => parseParam("a=10..1:1")).message).toBe("--param a=10..1:1: the range ends (1) before it starts (10)");
    expect(sweepError(() => parseParam("a=x..10:1")).message).toMatch(/the range start "x" is not a number/);
    expect(sweepError(() => parseParam("a=1..10")).message).toMatch(/is not a range; a range is start\.\.end:step/);
    expect(sweepError(() => parseParam("a=1..5..10:1")).message).toMatch(/is not a range/);
  });

  it("rejects more than 10 000 values without generating them", () => {
    expect(parseParam("a=1..10000:1").values).toHaveLength(10_000);
    expect(sweepError(() => parseParam("a=1..10001:1")).message).toMatch(/10001 values; at most 10000/);
    expect(sweepError(() => parseParam("a=0..1e15:1")).message).toMatch(/at most 10000/);
  });
});

describe("parseParam: geometric ranges", () => {
  it("multiplies by the factor while ≤ end", () => {
    expect(parseParam("a=50..5000*2").values).toEqual([50, 100, 200, 400, 800, 1600, 3200]);
    expect(parseParam("a=1..1000*10").values).toEqual([1, 10, 100, 1000]);
    expect(parseParam("a=0.1..100*10").values).toEqual([0.1, 1, 10, 100]);
    expect(parseParam("a=100..400*1.5").values).toEqual([100, 150, 225, 337.5]);
  });

  it("needs factor > 1 and start > 0", () => {
    expect(sweepError(() => parseParam("a=1..10*1")).message).toBe("--param a=1..10*1: the factor must be greater than 1, got 1");
    expect(sweepError(() => parseParam("a=1..10*0.5")).message).toMatch(/factor must be greater than 1/);
    expect(sweepError(() => parseParam("a=0..10*2")).message).toMatch(/must start above 0/);
  });

  it("rejects more than 10 000 values", () => {
    expect(sweepError(() => parseParam("a=1..1e300*1.01")).message).toMatch(/more than 10000 values/);
  });
});

describe("parseParams", () => {
  it("keeps the order given", () => {
    expect(parseParams(["b=1,2", "a=3"]).map((p) => p.path)).toEqual(["b", "a"]);
  });

  it("rejects the same path twice and a path inside another", () => {
    expect(sweepError(() => parseParams(["a.b=1", "a.b=2"])).message).toBe("--param a.b=2: a.b is already swept by --param a.b=1; give each path once");
    expect(sweepError(() => parseParams(["a.b=1", "a.b.c=2"])).message).toMatch(/overlaps --param a\.b=1/);
    expect(parseParams(["a.b=1", "a.bc=2"])).toHaveLength(2); // a prefix of the text, not of the path
  });
});

describe("expandGrid", () => {
  const a: SweepParam = { path: "a", spec: "1,2", values: [1, 2] };
  const b: SweepParam = { path: "b", spec: "x,y,z", values: ["x", "y", "z"] };

  it("is the cartesian product, row-major with the first param slowest", () => {
    expect(expandGrid([a, b])).toEqual([
      { a: 1, b: "x" }, { a: 1, b: "y" }, { a: 1, b: "z" },
      { a: 2, b: "x" }, { a: 2, b: "y" }, { a: 2, b: "z" },
    ]);
    expect(gridPoint([a, b], 4)).toEqual({ a: 2, b: "y" });
  });

  it("with no params is one empty point (the base scenario)", () => {
    expect(expandGrid([])).toEqual([{}]);
  });

  it("rejects more than 100 000 points", () => {
    const big: SweepParam = { path: "c", spec: "1..1000:1", values: Array.from({ length: 1000 }, (_, i) => i) };
    expect(expandGrid([big, { ...big, path: "d", values: big.values.slice(0, 100) }])).toHaveLength(100_000);
    expect(sweepError(() => expandGrid([big, { ...big, path: "d" }])).message).toMatch(/^--param: the grid has 1000 \(c\) × 1000 \(d\) points, more than the 100000 allowed/);
  });
});

describe("buildVariant", () => {
  const raw = { name: "s", groups: [{ name: "G1" }], topics: [{ produce: { rate: 10 } }] };

  it("sets each value through applySets, creating missing objects, without changing the input", () => {
    const out = buildVariant(raw, { [P]: 200, "topics.0.produce.rate": 50, profile: "5.x" }) as any;
    expect(out.groups[0].config).toEqual({ pullThresholdForQueue: 200 });
    expect(out.topics[0].produce.rate).toBe(50);
    expect(out.profile).toBe("5.x");
    expect((raw.groups[0] as any).config).toBeUndefined();
  });

  it("keeps strings that look like JSON as strings, and booleans as booleans", () => {
    expect((buildVariant(raw, { profile: "4.9", x: true }) as any)).toMatchObject({ profile: "4.9", x: true });
  });

  it("reports a bad path as a --param error", () => {
    expect(sweepError(() => buildVariant(raw, { "groups.3.config.x": 1 })).message).toBe("--param groups.3.config.x: groups.3: no such entry; groups is a list of 1, indexes 0 to 0");
  });
});

describe("tied parameters (--param a,b=values)", () => {
  const MIN = "groups.0.config.consumeThreadMin";
  const MAX = "groups.0.config.consumeThreadMax";

  it("parse into one parameter whose first path names it and whose other paths are tied to it", () => {
    expect(parseParam(`${MIN}, ${MAX}=10,20,40`)).toEqual({ path: MIN, tied: [MAX], spec: "10,20,40", values: [10, 20, 40] });
    // A single path has no `tied` key at all, so sweep.json keeps its shape.
    expect(Object.keys(parseParam(`${MIN}=10`))).toEqual(["path", "spec", "values"]);
  });

  it("set every tied path to the point's value: 2 values × 2 thresholds are 4 points, not 8", () => {
    const params = parseParams([`${MIN},${MAX}=10,40`, `${P}=100,200`]);
    expect(expandGrid(params)).toEqual([
      { [MIN]: 10, [MAX]: 10, [P]: 100 },
      { [MIN]: 10, [MAX]: 10, [P]: 200 },
      { [MIN]: 40, [MAX]: 40, [P]: 100 },
      { [MIN]: 40, [MAX]: 40, [P]: 200 },
    ]);
    const variant = buildVariant({ groups: [{ config: { consumeThreadMin: 20, consumeThreadMax: 20 } }] }, gridPoint(params, 2)) as { groups: { config: Record<string, number> }[] };
    expect(variant.groups[0]!.config).toEqual({ consumeThreadMin: 40, consumeThreadMax: 40, pullThresholdForQueue: 100 });
  });

  it("reject an empty path, a path given twice, and a tied path another --param sets or contains", () => {
    expect(sweepError(() => parseParam(`${MIN},=1`)).message).toMatch(/the path must be dot-separated keys .* comma-separated, to tie them/);
    expect(sweepError(() => parseParams([`${MIN},${MIN}=1`])).message).toMatch(/already set by another path of the same --param/);
    expect(sweepError(() => parseParams([`${MIN},${MAX}=1`, `${MAX}=2`])).message).toBe(
      `--param ${MAX}=2: ${MAX} is already swept by --param ${MIN},${MAX}=1; give each path once`,
    );
    expect(sweepError(() => parseParams([`${P},groups.0.config=1`])).message).toMatch(/groups\.0\.config overlaps another path of the same --param \(groups\.0\.config\.pullThresholdForQueue\): one path lies inside the other/);
  });
});
