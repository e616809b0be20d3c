import { describe, expect, it } from "vitest";
import type { SweepResult } from "../sweep/types.ts";
import { renderSweepCsv } from "./sweepCsv.ts";
import { fakeSweep1d, fakeSweep2d, fakeSweepCategorical, fakeSweepInfeasible } from "./sweepTestData.ts";

// SWEEP_METRICS order (src/sweep/metrics.ts).
const METRICS = [
  "throughput.consumedPerSec.mean", "throughput.consumedPerSec.min", "lag.committed.mean", "lag.committed.max",
  "lag.unpulled.max", "cache.countPerQueueMax", "cache.bytesPerQueueMax", "cache.bytesPerConsumerMax",
  "memoryPerConsumerMiB", "heapEstimateMiB", "latency.endToEnd.p99Ms", "latency.endToEnd.p50Ms", "flowControl.perSec",
  "messages.lost", "messages.duplicates",
];
const PATH = "groups.G1.config.pullThresholdForQueue";

function parse(csv: string): string[][] {
  expect(csv.endsWith("\n")).toBe(true);
  return csv.trimEnd().split("\n").map((l) => l.split(","));
}

describe("renderSweepCsv", () => {
  it("has the parameters, mean/ci95/n per metric, feasible and recommended as columns", () => {
    const [header] = parse(renderSweepCsv(fakeSweep1d()));
    expect(header).toEqual([PATH, ...METRICS.flatMap((m) => [`${m}.mean`, `${m}.ci95`, `${m}.n`]), "feasible", "recommended"]);
  });

  it("writes one row per point, in grid order, with locale-free numbers", () => {
    const result = fakeSweep1d();
    const [header, ...rows] = parse(renderSweepCsv(result));
    expect(rows.map((r) => r[0])).toEqual(["50", "100", "200", "500", "1000", "2000"]);
    for (const r of rows) {
      expect(r).toHaveLength(header!.length);
      for (const c of r.slice(1, -2)) expect(c).toMatch(/^-?\d+(\.\d{1,3})?$/);
    }
    const at500 = rows[3]!;
    const col = (name: string) => at500[header!.indexOf(name)];
    expect(col("throughput.consumedPerSec.mean.mean")).toBe(String(Math.round(result.points[3]!.stats["throughput.consumedPerSec.mean"]!.mean * 1000) / 1000));
    expect(col("memoryPerConsumerMiB.n")).toBe("3");
    expect(rows.map((r) => r.slice(-2).join(" "))).toEqual([
      "false false", "false false", "false false", "true true", "true false", "false false",
    ]);
  });

  it("gives a 2-D sweep one column per parameter, first parameter slowest", () => {
    const [header, ...rows] = parse(renderSweepCsv(fakeSweep2d()));
    expect(header!.slice(0, 2)).toEqual([PATH, "groups.G1.config.consumeThreadMin"]);
    expect(rows.slice(0, 5).map((r) => r.slice(0, 2).join("×"))).toEqual(["100×4", "100×8", "100×16", "100×20", "200×4"]);
    expect(rows.filter((r) => r.at(-1) === "true")).toHaveLength(1);
  });

  it("marks no row recommended when nothing is feasible", () => {
    const rows = parse(renderSweepCsv(fakeSweepInfeasible())).slice(1);
    expect(rows.every((r) => r.slice(-2).join(" ") === "false false")).toBe(true);
  });

  it("quotes text values that need it and leaves a missing metric's cells empty", () => {
    const base = fakeSweepCategorical();
    const path = base.params[0]!.path;
    const points = base.points.map((p, i) => (i === 0 ? { ...p, params: { [path]: 'A,"B"' }, stats: {} } : p));
    const result: SweepResult = { ...base, points };
    const lines = renderSweepCsv(result).split("\n");
    expect(lines[1]).toBe(`"A,""B""",${",".repeat(METRICS.length * 3 - 1)},true,true`);
    expect(lines[2]!.startsWith("AVG_BY_CIRCLE,")).toBe(true);
  });
});
