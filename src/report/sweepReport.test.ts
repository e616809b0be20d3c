import { beforeAll, describe, expect, it } from "vitest";
import type { SweepResult } from "../sweep/types.ts";
import { CHART_JS_UMD_SOURCE } from "./assets.ts";
import { escapeHtml } from "./htmlSummary.ts";
import { PNG_HEIGHT, PNG_WIDTH } from "./png.ts";
import { buildSweepChartData } from "./sweepChartData.ts";
import { SWEEP_HEATMAP_PNG_HEIGHT } from "./sweepPng.ts";
import { renderSweep } from "./sweepReport.ts";
import { fakeSweep1d, fakeSweep2d, fakeSweepInfeasible, REQUIRE_MEMORY_TINY } from "./sweepTestData.ts";

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const TEXT_FILES = ["sweep.json", "sweep.csv", "sweep.html", "recommendation.md"];
const CHART_METRICS = [
  "throughput.consumedPerSec.mean",
  "memoryPerConsumerMiB",
  "heapEstimateMiB",
  "lag.committed.max",
  "latency.endToEnd.p99Ms",
  "flowControl.perSec",
];

type Files = Map<string, Uint8Array | string>;
let oneD: Files;
let twoD: Files;
let infeasible: Files;

beforeAll(async () => {
  [oneD, twoD, infeasible] = await Promise.all([
    renderSweep(fakeSweep1d(), { charts: true }),
    renderSweep(fakeSweep2d(), { charts: true }),
    renderSweep(fakeSweepInfeasible(), { charts: true }),
  ]);
});

function text(files: Files, name: string): string {
  const v = files.get(name);
  if (typeof v !== "string") throw new Error(`${name} is not text`);
  return v;
}

function expectIdentical(a: Files, b: Files): void {
  expect([...b.keys()]).toEqual([...a.keys()]);
  for (const [name, content] of a) {
    const again = b.get(name)!;
    if (typeof content === "string") expect(again, name).toBe(content);
    else expect(Buffer.compare(Buffer.from(content), Buffer.from(again as Uint8Array)), name).toBe(0);
  }
}

describe("renderSweep: determinism", () => {
  it("a freshly built, equal 1-D result gives byte-identical files, PNGs included", async () => {
    expectIdentical(oneD, await renderSweep(fakeSweep1d(), { charts: true }));
  });

  it("a freshly built, equal 2-D result gives byte-identical files, heatmaps included", async () => {
    expectIdentical(twoD, await renderSweep(fakeSweep2d(), { charts: true }));
  });

  it("a result with no feasible point renders identically twice", async () => {
    expectIdentical(infeasible, await renderSweep(fakeSweepInfeasible(), { charts: true }));
  });
});

describe("renderSweep: file sets", () => {
  it("a 1-D sweep gives the text files, then one line chart per key metric in a fixed order", () => {
    expect([...oneD.keys()]).toEqual([...TEXT_FILES, ...CHART_METRICS.map((m) => `sweep-${m}.png`)]);
  });

  it("a 2-D sweep gives the text files, then one heatmap per key metric", () => {
    expect([...twoD.keys()]).toEqual([...TEXT_FILES, ...CHART_METRICS.map((m) => `heatmap-${m}.png`)]);
  });

  it("without charts only the text files are produced", async () => {
    expect([...(await renderSweep(fakeSweep2d(), { charts: false })).keys()]).toEqual(TEXT_FILES);
  });

  it("a sweep over three parameters gets no charts but every text file", async () => {
    const base = fakeSweep1d();
    const params = [...base.params, { path: "a", spec: "1", values: [1] }, { path: "b", spec: "2", values: [2] }];
    const files = await renderSweep({ ...base, params }, { charts: true });
    expect([...files.keys()]).toEqual(TEXT_FILES);
    expect(text(files, "sweep.html")).toContain("Charts cover sweeps over one or two parameters");
  });

  it("sweep.json is the result, two-space indented, newline-terminated", () => {
    expect(text(oneD, "sweep.json")).toBe(JSON.stringify(fakeSweep1d(), null, 2) + "\n");
    expect(JSON.parse(text(twoD, "sweep.json"))).toEqual(fakeSweep2d());
  });
});

