// `rmqsim check` failures you can act on (issue 17): threshold, actual, when and where in the text and
// the JUnit XML, the failing runs' reports under --report-dir, direction-aware baselines, and refusing
// --update-baseline while a run fails. Engine inline (testEnv.ts), renderer faked.
import { existsSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { fakeEnv, run, tempDir, TINY_SCENARIO, writeScenario } from "./testEnv.ts";

/**
 * TINY_SCENARIO with evenly spaced arrivals and a listener that never returns within the run: 200
 * msg/s for 10 s, nothing consumed or committed, so the committed lag at t is exactly 200·t (2000 at
 * the last sample, 10 s), and the 2000 messages spread round-robin over 4 queues are all pulled and
 * cached — 500 per queue at 10 s (queue #0's last message arrives at 10 s itself and is not pulled
 * yet at that sample, so #1 is the first to hold 500).
 */
const STUCK = {
  ...TINY_SCENARIO,
  topics: [{ ...TINY_SCENARIO.topics[0], produce: { rate: 200, arrival: "uniform" } }],
  groups: [{ ...TINY_SCENARIO.groups[0], listener: { consumeTime: "1h" } }],
};

function stuckWith(expect: string[], name = "stuck"): Record<string, unknown> {
  return { ...STUCK, name, expect };
}

describe("check: a failed expectation says by how much, when and where", () => {
  it("prints threshold, actual, the deciding sample, the window and the worst queue", async () => {
    const dir = tempDir();
    writeScenario(dir, "s.json", stuckWith(["max(lag.committed) < 1500", "max(cache.countPerQueueMax, 2s..) < 400", "messages.lost == 0"]));
    const env = fakeEnv({ cwd: dir });
    expect(await run(env, "check", "s.json")).toBe(1);
    // 2000 against < 1500: over by 500, decided by the last sample (the lag only grows).
    expect(env.out()).toContain("      max(lag.committed) < 1500: actual 2000, threshold < 1500 (over by 500), at 10s, window 0s..10s\n");
    expect(env.out()).toContain("      max(cache.countPerQueueMax, 2s..) < 400: actual 500, threshold < 400 (over by 100), at 10s, window 2s..10s, queue TopicTest@broker-a#1, 500 cached\n");
    expect(env.out()).toContain("  reproduce: rmqsim run s.json --seed 1\n");
    expect(env.out()).not.toContain("messages.lost == 0:");
  });

  it("writes the same detail and the reproduce command into the JUnit failure, and clauses into --json", async () => {
    const dir = tempDir();
    writeScenario(dir, "s.json", stuckWith(["max(lag.committed) < 1500"]));
    expect(await run(fakeEnv({ cwd: dir }), "check", "s.json", "--junit", "junit.xml")).toBe(1);
    const xml = readFileSync(join(dir, "junit.xml"), "utf8");
    expect(xml).toContain('message="max(lag.committed) &lt; 1500: actual 2000, threshold &lt; 1500 (over by 500), at 10s, window 0s..10s"');
    expect(xml).toMatch(/<failure [^>]*>actual: max\(lag\.committed\) = 2000\nmax\(lag\.committed\) &lt; 1500: actual 2000[^\n]*\nreproduce: rmqsim run s\.json --seed 1<\/failure>/);
    const env = fakeEnv({ cwd: dir });
    await run(env, "check", "s.json", "--json");
    const [result] = JSON.parse(env.out());
    expect(result.expectations[0].clauses).toEqual([{
      text: "max(lag.committed) < 1500", ok: false, op: "<", unit: null, threshold: 1500, actual: 2000,
      series: "lag.committed", atUs: 10_000_000, windowUs: [0, 10_000_000], where: null,
    }]);
    expect(result.reproduce).toBe("rmqsim run s.json --seed 1");
  });

  it("an expectation whose window lies beyond the run is exit 2 before anything runs", async () => {
    const dir = tempDir();
    writeScenario(dir, "s.json", stuckWith(["mean(throughput.consumed, 90s..) > 1"]));
    const env = fakeEnv({ cwd: dir });
    expect(await run(env, "check", "s.json")).toBe(2);
    expect(env.err()).toContain('s.json: expect.0: "mean(throughput.consumed, 90s..) > 1": the window 90s.. of mean(throughput.consumed, …) starts after the run ends; the run lasts 10s (duration)');
    expect(env.out()).toBe("");
    // run --duration shortens the effective scenario: 20 s holds 90s.. no better.
    writeScenario(dir, "long.json", { ...stuckWith(["mean(throughput.consumed, 90s..) > 1"]), duration: "100s" });
    const short = fakeEnv({ cwd: dir });
    expect(await run(short, "run", "long.json", "--duration", "20s", "--out", "r")).toBe(2);
    expect(short.err()).toContain("the run lasts 20s (duration)");
  });
});

describe("check --report-dir", () => {
  it("keeps the failing runs' reports in <dir>/<scenario>.seed-<seed>/ and nothing for passing ones", async () => {
    const dir = tempDir();
    writeScenario(dir, "bad.json", stuckWith(["max(lag.committed) < 1500"], "bad"));
    writeScenario(dir, "good.json", stuckWith(["max(lag.committed) <= 2000"], "good"));
    const env = fakeEnv({ cwd: dir });
    expect(await run(env, "check", "bad.json", "good.json", "--report-dir", "out", "--seeds", "2")).toBe(1);
    expect(readdirSync(join(dir, "out")).sort()).toEqual(["bad.seed-1", "bad.seed-2"]);
    // The fake renderer's files: the same request `run` makes (charts on).
    expect(readdirSync(join(dir, "out", "bad.seed-1")).sort()).toEqual(["report.html", "run.json", "summary.json", "throughput.png"]);
    const summary = JSON.parse(readFileSync(join(dir, "out", "bad.seed-2", "summary.json"), "utf8"));
    expect([summary.seed, summary.expectations[0].ok]).toEqual([2, false]);
    expect(env.out()).toContain("  report: out/bad.seed-1/report.html\n");
  });

  it("--report-dir-all writes the passing runs' reports too; without --report-dir it is bad input", async () => {
    const dir = tempDir();
    writeScenario(dir, "good.json", stuckWith(["max(lag.committed) <= 2000"], "good"));
    expect(await run(fakeEnv({ cwd: dir }), "check", "good.json", "--report-dir", "out")).toBe(0);
    expect(existsSync(join(dir, "out"))).toBe(false);
    expect(await run(fakeEnv({ cwd: dir }), "check", "good.json", "--report-dir", "out", "--report-dir-all")).toBe(0);
    expect(readdirSync(join(dir, "out"))).toEqual(["good.seed-1"]);
    const env = fakeEnv({ cwd: dir });
    expect(await run(env, "check", "good.json", "--report-dir-all")).toBe(2);
    expect(env.err()).toContain("--report-dir-all: needs --report-dir <dir>");
  });
});

describe("check --baseline, direction-aware", () => {
  async function withBaseline(dir: string, edit: (s: Record<string, any>) => void): Promise<void> {
    writeScenario(dir, "s.json", stuckWith([]));
    expect(await run(fakeEnv({ cwd: dir }), "check", "s.json", "--baseline", "base", "--update-baseline")).toBe(0);
    const file = join(dir, "base", "stuck.seed-1.summary.json");
    const base = JSON.parse(readFileSync(file, "utf8"));
    edit(base);
    writeFileSync(file, JSON.stringify(base));
  }

  it("the run 10 % above a baseline's lag fails at 5 %; 10 % below it is improved and passes", async () => {
    // The run's lag.committed.max is 2000 (200 msg/s × 10 s). A baseline of 1818 makes the run +10.0 %
    // (worse: lag is better lower); one of 2222 makes it −10.0 % (better).
    const worse = tempDir();
    await withBaseline(worse, (b) => (b.lag.committed.max = 1818));
    const env = fakeEnv({ cwd: worse });
    expect(await run(env, "check", "s.json", "--baseline", "base")).toBe(1);
    expect(env.out()).toContain("✗ lag.committed.max 1818 → 2000 (+10.0%, lower is better, allowed ±5%)");
    const better = tempDir();
    await withBaseline(better, (b) => (b.lag.committed.max = 2222));
    const ok = fakeEnv({ cwd: better });
    expect(await run(ok, "check", "s.json", "--baseline", "base")).toBe(0);
    expect(ok.out()).toContain("improved: lag.committed.max 2222 → 2000 (-10.0%, lower is better, beyond ±5%); not a failure without --strict-baseline");
    expect(await run(fakeEnv({ cwd: better }), "check", "s.json", "--baseline", "base", "--strict-baseline")).toBe(1);
    expect(await run(fakeEnv({ cwd: better }), "check", "s.json", "--baseline", "base", "--tolerance-worse", "5%", "--tolerance-better", "50%", "--strict-baseline")).toBe(0);
  });

  it("prints what was compared, treats a figure the baseline lacks as new, and skips snapshots", async () => {
    const dir = tempDir();
    // The baseline predates a summary field, and its per-queue cache snapshot differs wildly.
    await withBaseline(dir, (b) => {
      delete b.lag.unpulled.max;
      b.perQueue[0].cached = 1;
    });
    const env = fakeEnv({ cwd: dir });
    expect(await run(env, "check", "s.json", "--baseline", "base")).toBe(0);
    expect(env.out()).toMatch(/baseline base\/stuck\.seed-1\.summary\.json: \d+ figures compared, \d+ skipped \(end-of-run snapshots\), 1 new \(not compared\)/);
    expect(env.out()).toContain("new, not compared: lag.unpulled.max");
  });

  it("--update-baseline is refused (exit 1, nothing written) while a run fails, unless --force", async () => {
    const dir = tempDir();
    writeScenario(dir, "s.json", stuckWith(["max(lag.committed) < 1500"]));
    const env = fakeEnv({ cwd: dir });
    expect(await run(env, "check", "s.json", "--baseline", "base", "--update-baseline")).toBe(1);
    expect(env.err()).toContain("rmqsim: not updating the baselines: 1 run fails (stuck (seed 1))");
    expect(existsSync(join(dir, "base", "stuck.seed-1.summary.json"))).toBe(false);
    const forced = fakeEnv({ cwd: dir });
    await run(forced, "check", "s.json", "--baseline", "base", "--update-baseline", "--force");
    expect(forced.out()).toMatch(/baseline written: base\/stuck\.seed-1\.summary\.json \(\d+ figures\) \(--force: this run fails, and was recorded anyway\)/);
    expect(existsSync(join(dir, "base", "stuck.seed-1.summary.json"))).toBe(true);
  });

  it("a bad --tolerance-worse is exit 2 naming the option", async () => {
    const dir = tempDir();
    writeScenario(dir, "s.json", stuckWith([]));
    const env = fakeEnv({ cwd: dir });
    expect(await run(env, "check", "s.json", "--baseline", "base", "--tolerance-worse", "lots")).toBe(2);
    expect(env.err()).toMatch(/--tolerance-worse: .*"lots" is not a tolerance/);
  });
});
