// rmqsim fuzz through the in-process CLI (the fake environment runs jobs inline) and, for the worker
// count, through real worker threads.
import { copyFileSync, existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { fuzzCommand, type FuzzOptions } from "./fuzzCommand.ts";
import { threadExecutor } from "./fuzzExecutor.ts";
import type { FuzzResult } from "./fuzzOutput.ts";
import { fakeEnv, run, TINY_SCENARIO, writeScenario } from "./testEnv.ts";

const SCENARIOS = join(import.meta.dirname, "..", "..", "scenarios");
// The plant: crashes cause re-consumption (what was consumed after the last committed offset is
// consumed again by the next owner), so "no duplicates" fails under consumerCrash faults. Seed 4 draws
// a first failing run with four faults, which the shrinker reduces to one.
const PLANTED = ["--faults", "consumerCrash", "--expect", "messages.duplicates == 0", "--duration", "10s", "--seed", "4", "--runs", "4"];

describe("rmqsim fuzz: a planted failure", () => {
  it("finds it, shrinks it to at most two faults, and the written file fails under rmqsim check", async () => {
    const env = fakeEnv();
    copyFileSync(join(SCENARIOS, "consumer-crash.json"), join(env.cwd, "consumer-crash.json"));
    const code = await run(env, "fuzz", "consumer-crash.json", ...PLANTED, "--json");
    expect(env.err()).toBe("");
    expect(code).toBe(1);
    const result = JSON.parse(env.out()) as FuzzResult;
    expect(result.runs).toBe(4);
    const [s] = result.scenarios;
    expect(s!.failures.length).toBeGreaterThan(0);
    expect(s!.failures.every((f) => f.key === "expect: messages.duplicates == 0")).toBe(true);
    const shrunk = s!.shrunk!;
    expect(shrunk.run).toBe(s!.failures[0]!.run);
    expect(shrunk.key).toBe("expect: messages.duplicates == 0");
    expect(shrunk.faultsBefore).toBeGreaterThan(shrunk.faultsAfter);
    expect(shrunk.faultsAfter).toBeLessThanOrEqual(2);
    expect(shrunk.file).toBe(join("reports/fuzz", `fuzz-failure-${shrunk.seed}.json`));
    expect(shrunk.reproduce[0]).toBe(`rmqsim check ${shrunk.file} --check-every 1000ms`);
    expect(shrunk.reproduce[1]).toContain(`rmqsim fuzz consumer-crash.json --seed ${shrunk.seed} --runs 1 --faults consumerCrash --expect 'messages.duplicates == 0'`);

    const written = JSON.parse(readFileSync(join(env.cwd, shrunk.file), "utf8"));
    expect(written.faults.length).toBe(shrunk.faultsAfter);
    expect(written.expect).toEqual(["messages.duplicates == 0"]);
    const check = fakeEnv({ cwd: env.cwd });
    expect(await run(check, "check", shrunk.file, "--check-every", "1s")).toBe(1);
    expect(check.out()).toMatch(/✗ messages\.duplicates == 0/);
  }, 30_000);

  it("prints one line per failure, the shrink, both reproduce commands and a summary", async () => {
    const env = fakeEnv();
    copyFileSync(join(SCENARIOS, "consumer-crash.json"), join(env.cwd, "consumer-crash.json"));
    expect(await run(env, "fuzz", "consumer-crash.json", ...PLANTED, "--shrink-runs", "5")).toBe(1);
    const out = env.out();
    expect(out).toMatch(/^FAIL {2}consumer-crash {2}run \d+ \(seed \d+\) {2}expect: messages\.duplicates == 0/m);
    expect(out).toMatch(/shrunk run \d+ \(seed \d+\): \d+ fault\(s\) → \d+/);
    expect(out).toMatch(/reproduce: rmqsim check reports\/fuzz\/fuzz-failure-\d+\.json/);
    expect(out).toMatch(/fuzz: 4 run\(s\) of 1 scenario\(s\), \d+ failed/);
  }, 30_000);
});

describe("rmqsim fuzz: passing runs and bad input", () => {
  it("exits 0 when no run fails and writes nothing", async () => {
    const env = fakeEnv();
    writeScenario(env.cwd, "tiny.json", TINY_SCENARIO);
    expect(await run(env, "fuzz", "tiny.json", "--runs", "3", "--seed", "5", "--duration", "4s", "--faults", "pause,latency")).toBe(0);
    expect(env.out()).toMatch(/ok {4}tiny {2}3 run\(s\), 0 failed/);
    expect(existsSync(join(env.cwd, "reports/fuzz"))).toBe(false);
  });

  it.each([
    [["--faults", "meteorStrike"], /--faults: unknown fault kind "meteorStrike"/],
    [["--runs", "0"], /--runs: must be a whole number from 1/],
    [["--time-budget", "soon"], /--time-budget: "soon" is not a duration/],
    [["--seed", "-1"], /--seed: must be a whole number from 0 to 4294967295/],
    [["--expect", "messages.nothing > 0"], /tiny\.json: expect\.0/],
  ])("exits 2 on bad input: %j", async (args, message) => {
    const env = fakeEnv();
    writeScenario(env.cwd, "tiny.json", TINY_SCENARIO);
    expect(await run(env, "fuzz", "tiny.json", ...args)).toBe(2);
    expect(env.err()).toMatch(message);
  });
});

describe("rmqsim fuzz: --time-budget", () => {
  it("does runs 0…n−1 (as many as fit) with the same verdicts --runs n gives, at least one per scenario", async () => {
    const options = (extra: Partial<FuzzOptions>): FuzzOptions => ({
      targets: ["a.json", "b.json"], seed: "3", duration: "3s", faults: "consumerCrash,pause", workers: 2,
      expects: ["messages.duplicates == 0"], scenarioExpectations: false, json: true, shrinkRuns: "0", ...extra,
    });
    const outcome = async (extra: Partial<FuzzOptions>, nowMs?: () => number) => {
      const env = fakeEnv();
      writeScenario(env.cwd, "a.json", { ...TINY_SCENARIO, name: "a" });
      writeScenario(env.cwd, "b.json", { ...TINY_SCENARIO, name: "b" });
      await fuzzCommand(options(extra), env, nowMs ? { nowMs } : {});
      return JSON.parse(env.out()) as FuzzResult;
    };
    // A clock that moves 1 s per reading: the 8 s budget gives scenario a until 4 s, b until 8 s.
    let clockMs = 0;
    const budgeted = await outcome({ timeBudget: "8s" }, () => (clockMs += 1000));
    const [a, b] = budgeted.scenarios;
    expect(a!.runs).toBeGreaterThan(0);
    expect(b!.runs).toBeGreaterThan(0);
    const counted = await outcome({ runs: String(a!.runs) });
    expect(counted.scenarios[0]!.failures).toEqual(a!.failures);
  }, 30_000);
});

describe("rmqsim fuzz: worker threads", () => {
  it("gives the same runs, failures and shrunk scenario with 1 and 2 workers", async () => {
    const options = (workers: number): FuzzOptions => ({
      targets: ["tiny.json"], runs: "4", seed: "11", workers, duration: "6s", faults: "consumerCrash,brokerCrash,scale",
      expects: ["messages.duplicates == 0"], scenarioExpectations: false, json: true, shrinkRuns: "8", out: `out-${workers}`,
    });
    const results: FuzzResult[] = [];
    const files: string[] = [];
    for (const workers of [1, 2]) {
      const env = fakeEnv();
      writeScenario(env.cwd, "tiny.json", TINY_SCENARIO);
      expect(await fuzzCommand(options(workers), env, { executor: threadExecutor })).toBe(1);
      const r = JSON.parse(env.out()) as FuzzResult;
      results.push(r);
      files.push(readFileSync(join(env.cwd, r.scenarios[0]!.shrunk!.file), "utf8"));
    }
    const strip = (r: FuzzResult) => ({ ...r, wall: null, scenarios: r.scenarios.map((s) => ({ ...s, shrunk: { ...s.shrunk!, file: "", reproduce: [] } })) });
    expect(results[0]!.wall.workers).toBe(1);
    expect(results[1]!.wall.workers).toBe(2);
    expect(strip(results[1]!)).toEqual(strip(results[0]!));
    expect(files[1]).toBe(files[0]);
  }, 60_000);
});
