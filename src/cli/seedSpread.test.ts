// check --seeds N prints, per scenario, the range each timing-dependent figure takes over the seeds.
import { describe, expect, it } from "vitest";
import type { Summary } from "../metrics/summary.ts";
import { formatSeedSpread } from "./seedSpread.ts";

/** A summary carrying only the figures the spread reads. */
function summary(duplicates: number, orphan: number, p99: number): Summary {
  return {
    messages: { duplicates, lost: 0 }, orphanQueueSeconds: orphan, lag: { committed: { max: 100 } },
    latency: { endToEnd: { p99Ms: p99 } },
  } as unknown as Summary;
}

describe("formatSeedSpread", () => {
  it("gives min–max per figure, a single value when every seed agrees, and skips scenarios run once", () => {
    const out = formatSeedSpread([
      { name: "a", summary: summary(12, 105, 50.25) },
      { name: "a", summary: summary(40, 145, 50.25) },
      { name: "a", summary: null },
      { name: "b", summary: summary(1, 0, 1) },
    ]);
    expect(out).toBe("spread  a over 2 seeds: duplicates 12–40, lost 0, orphanQueueSeconds 105–145, lag.committed.max 100, latency.endToEnd.p99Ms 50.3\n");
  });
});
