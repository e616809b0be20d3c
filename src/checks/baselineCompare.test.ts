// Direction-aware baseline comparison (issue 17) on a real summary shape; every verdict below is worked
// out in the comments from the figures set by hand.
import { describe, expect, it } from "vitest";
import { emptySummary, type Summary } from "../metrics/summary.ts";
import type { Tolerance } from "./baseline.ts";
import { compareBaseline, formatBaseline, type BaselineOptions } from "./baselineCompare.ts";
import { directionOf, rulePathMatches, snapshotRuleOf } from "./baselineRules.ts";

const pct = (p: number): Tolerance => ({ kind: "relative", fraction: p / 100 });
const AT5: BaselineOptions = { worse: pct(5), better: pct(5) };

function base(): Summary {
  const s = emptySummary();
  s.scenario = "tiny";
  s.seed = 1;
  s.messages.produced = 10_000;
  s.messages.consumed = 9_000;
  s.throughput.consumedPerSec = { mean: 3_000, max: 3_400 };
  s.lag.committed = { final: 900, max: 40_000 };
  s.latency.endToEnd = { count: 9_000, meanMs: 20, p50Ms: 12.5, p90Ms: 60, p99Ms: 120, maxMs: 400 };
  s.perQueue = [0, 1].map((queueId) => ({
    group: "G1", topic: "T", brokerName: "b0", queueId, owner: "c1", minOffset: 0, maxOffset: 5_000,
    committedOffset: 4_500, nextOffset: 4_600, cached: 100, orphanSeconds: 0, ownerHistory: [], orderly: null,
  }));
  return s;
}

function edited(edit: (s: Summary) => void): Summary {
  const s = structuredClone(base());
  edit(s);
  return s;
}

describe("figure directions", () => {
  it("throughput is better higher, lag / latency / losses lower, counts neither", () => {
    expect(directionOf(["throughput", "consumedPerSec", "mean"])?.direction).toBe("higher");
    expect(directionOf(["lag", "committed", "max"])?.direction).toBe("lower");
    expect(directionOf(["latency", "endToEnd", "p99Ms"])?.direction).toBe("lower");
    expect(directionOf(["latency", "endToEnd", "count"])?.direction).toBe("neutral");
    expect(directionOf(["groups", "0", "instances", "1", "lost"])?.direction).toBe("lower");
    expect(directionOf(["messages", "consumed"])).toBeNull(); // not listed: neutral
  });

  it("a leading ** matches any number of leading segments, * exactly one", () => {
    expect(rulePathMatches("**.lost", ["messages", "lost"])).toBe(true);
    expect(rulePathMatches("**.lost", ["lost"])).toBe(true);
    expect(rulePathMatches("perQueue.*.cached", ["perQueue", "3", "cached"])).toBe(true);
    expect(rulePathMatches("perQueue.*.cached", ["perQueue", "cached"])).toBe(false);
    expect(snapshotRuleOf(["perQueue", "12", "cached"])?.why).toMatch(/last instant/);
    expect(snapshotRuleOf(["perConsumer", "1", "heapEstimateMiB"])?.why).toMatch(/last instant/);
    expect(snapshotRuleOf(["cache", "heapEstimateMiB"])).toBeNull(); // the run's peak: compared, lower is better
    expect(directionOf(["cache", "heapEstimateMiB"])?.direction).toBe("lower");
  });
});

