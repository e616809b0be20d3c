// `rmqsim sweep` and `rmqsim merge` through the CLI entry (engine inline): the same sweep.json
// whatever the worker count, shards merged equal to a single run, and bad input exiting 2.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { fakeEnv, run, tempDir, TINY_SCENARIO, writeScenario } from "./testEnv.ts";

const PARAM = "groups.0.config.pullThresholdForQueue=10,1000";
/** Consumers slower than producers, so the threshold matters. */
const SLOW = {
  ...TINY_SCENARIO,
  topics: [{ name: "TopicTest", brokers: ["broker-a"], queuesPerBroker: 4, produce: { rate: 2000 } }],
  groups: [{ name: "G1", instances: 1, subscribe: { TopicTest: "*" }, config: { consumeThreadMin: 4, consumeThreadMax: 4 }, listener: { consumeTime: "5ms" } }],
};

function sweepJson(dir: string, out: string): unknown {
  return JSON.parse(readFileSync(join(dir, out, "sweep.json"), "utf8"));
}

describe("rmqsim sweep", () => {
  it("writes the report and recommends the smallest threshold within 1 % of the best throughput", async () => {
    const dir = tempDir();
    writeScenario(dir, "s.json", SLOW);
    const env = fakeEnv({ cwd: dir });
    expect(await run(env, "sweep", "s.json", "--param", PARAM, "--seeds", "2", "--warmup", "2s", "--no-charts", "--out", "o")).toBe(0);
    const result = sweepJson(dir, "o") as { points: { params: Record<string, number>; runs: unknown[] }[]; recommendation: { point: number } };
    expect(result.points).toHaveLength(2);
    expect(result.points.every((p) => p.runs.length === 2)).toBe(true);
    // 4 workers × 5 ms = 800 msg/s either way: the threshold buys nothing, so the smaller one wins.
    expect(result.recommendation.point).toBe(0);
    expect(env.out()).toMatch(/recommended {2}groups\.0\.config\.pullThresholdForQueue=10/);
    expect(readFileSync(join(dir, "o", "recommendation.md"), "utf8")).toContain("pullThresholdForQueue");
  });

  it("gives the same sweep.json with 1 and 3 workers", async () => {
    const dir = tempDir();
    writeScenario(dir, "s.json", SLOW);
    await run(fakeEnv({ cwd: dir }), "sweep", "s.json", "--param", PARAM, "--seeds", "2", "--workers", "1", "--no-charts", "--out", "one");
    await run(fakeEnv({ cwd: dir }), "sweep", "s.json", "--param", PARAM, "--seeds", "2", "--workers", "3", "--no-charts", "--out", "three");
    expect(readFileSync(join(dir, "three", "sweep.json"), "utf8")).toBe(readFileSync(join(dir, "one", "sweep.json"), "utf8"));
  });

  it("shards merged give exactly the single run's result", async () => {
    const dir = tempDir();
    writeScenario(dir, "s.json", SLOW);
    const args = ["sweep", "s.json", "--param", PARAM, "--seeds", "2", "--no-charts"];
    await run(fakeEnv({ cwd: dir }), ...args, "--out", "whole");
    for (const i of [1, 2, 3]) expect(await run(fakeEnv({ cwd: dir }), ...args, "--shard", `${i}/3`, "--out", `shard${i}`)).toBe(0);
    const shard1 = sweepJson(dir, "shard1") as { shard: string; recommendation: unknown; points: unknown[] };
    expect(shard1.shard).toBe("1/3");
    expect(shard1.recommendation).toBeNull();
    expect(await run(fakeEnv({ cwd: dir }), "merge", "shard3", "shard1", "shard2", "--no-charts", "--out", "merged")).toBe(0);
    expect(readFileSync(join(dir, "merged", "sweep.json"), "utf8")).toBe(readFileSync(join(dir, "whole", "sweep.json"), "utf8"));
    // A missing shard leaves the merge incomplete.
    await run(fakeEnv({ cwd: dir }), "merge", "shard1", "shard2", "--no-charts", "--out", "partial");
    expect((sweepJson(dir, "partial") as { complete: boolean }).complete).toBe(false);
  });

  it("exits 2 on bad parameters, values the scenario rejects, and a warm-up longer than the run", async () => {
    const dir = tempDir();
    writeScenario(dir, "s.json", SLOW);
    const bad = async (...extra: string[]) => {
      const env = fakeEnv({ cwd: dir });
      expect(await run(env, "sweep", "s.json", "--no-charts", ...extra)).toBe(2);
      return env.err();
    };
    expect(await bad("--param", "groups.0.config.pullThresholdForQueue=10..5:1")).toMatch(/pullThresholdForQueue/);
    expect(await bad("--param", "groups.0.config.pullThresholdForQueue=0,10")).toMatch(/out of range \[1, 65535\]/);
    expect(await bad("--param", PARAM, "--warmup", "1h")).toMatch(/--warmup/);
    expect(await bad("--param", PARAM, "--shard", "4/3")).toMatch(/--shard/);
    expect(await bad()).toMatch(/--param/);
  });

  it("tied parameters vary together: consumeThreadMin,consumeThreadMax=2,8 runs 2 points with min = max", async () => {
    const dir = tempDir();
    writeScenario(dir, "s.json", SLOW);
    const env = fakeEnv({ cwd: dir });
    const tied = "groups.0.config.consumeThreadMin,groups.0.config.consumeThreadMax=2,8";
    expect(await run(env, "sweep", "s.json", "--param", tied, "--no-charts", "--out", "o")).toBe(0);
    const result = sweepJson(dir, "o") as { params: unknown[]; points: { params: Record<string, number> }[] };
    expect(result.params).toEqual([{ path: "groups.0.config.consumeThreadMin", tied: ["groups.0.config.consumeThreadMax"], spec: "2,8", values: [2, 8] }]);
    expect(result.points.map((p) => p.params)).toEqual([
      { "groups.0.config.consumeThreadMin": 2, "groups.0.config.consumeThreadMax": 2 },
      { "groups.0.config.consumeThreadMin": 8, "groups.0.config.consumeThreadMax": 8 },
    ]);
    expect(env.out()).toMatch(/^consumeThreadMin,consumeThreadMax {2}/);
  });

  it("sweeping consumeThreadMin past consumeThreadMax exits 2 and says how to tie the two", async () => {
    const dir = tempDir();
    writeScenario(dir, "s.json", SLOW); // consumeThreadMax 4
    const env = fakeEnv({ cwd: dir });
    expect(await run(env, "sweep", "s.json", "--param", "groups.0.config.consumeThreadMin=2,8", "--no-charts")).toBe(2);
    expect(env.err()).toContain("consumeThreadMin (8) is larger than consumeThreadMax (4); sweep both together: --param groups.0.config.consumeThreadMin,groups.0.config.consumeThreadMax=2,8");
  });
});
