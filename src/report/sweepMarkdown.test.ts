import { describe, expect, it } from "vitest";
import type { SweepResult } from "../sweep/types.ts";
import { renderSweepMarkdown } from "./sweepMarkdown.ts";
import { fakeSweep1d, fakeSweep2d, fakeSweepCategorical, fakeSweepInfeasible, REQUIRE_MEMORY_TINY, REQUIRE_P99 } from "./sweepTestData.ts";

describe("renderSweepMarkdown", () => {
  it("names the scenario, what was swept and the requirements with how many points met them", () => {
    const md = renderSweepMarkdown(fakeSweep1d());
    expect(md.startsWith("# Sweep: backlog-drain\n")).toBe(true);
    expect(md).toContain("Swept `groups.G1.config.pullThresholdForQueue` over 50, 100, 200, 500, 1000, 2000");
    expect(md).toContain("6 points × 3 runs (seeds 42–44)");
    expect(md).toContain(`| \`${REQUIRE_P99}\` | 2 of 6 |`);
  });

  it("gives the recommended value, the sweep's reason and the runner-up", () => {
    const result = fakeSweep1d();
    const md = renderSweepMarkdown(result);
    expect(md).toContain("## Recommendation: pullThresholdForQueue = 500");
    expect(md).toContain("- `groups.G1.config.pullThresholdForQueue = 500`");
    expect(md).toContain(`Why: ${result.recommendation!.reason}`);
    expect(md).toContain("Runner-up: pullThresholdForQueue = 1000");
    expect(md).toContain("| memory per consumer (MiB) | 6.61 ± 0.24 | 13.1 ± 0.1 |");
  });

  it("tabulates every point with throughput, memory, p99, lag and feasibility", () => {
    const md = renderSweepMarkdown(fakeSweep1d());
    const table = md.split("## All points\n\n")[1]!.split("\n\n")[0]!.split("\n");
    expect(table[0]).toBe("| pullThresholdForQueue | throughput (msg/s) | memory / consumer (MiB) | heap estimate / consumer (MiB) | p99 latency (ms) | peak committed lag (msg) | feasible |");
    expect(table).toHaveLength(2 + 6);
    expect(table[5]).toMatch(/^\| \*\*500\*\* \(recommended\) \| 3,997 ± 86 \| 6\.61 ± 0\.24 \| .* \| yes \|$/);
    // Heap estimate at 500: 4 queues × cachedPerQueue messages × 2 360 B + the bodies (4 KiB each), so
    // (2 360 + 4 096) / 4 096 × memory: 6.61 MiB of bodies → about 10.4 MiB.
    expect(table[5]).toMatch(/^\| \*\*500\*\* \(recommended\) \| [^|]+ \| [^|]+ \| 10\.4 ± /);
    expect(table[7]).toContain(`| no: misses \`${REQUIRE_P99}\` |`);
    expect(md).toContain("## How to read this");
  });

  it("names every parameter of a 2-D recommendation", () => {
    const md = renderSweepMarkdown(fakeSweep2d());
    expect(md).toContain("## Recommendation: pullThresholdForQueue = 100, consumeThreadMin = 20");
    expect(md).toContain("- `groups.G1.config.consumeThreadMin = 20`");
  });

  it("says which requirement nothing met, and the closest point, when there is no recommendation", () => {
    const md = renderSweepMarkdown(fakeSweepInfeasible());
    expect(md).toContain("## No recommendation");
    expect(md).toContain(`No point meets \`${REQUIRE_MEMORY_TINY}\`. The closest is 1.03 ± 0.04 MiB at pullThresholdForQueue = 50.`);
    expect(md).not.toContain("(recommended)");
  });

  it("says the requirements never hold together when each one holds somewhere", () => {
    const base = fakeSweep1d();
    const points = base.points.map((p) => ({ ...p, feasible: false }));
    const result: SweepResult = { ...base, points, recommendation: { ...base.recommendation!, point: null, runnerUp: null, reason: "" } };
    expect(renderSweepMarkdown(result)).toContain("Each requirement is met by some point, but no point meets all of them together");
  });

  it("gives no intervals for a single seed and says why", () => {
    const md = renderSweepMarkdown(fakeSweepCategorical());
    expect(md).toContain("| AVG_BY_CIRCLE (runner-up) | 3,990 |");
    expect(md).toContain("Each point ran once, so no confidence interval can be given");
    expect(md).not.toContain("±");
  });
});