describe("compareBaseline", () => {
  it("+10 % throughput is improved (no failure) at ±5 %; −10 % fails", () => {
    // 3000 → 3300 is +10 %, beyond the better-direction 5 %: improved. 3000 → 2700 is −10 %: worse.
    const up = compareBaseline(base(), edited((s) => (s.throughput.consumedPerSec.mean = 3_300)), AT5);
    expect(up.failures).toEqual([]);
    expect(up.improved.map((f) => [f.path, f.kind])).toEqual([["throughput.consumedPerSec.mean", "better"]]);
    const down = compareBaseline(base(), edited((s) => (s.throughput.consumedPerSec.mean = 2_700)), AT5);
    expect(down.failures.map((f) => [f.path, f.kind])).toEqual([["throughput.consumedPerSec.mean", "worse"]]);
    expect(down.improved).toEqual([]);
  });

  it("--strict-baseline fails an improvement too; --tolerance-better 50% absorbs it", () => {
    const up = edited((s) => (s.throughput.consumedPerSec.mean = 3_300));
    expect(compareBaseline(base(), up, { ...AT5, strict: true }).failures.map((f) => f.kind)).toEqual(["better"]);
    const wide = compareBaseline(base(), up, { worse: pct(5), better: pct(50) });
    expect([wide.failures, wide.improved]).toEqual([[], []]);
  });

  it("lag is better lower: +10 % fails, −10 % is improved", () => {
    // 40000 → 44000 (+10 %) worse; 40000 → 36000 (−10 %) better.
    expect(compareBaseline(base(), edited((s) => (s.lag.committed.max = 44_000)), AT5).failures.map((f) => f.kind)).toEqual(["worse"]);
    const better = compareBaseline(base(), edited((s) => (s.lag.committed.max = 36_000)), AT5);
    expect([better.failures.length, better.improved.map((f) => f.path)]).toEqual([0, ["lag.committed.max"]]);
  });

  it("a neutral count fails beyond the worse tolerance in either direction", () => {
    // messages.consumed 9000 → 9900 (+10 %) and → 8100 (−10 %): both beyond ±5 %.
    for (const v of [9_900, 8_100]) {
      expect(compareBaseline(base(), edited((s) => (s.messages.consumed = v)), AT5).failures.map((f) => [f.path, f.kind])).toEqual([["messages.consumed", "changed"]]);
    }
    // 9000 → 9400 is +4.4 %: within.
    expect(compareBaseline(base(), edited((s) => (s.messages.consumed = 9_400)), AT5).failures).toEqual([]);
  });

  it("skips end-of-run snapshots and compares a final lag within the tolerance of the run's peak", () => {
    // perQueue.*.cached 100 → 900: skipped. lag.committed.final 900 → 2500 is +178 %, but 1600 is within
    // 5 % of the baseline's lag.committed.max (40000 × 0.05 = 2000); 900 → 3000 (+2100) is not.
    const noisy = compareBaseline(base(), edited((s) => {
      s.perQueue[0]!.cached = 900;
      s.lag.committed.final = 2_500;
    }), AT5);
    expect(noisy.failures).toEqual([]);
    expect(noisy.skipped.map((k) => k.path)).toContain("perQueue.0.cached");
    const far = compareBaseline(base(), edited((s) => (s.lag.committed.final = 3_000)), AT5);
    expect(far.failures.map((f) => [f.path, f.allowed])).toEqual([["lag.committed.final", "±2000 (5% of the baseline's lag.committed.max)"]]);
  });

  it("a --tolerance-for naming a snapshot figure compares it after all", () => {
    const cur = edited((s) => (s.perQueue[0]!.cached = 900));
    const r = compareBaseline(base(), cur, { ...AT5, overrides: { "perQueue.*.cached": pct(10) } });
    expect(r.failures.map((f) => f.path)).toEqual(["perQueue.0.cached"]);
  });

  it("a figure new in the run is new, not compared; one gone from it fails", () => {
    const cur = edited((s) => void ((s as unknown as Record<string, unknown>).heapEstimateMiB = 12.5));
    const r = compareBaseline(base(), cur, AT5);
    expect([r.added, r.failures]).toEqual([["heapEstimateMiB"], []]);
    const gone = compareBaseline(cur, base(), AT5);
    expect(gone.failures.map((f) => [f.path, f.kind])).toEqual([["heapEstimateMiB", "missing"]]);
  });

  it("counts what was compared and names the worst drift", () => {
    // p99 120 → 123 (+2.5 %, half the allowance) and lag max 40000 → 41600 (+4 %, 80 %): lag is worst.
    const r = compareBaseline(base(), edited((s) => {
      s.latency.endToEnd.p99Ms = 123;
      s.lag.committed.max = 41_600;
    }), AT5);
    expect(r.failures).toEqual([]);
    expect(r.worst?.path).toBe("lag.committed.max");
    // 2 queues × (cached, nextOffset, committedOffset) + messages.inFlight + messages.cached skipped (no
    // groups, no consumers in this summary).
    expect(r.skipped.length).toBe(8);
    const text = formatBaseline(r, "base/tiny.seed-1.summary.json");
    expect(text).toContain(`${r.compared} figures compared, 8 skipped (end-of-run snapshots), 0 new (not compared)`);
    expect(text).toContain("worst drift: lag.committed.max 40000 → 41600 (+4.0%, lower is better, allowed ±5%)");
  });
});
