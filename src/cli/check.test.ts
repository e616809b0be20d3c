// `rmqsim check` and `rmqsim compare` through the CLI entry, with the engine inline. The mutants
// (a flow-control comparison turned from > into >=, a run that leaks state into the next) are
// injected through simulate's `configure` hook, as a test build of the model would be.
import { readFileSync, writeFileSync, mkdirSync, copyFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { simulate } from "../run/simulate.ts";
import { LATER_REASON } from "../client/trace.ts";
import type { Cluster } from "../model/Cluster.ts";
import type { SimulateFn } from "./computeRun.ts";
import { fakeEnv, run, tempDir, TINY_SCENARIO, writeScenario } from "./testEnv.ts";

const SCENARIOS = join(import.meta.dirname, "../../scenarios");

/** The tiny scenario with expectations; `fail` adds one that cannot hold. */
function tinyWith(expect: string[]): Record<string, unknown> {
  return { ...TINY_SCENARIO, expect };
}

/**
 * The regression of the brief: `cachedCount >= pullThresholdForQueue` instead of `>` in
 * PullMessageService#pullMessage. Every incarnation the scenario starts exists when configure runs
 * (count-flow-control.json restarts nobody), so patching them all patches every pull.
 */
function flowControlGte(cl: Cluster): void {
  for (const c of cl.consumers) {
    const pull = c.pull;
    const original = pull.pullMessage.bind(pull);
    pull.pullMessage = (pr) => {
      if (!pr.pq.dropped && c.state === "RUNNING" && !c.paused && pr.pq.msgCount === c.config.pullThresholdForQueue) {
        pr.pq.lastPullTimestampUs = cl.sched.nowUs;
        return pull.executePullRequestLater(pr, 50, LATER_REASON.flowControl);
      }
      return original(pr);
    };
  }
}

describe("rmqsim check", () => {

  it("checks every 10 s of virtual time by default, or every duration / 2000 for a long run; --check-every overrides", async () => {
    const dir = tempDir();
    writeScenario(dir, "short.json", { ...TINY_SCENARIO, name: "short", duration: "30s" });
    writeScenario(dir, "long.json", { ...TINY_SCENARIO, name: "long", duration: "10h" });
    const seen: Record<string, number | undefined> = {};
    const spy: SimulateFn = (scenario, options) => {
      seen[(scenario as { name: string }).name] = options?.checkEveryUs;
      return simulate(scenario, { ...options, durationUs: 1_000_000, checkEveryUs: undefined });
    };
    expect(await run(fakeEnv({ cwd: dir, simulate: spy }), "check", "short.json", "long.json")).toBe(0);
    expect(seen).toEqual({ short: 10_000_000, long: 18_000_000 }); // 10 h / 2000 = 18 s
    expect(await run(fakeEnv({ cwd: dir, simulate: spy }), "check", "long.json", "--check-every", "1s")).toBe(0);
    expect(seen.long).toBe(1_000_000);
  });
  it("passes (exit 0) and prints one line per expectation with the actual figures", async () => {
    const dir = tempDir();
    writeScenario(dir, "a.json", tinyWith(["messages.lost == 0", "pulls.found > 0"]));
    const env = fakeEnv({ cwd: dir });
    expect(await run(env, "check", "a.json")).toBe(0);
    expect(env.out()).toContain("PASS  tiny (seed 1)");
    expect(env.out()).toMatch(/✓ messages\.lost == 0 {3}\[messages\.lost = 0\]/);
    expect(env.out()).toMatch(/^1 passed, 0 failed$/m);
  });

  it("fails (exit 1) on a failing expectation and prints the command that reproduces it", async () => {
    const dir = tempDir();
    writeScenario(dir, "a.json", tinyWith(["messages.produced < 10"]));
    const env = fakeEnv({ cwd: dir });
    expect(await run(env, "check", "a.json", "--seeds", "2")).toBe(1);
    expect(env.out()).toContain("✗ messages.produced < 10");
    expect(env.out()).toContain("reproduce: rmqsim run a.json --seed 1");
    expect(env.out()).toContain("reproduce: rmqsim run a.json --seed 2");
    expect(env.out()).toMatch(/^0 passed, 2 failed$/m);
  });

  it("exits 2 on bad input before running anything", async () => {
    const dir = tempDir();
    writeScenario(dir, "bad.json", { ...TINY_SCENARIO, expect: ["messages.lots == 0"] });
    const env = fakeEnv({ cwd: dir });
    expect(await run(env, "check", "bad.json")).toBe(2);
    expect(env.err()).toMatch(/bad\.json: expect\.0: unknown name "messages\.lots"/);
    expect(await run(fakeEnv({ cwd: dir }), "check", "missing.json")).toBe(2);
    expect(await run(fakeEnv({ cwd: dir }), "check", "bad.json", "--seeds", "0")).toBe(2);
  });

  it("writes JUnit XML with one testcase per expectation, failures marked", async () => {
    const dir = tempDir();
    writeScenario(dir, "a.json", tinyWith(["messages.lost == 0", "messages.produced < 10"]));
    const env = fakeEnv({ cwd: dir });
    // Into a folder that does not exist yet, as the README's `--junit reports/junit.xml` in a fresh clone.
    expect(await run(env, "check", "a.json", "--junit", "reports/ci/junit.xml")).toBe(1);
    const xml = readFileSync(join(dir, "reports/ci/junit.xml"), "utf8");
    expect(xml).toMatch(/^<\?xml version="1\.0" encoding="UTF-8"\?>/);
    const cases = [...xml.matchAll(/<testcase [^>]*name="([^"]*)"[^>]*?(\/>|>([\s\S]*?)<\/testcase>)/g)];
    expect(cases.map((c) => c[1])).toEqual(["messages.lost == 0", "messages.produced &lt; 10"]);
    expect(cases[0]![2]).toBe("/>");
    expect(cases[1]![3]).toContain("<failure");
    expect(xml).toMatch(/<testsuites [^>]*tests="2"[^>]*failures="1"/);
  });

  it("detects drift from a baseline and passes within tolerance", async () => {
    const dir = tempDir();
    writeScenario(dir, "a.json", tinyWith([]));
    expect(await run(fakeEnv({ cwd: dir }), "check", "a.json", "--baseline", "base", "--update-baseline")).toBe(0);
    const file = join(dir, "base", "tiny.seed-1.summary.json");
    expect(await run(fakeEnv({ cwd: dir }), "check", "a.json", "--baseline", "base")).toBe(0);
    // Doctor the baseline: produced 10 % higher than the run will give.
    const base = JSON.parse(readFileSync(file, "utf8"));
    const produced = base.messages.produced as number;
    base.messages.produced = Math.round(produced * 1.1);
    writeFileSync(file, JSON.stringify(base));
    const env = fakeEnv({ cwd: dir });
    expect(await run(env, "check", "a.json", "--baseline", "base")).toBe(1);
    expect(env.out()).toMatch(new RegExp(`messages\\.produced\\s+${Math.round(produced * 1.1)} → ${produced}`));
    expect(await run(fakeEnv({ cwd: dir }), "check", "a.json", "--baseline", "base", "--tolerance-for", "messages.produced=15%")).toBe(0);
  });

  it("--determinism catches a run that leaks state into the next one", async () => {
    const dir = tempDir();
    writeScenario(dir, "a.json", tinyWith([]));
    let runs = 0;
    // A global counter read by the model: the second run of the same scenario differs.
    const leaky: SimulateFn = (s, o) => simulate(s, { ...o, configure: (cl) => void (cl.listeners.behaviour[0]!.failureProbability = runs++ % 2 === 0 ? 0 : 0.01) });
    const env = fakeEnv({ cwd: dir, simulate: leaky });
    expect(await run(env, "check", "a.json", "--determinism")).toBe(1);
    expect(env.out()).toMatch(/✗ not deterministic: trace [0-9a-f]{16} then [0-9a-f]{16}/);
    const honest = fakeEnv({ cwd: dir });
    expect(await run(honest, "check", "a.json", "--determinism")).toBe(0);
    expect(honest.out()).toMatch(/✓ deterministic: trace [0-9a-f]{16} twice/);
  });

  it("turns red when the count flow-control comparison regresses from > to >=", async () => {
    // count-flow-control.json pins cache.countPerQueueMax == 1032: a pull is still allowed at exactly
    // 1000 cached (strict >), adding one 32-message batch. With >= the cache stops at 999 + 32.
    const dir = tempDir();
    copyFileSync(join(SCENARIOS, "count-flow-control.json"), join(dir, "cfc.json"));
    const good = fakeEnv({ cwd: dir });
    expect(await run(good, "check", "cfc.json", "--workers", "1")).toBe(0);
    const mutant = fakeEnv({ cwd: dir, simulate: (s, o) => simulate(s, { ...o, configure: flowControlGte }) });
    expect(await run(mutant, "check", "cfc.json", "--workers", "1")).toBe(1);
    expect(mutant.out()).toContain("✗ cache.countPerQueueMax == 1032   [cache.countPerQueueMax = 1031]");
  });

  it("gives the same results with 1 and 2 workers", async () => {
    const dir = tempDir();
    for (const seed of [1, 2, 3]) writeScenario(dir, `s${seed}.json`, { ...tinyWith(["pulls.found > 0"]), name: `tiny${seed}`, seed });
    const one = fakeEnv({ cwd: dir });
    const two = fakeEnv({ cwd: dir });
    await run(one, "check", ".", "--workers", "1", "--json");
    await run(two, "check", ".", "--workers", "2", "--json");
    expect(two.out()).toBe(one.out());
    expect(JSON.parse(one.out())).toHaveLength(3);
  });
});

describe("rmqsim compare", () => {
  it("exits 0 for equal reports and 1 with a readable diff for drifted ones", async () => {
    const dir = tempDir();
    const summary = simulate(TINY_SCENARIO).summary;
    mkdirSync(join(dir, "a"));
    writeFileSync(join(dir, "a", "summary.json"), JSON.stringify(summary));
    writeFileSync(join(dir, "b.json"), JSON.stringify({ ...summary, lag: { ...summary.lag, committed: { final: 5000, max: 9000 } } }));
    expect(await run(fakeEnv({ cwd: dir }), "compare", "a", "a/summary.json")).toBe(0);
    const env = fakeEnv({ cwd: dir });
    expect(await run(env, "compare", "a", "b.json")).toBe(1);
    expect(env.out()).toMatch(/lag\.committed\.max\s+\d+ → 9000/);
    expect(await run(fakeEnv({ cwd: dir }), "compare", "a", "nope")).toBe(2);
  });
});