describe("renderSweep: PNGs", () => {
  function expectPng(png: Uint8Array, name: string, height: number): void {
    const b = Buffer.from(png);
    expect(b.subarray(0, 8).equals(PNG_SIGNATURE), name).toBe(true);
    // IHDR follows the signature: length, "IHDR", width, height (big-endian).
    expect(b.readUInt32BE(16), name).toBe(PNG_WIDTH);
    expect(b.readUInt32BE(20), name).toBe(height);
    expect(b.length, name).toBeGreaterThan(15_000);
  }

  it("line charts are 1000×500 and heatmaps 1000×640, all with real content", () => {
    for (const [name, v] of oneD) if (name.endsWith(".png")) expectPng(v as Uint8Array, name, PNG_HEIGHT);
    for (const [name, v] of twoD) if (name.endsWith(".png")) expectPng(v as Uint8Array, name, SWEEP_HEATMAP_PNG_HEIGHT);
  });

  it("the recommendation is drawn: the same sweep without one gives a different picture", async () => {
    const plain: SweepResult = { ...fakeSweep1d(), recommendation: null };
    const files = await renderSweep(plain, { charts: true });
    const name = "sweep-throughput.consumedPerSec.mean.png";
    expect(Buffer.compare(Buffer.from(files.get(name) as Uint8Array), Buffer.from(oneD.get(name) as Uint8Array))).not.toBe(0);
  });

  it("a sweep with no feasible point still charts every key metric", () => {
    expect([...infeasible.keys()].filter((n) => n.endsWith(".png"))).toHaveLength(CHART_METRICS.length);
  });
});

describe("renderSweep: sweep.html", () => {
  it("embeds the chart data, chart.js and both runtimes", () => {
    const html = text(oneD, "sweep.html");
    expect(html).toContain("Chart.js v4");
    expect(html).toContain("function rmqSweepChartConfig(");
    expect(html).toContain("function rmqChartConfig(");
    const json = html.split('<script type="application/json" id="rmq-sweep-data">')[1]!.split("</script>")[0]!;
    expect(JSON.parse(json)).toEqual(buildSweepChartData(fakeSweep1d()));
  });

  it("references nothing on the network: no http(s) outside chart.js's own comments, no remote src or href", () => {
    for (const files of [oneD, twoD, infeasible]) {
      const html = text(files, "sweep.html");
      expect(html).not.toMatch(/<(script|link|img|iframe)\b[^>]*\b(src|href)\s*=/i);
      expect(html).not.toMatch(/@import|url\(\s*["']?(https?:)?\/\//i);
      expect(html.replace(CHART_JS_UMD_SOURCE, "")).not.toMatch(/https?:/i);
    }
  });

  it("shows the recommendation, its reason and the memory estimate of every point", () => {
    const html = text(oneD, "sweep.html");
    const result = fakeSweep1d();
    expect(html).toContain("pullThresholdForQueue = <strong>500</strong>");
    expect(html).toContain(`Why: ${escapeHtml(result.recommendation!.reason)}`);
    expect(html).toContain("memory per consumer (MiB)");
    expect(html).toContain("6.61 ± 0.24");
    expect(html.match(/<tr data-index=/g)).toHaveLength(result.points.length);
  });

  it("says no recommendation, and which requirement nothing met, when no point qualifies", () => {
    const html = text(infeasible, "sweep.html");
    expect(html).toContain("No recommendation");
    expect(html).toContain(`No point meets <code>${REQUIRE_MEMORY_TINY.replace("<", "&lt;")}</code>`);
    expect(html).not.toContain('class="recommended"');
  });

  it("escapes </script in embedded data: every script element closes where it should", async () => {
    const hostile: SweepResult = { ...fakeSweep1d(), scenario: "evil </script><script>alert(1)</script>" };
    const html = text(await renderSweep(hostile, { charts: false }), "sweep.html");
    expect(html.match(/<script\b/gi)).toHaveLength(5);
    expect(html.match(/<\/script/gi)).toHaveLength(5);
  });
});

describe("renderSweep: missing values", () => {
  it("a point whose runs all failed (null means after a JSON round trip) shows as missing, not as zero", async () => {
    const base = fakeSweep1d();
    const empty = { mean: NaN, ci95: NaN, n: 0, min: NaN, max: NaN };
    const broken = base.points.map((p, i) =>
      i === 0 ? { ...p, stats: Object.fromEntries(Object.keys(p.stats).map((k) => [k, empty])), feasible: false } : p,
    );
    const result = JSON.parse(JSON.stringify({ ...base, points: broken })) as SweepResult;
    const files = await renderSweep(result, { charts: true });
    const row = text(files, "sweep.csv").split("\n")[1]!.split(",");
    expect(row.slice(1, 4)).toEqual(["", "", "0"]);
    expect(text(files, "recommendation.md")).toContain("| 50 | – | – | – | – | – | no: misses");
    const data = buildSweepChartData(result);
    expect(data.metrics.every((m) => m.stats[0] === null)).toBe(true);
    expect(data.points[0]!.memoryMiB).toBeNull();
  });
});

