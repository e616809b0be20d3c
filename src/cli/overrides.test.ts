import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { BadInputError } from "./errors.ts";
import { applySets, parseDurationOption, parseSeed, parseSet } from "./overrides.ts";
import { fakeEnv, run, TINY_SCENARIO, writeScenario } from "./testEnv.ts";

function badInput(fn: () => unknown): BadInputError {
  try {
    fn();
  } catch (e) {
    if (e instanceof BadInputError) return e;
    throw e;
  }
  throw new Error("expected a BadInputError");
}

describe("parseSet", () => {
  it("parses the value as JSON when it is JSON, else keeps the text", () => {
    expect(parseSet("groups.0.config.pullThresholdForQueue=200")).toEqual({ path: "groups.0.config.pullThresholdForQueue", keys: ["groups", "0", "config", "pullThresholdForQueue"], value: 200 });
    expect(parseSet("duration=30s").value).toBe("30s");
    expect(parseSet('duration="30s"').value).toBe("30s");
    expect(parseSet("x=true").value).toBe(true);
    expect(parseSet('network.latency={"dist":"exponential","mean":"1ms"}').value).toEqual({ dist: "exponential", mean: "1ms" });
    expect(parseSet("description=a=b").value).toBe("a=b");
    expect(parseSet("description=").value).toBe("");
  });

  it("rejects a missing '=' and empty path segments", () => {
    expect(badInput(() => parseSet("seed")).message).toMatch(/^--set seed: expected path=value/);
    expect(badInput(() => parseSet("=1")).message).toMatch(/the path must be dot-separated keys/);
    expect(badInput(() => parseSet("groups..name=x")).message).toMatch(/the path must be dot-separated keys/);
  });
});

describe("applySets", () => {
  const sets = (...args: string[]) => args.map(parseSet);

  it("sets nested fields and new keys without touching the input", () => {
    const raw = structuredClone(TINY_SCENARIO);
    const out = applySets(raw, sets("groups.0.config.pullThresholdForQueue=200", "topics.0.produce.rate=50", "seed=9")) as any;
    expect(out.groups[0].config).toEqual({ pullBatchSize: 32, pullThresholdForQueue: 200 });
    expect(out.topics[0].produce.rate).toBe(50);
    expect(out.seed).toBe(9);
    expect(raw).toEqual(TINY_SCENARIO);
  });

  it("applies in order, so a later --set wins", () => {
    expect((applySets({ a: 1 }, sets("a=2", "a=3")) as any).a).toBe(3);
  });

  it("a missing intermediate object is created, as in groups.0.config.pullThresholdForQueue=200", () => {
    const out = applySets(TINY_SCENARIO, sets("groups.0.listener.consumeTime=5")) as any;
    expect(out.groups[0].listener).toEqual({ consumeTime: 5 });
    expect((TINY_SCENARIO as any).groups[0].listener).toBeUndefined(); // the input is not mutated
  });

  it("a path through a value that is not an object or list is an error", () => {
    const e = badInput(() => applySets(TINY_SCENARIO, sets("groups.0.name.x=1")));
    expect(e.message).toBe('--set groups.0.name.x: groups.0.name is a string ("G1"), not an object or a list');
  });

  it("an out-of-range or non-numeric list index is an error", () => {
    expect(badInput(() => applySets(TINY_SCENARIO, sets("groups.1.name=G2"))).message).toBe(
      "--set groups.1.name: groups.1: no such entry; groups is a list of 1, indexes 0 to 0",
    );
    expect(badInput(() => applySets(TINY_SCENARIO, sets("groups.first.name=G2"))).message).toMatch(/^--set groups.first.name: groups.first: no such entry/);
    expect(badInput(() => applySets(TINY_SCENARIO, sets("brokers.-1=1"))).message).toMatch(/no such entry/);
  });
});

describe("--seed and --duration", () => {
  it("parse whole seeds and kernel durations", () => {
    expect(parseSeed("0")).toBe(0);
    expect(parseSeed("4294967295")).toBe(4294967295);
    for (const bad of ["-1", "1.5", "1e3", "", "0x10", "4294967296"]) expect(() => parseSeed(bad), bad).toThrow(BadInputError);
    expect(parseDurationOption("10m")).toBe("10m");
    expect(() => parseDurationOption("10")).toThrow(/--duration: "10" has no unit/);
  });
});

describe("rmqsim run --set", () => {
  async function runWith(...args: string[]) {
    const env = fakeEnv();
    writeScenario(env.cwd, "s.json", TINY_SCENARIO);
    const code = await run(env, "run", "s.json", "--out", "o", ...args);
    return { env, code, out: env.out(), err: env.err() };
  }

  it("changes the scenario that runs, and the report's copy of it", async () => {
    const r = await runWith("--json", "--set", "topics.0.produce.rate=50", "--set", "groups.0.config.pullBatchSize=8");
    expect(r.code).toBe(0);
    const summary = JSON.parse(r.out);
    expect(summary.messages.produced).toBeGreaterThan(400);
    expect(summary.messages.produced).toBeLessThan(600); // 50/s for 10 s, Poisson
    expect(JSON.parse(readFileSync(join(r.env.cwd, "o", "summary.json"), "utf8"))).toEqual(summary);
  });

  it("a bad path exits 2 naming it", async () => {
    const r = await runWith("--set", "groups.3.config.pullBatchSize=8");
    expect(r.code).toBe(2);
    expect(r.err).toBe("rmqsim: --set groups.3.config.pullBatchSize: groups.3: no such entry; groups is a list of 1, indexes 0 to 0\n");
  });

  it("a bad value exits 2 naming the field and the --set", async () => {
    const r = await runWith("--set", "groups.0.config.pullThresholdForQueue=0");
    expect(r.code).toBe(2);
    expect(r.err).toBe("rmqsim: s.json: groups.0.config.pullThresholdForQueue: 0 is out of range [1, 65535] (value from --set groups.0.config.pullThresholdForQueue)\n");
  });

  it("an unknown key set by --set exits 2", async () => {
    const r = await runWith("--set", "groups.0.config.pullThreshold=5");
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/^rmqsim: s\.json: groups\.0\.config\.pullThreshold: unknown key "pullThreshold"/);
  });
});
