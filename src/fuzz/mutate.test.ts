import { readFileSync, readdirSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { InputError } from "../scenario/errors.ts";
import { MUTATION_OPERATORS, mutantCase, namesField, runMutant, type BaseScenario } from "./mutate.ts";

const DIR = new URL("../../scenarios/", import.meta.url);
const BASES: BaseScenario[] = readdirSync(DIR)
  .filter((f) => f.endsWith(".json") && f !== "schema.json")
  .sort()
  .map((f) => ({ name: f, json: JSON.parse(readFileSync(new URL(f, DIR), "utf8")) as Record<string, unknown> }));

const SMALL = {
  name: "small", duration: "1s",
  brokers: [{ name: "broker-a" }],
  topics: [{ name: "T", brokers: ["broker-a"], queuesPerBroker: 2, produce: { rate: 100 } }],
  groups: [{ name: "G1", instances: 2, subscribe: { T: "*" } }],
};

describe("mutantCase", () => {
  it("mutantCase: the same (seed, index) gives the same mutant, so any corpus case can be rebuilt alone", () => {
    for (const i of [0, 17, 999]) {
      const a = mutantCase(BASES, 3, i);
      const b = mutantCase(BASES, 3, i);
      expect(b.applied).toEqual(a.applied);
      expect(b.base).toBe(a.base);
      expect(JSON.stringify(b.scenario)).toBe(JSON.stringify(a.scenario));
    }
  });

  it("mutantCase: other seeds and indexes give other mutants", () => {
    const texts = new Set<string>();
    for (let i = 0; i < 50; i++) texts.add(JSON.stringify(mutantCase(BASES, 1, i).applied) + mutantCase(BASES, 1, i).base);
    expect(texts.size).toBeGreaterThan(45);
    expect(JSON.stringify(mutantCase(BASES, 2, 0).applied)).not.toBe(JSON.stringify(mutantCase(BASES, 1, 0).applied));
  });

  it("mutantCase: never changes the base scenarios it copies", () => {
    const before = JSON.stringify(BASES);
    for (let i = 0; i < 300; i++) mutantCase(BASES, 5, i);
    expect(JSON.stringify(BASES)).toBe(before);
  });

  it("mutantCase: applies 1 to 3 operators and uses every operator within 500 cases", () => {
    const used = new Set<string>();
    const counts = new Set<number>();
    for (let i = 0; i < 500; i++) {
      const m = mutantCase(BASES, 1, i);
      counts.add(m.applied.length);
      for (const a of m.applied) used.add(a.op);
    }
    expect([...counts].sort()).toEqual([1, 2, 3]);
    expect([...used].sort()).toEqual([...MUTATION_OPERATORS].sort());
  });

  it("mutantCase: the typed operators hit fields of their type (durations, sizes, distributions, targets, expectations)", () => {
    const want: Record<string, RegExp> = {
      badDuration: /(^|\.)(duration|sampleEvery|at|for|restartAfter|lose|retention|consumeTimestampBefore|startAt|extra|fileReservedTime|cleanResourceInterval|lag|consumeTime|latency|mean|median|p99|min|max|sd|scale|value)$/,
      badSize: /(hotBytes|maxMessageSize|bodyBytes|mappedFileSizeCommitLog|diskBytes|diskUsedBytes)/,
      badDistribution: /(consumeTime|bodyBytes|latency|lag)$/,
      badTarget: /^(faults\.\d+\.(target|sameAs|clients|group|brokers)|topics\.\d+\.brokers)/,
      badExpectation: /^expect\.\d+$/,
      addFault: /^faults\.\d+$/,
    };
    let checked = 0;
    for (let i = 0; i < 800; i++) {
      for (const a of mutantCase(BASES, 9, i).applied) {
        const re = want[a.op];
        if (re === undefined) continue;
        expect(a.path, a.op).toMatch(re);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(200);
  });

  it("mutantCase: an unknown key such as __proto__ is planted as an own key, as JSON.parse would", () => {
    let found = false;
    for (let i = 0; i < 3000 && !found; i++) {
      const m = mutantCase(BASES, 1, i);
      const hit = m.applied.find((a) => a.op === "unknownKey" && a.path.endsWith("__proto__"));
      if (hit === undefined || m.applied.length > 1) continue;
      let at: unknown = m.scenario;
      for (const k of hit.path.split(".").slice(0, -1)) at = (at as Record<string, unknown>)[k];
      expect(Object.hasOwn(at as object, "__proto__")).toBe(true);
      expect(Object.getPrototypeOf(at)).toBe(Array.isArray(at) ? Array.prototype : Object.prototype);
      found = true;
    }
    expect(found).toBe(true);
  });
});

describe("runMutant", () => {
  it("runMutant: a valid scenario simulates with the checks on", () => {
    expect(runMutant(structuredClone(SMALL))).toEqual({ kind: "simulated", complete: true });
  });

  it("runMutant: a bad field is rejected with a message naming it", () => {
    const bad = structuredClone(SMALL);
    bad.topics[0]!.produce.rate = -1;
    const out = runMutant(bad);
    expect(out.kind).toBe("rejected");
    expect(out.kind === "rejected" && out.message).toMatch(/^topics\.0\.produce\.rate: /);
  });

  it("runMutant: a missing required field is rejected naming the field", () => {
    const { brokers: _, ...bad } = structuredClone(SMALL);
    expect(runMutant(bad)).toMatchObject({ kind: "rejected", message: expect.stringMatching(/^brokers: /) });
  });

  it("runMutant: an error that is not an InputError is a finding", () => {
    const hostile = { ...structuredClone(SMALL), get seed(): number { throw new TypeError("boom"); } };
    expect(runMutant(hostile)).toEqual({ kind: "finding", stage: "validate", error: "TypeError: boom" });
  });

  it("runMutant: a scenario beyond the corpus's budget is counted, not run", () => {
    const big = structuredClone(SMALL);
    (big.topics[0]!.produce as Record<string, unknown>).backlog = 100_000_000;
    expect(runMutant(big)).toMatchObject({ kind: "overBudget", reason: expect.stringContaining("backlog") });
  });
});

describe("namesField", () => {
  it("namesField: needs a path that is not the whole input and whose parent is in the file", () => {
    const s = { topics: [{ produce: {} }] };
    expect(namesField(new InputError("topics.0.produce.rate", "missing"), s)).toBe(true);
    expect(namesField(new InputError("brokers", "missing"), s)).toBe(true);
    expect(namesField(new InputError("", "bad"), s)).toBe(false);
    expect(namesField(new InputError("(scenario)", "bad"), s)).toBe(false);
    expect(namesField(new InputError("groups.3.name", "bad"), s)).toBe(false);
  });
});
