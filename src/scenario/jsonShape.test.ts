// A scenario is JSON values only, nested at most NESTING_MAX deep (issue 15 items 1, 8, 9): anything else
// is one InputError naming the field — never a TypeError or a stack overflow.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { InputError } from "./errors.ts";
import { NESTING_MAX } from "./jsonShape.ts";
import { normalizeScenario } from "./normalize.ts";

const base = JSON.parse(readFileSync(new URL("../../scenarios/default.json", import.meta.url), "utf8"));
function rejected(mutate: (s: Record<string, any>) => void): InputError {
  const s = structuredClone(base);
  mutate(s);
  try {
    normalizeScenario(s);
  } catch (e) {
    if (e instanceof InputError) return e;
    throw e;
  }
  throw new Error("accepted");
}

describe("the shape of a scenario", () => {
  it("a BigInt, a symbol or a function is a validation error naming the field", () => {
    expect(rejected((s) => (s.seed = 5n))).toMatchObject({ path: "seed", message: expect.stringMatching(/bigint, not a JSON value/) });
    expect(rejected((s) => (s.topics[0].produce.rate = 5n)).path).toBe("topics.0.produce.rate");
    expect(rejected((s) => (s.name = Symbol("x"))).message).toMatch(/symbol, not a JSON value/);
    expect(rejected((s) => (s.duration = () => 1)).message).toMatch(/function, not a JSON value/);
  });

  it("a non-finite number (1e999 parses to Infinity) says so, not 'got null'", () => {
    expect(rejected((s) => (s.topics[0].produce.rate = JSON.parse("1e999")))).toMatchObject({ path: "topics.0.produce.rate", message: expect.stringMatching(/Infinity is not a finite number/) });
  });

  it(`5 000 levels of nesting are refused at level ${NESTING_MAX}, without recursion`, () => {
    let deep: unknown = 1;
    for (let i = 0; i < 5000; i++) deep = { a: deep };
    const e = rejected((s) => (s.description = deep));
    expect(e.message).toMatch(new RegExp(`nested deeper than ${NESTING_MAX} levels`));
    expect(e.path.split(".").length).toBe(NESTING_MAX); // "description" at depth 1, then a.a.a…
  });

  it("a key set to undefined counts as absent", () => {
    const s = structuredClone(base);
    s.sampleEvery = undefined;
    expect(() => normalizeScenario(s)).not.toThrow();
  });
});
