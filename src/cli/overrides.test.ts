import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { BadInputError } from "./errors.ts";
import { parseDurationOption, parseSeed } from "./overrides.ts";
import { fakeEnv, run, TINY_SCENARIO, writeScenario } from "./testEnv.ts";

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
