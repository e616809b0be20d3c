// report.html in headless Chromium: every chart draws, nothing errors, nothing is fetched from the
// network, the per-queue selector and the time range re-slice the charts, a consumer's legend entry
// hides it in every panel, and the ownership timeline has one bar per queue.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { Browser } from "playwright-core";
import { hasChromium, inkedPixels, launchChromium, SKIP_NOTE } from "./chromium.ts";
import { afterAll, describe, expect, it } from "vitest";
import { renderReport } from "../../src/report/renderReport.ts";
import { simulateBacklog } from "../../src/report/testScenario.ts";

const CHART_IDS = ["throughput", "lag", "cache", "flow-control", "latency", "consumers"];

/** What the page exposes as window.rmqReport, reduced to what the test reads. */
interface PageLegendItem { datasetIndex: number }
interface PageChart {
  data: { datasets: { rmqKey: string; rmqGroup?: string }[] };
  scales: { x: { min: number; max: number } };
  isDatasetVisible(i: number): boolean;
  legend: { legendItems: PageLegendItem[]; options: { onClick(this: unknown, e: unknown, item: PageLegendItem, legend: unknown): void } };
}
declare const window: { rmqReport: { charts: Record<string, PageChart> } };
// The lib is ES2022 without DOM types; this describes the little the page callbacks touch.
declare const document: { querySelectorAll(s: string): ArrayLike<{ getAttribute(name: string): string | null }> };

describe("report.html in Chromium", () => {
  let browser: Browser | undefined;
  let dir: string | undefined;
  afterAll(async () => {
    await browser?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const title = hasChromium
    ? "renders every chart without errors or network; the queue selector and time range re-slice the data; a consumer's legend entry hides all its panels; one ownership bar per queue"
    : SKIP_NOTE;
  (hasChromium ? it : it.skip)(title, async () => {
    const result = simulateBacklog();
    const files = await renderReport(result, { charts: false });
    dir = mkdtempSync(join(tmpdir(), "rmqsim-report-"));
    const htmlPath = join(dir, "report.html");
    writeFileSync(htmlPath, files.get("report.html")!);

    browser = await launchChromium();
    const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
    const problems: string[] = [];
    page.on("console", (m) => { if (m.type() === "error") problems.push(`console: ${m.text()}`); });
    page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
    page.on("request", (r) => { if (!/^(file|data|blob):/.test(r.url())) problems.push(`network: ${r.url()}`); });
    await page.goto(pathToFileURL(htmlPath).href);
    await page.waitForFunction(() => window.rmqReport !== undefined);

    expect(await page.evaluate(() => document.querySelectorAll("canvas").length)).toBe(CHART_IDS.length);
    for (const id of CHART_IDS) expect(await inkedPixels(page, `chart-${id}`), id).toBeGreaterThan(5_000);

    const queueKeys = () => page.evaluate(() =>
      window.rmqReport.charts.cache!.data.datasets.map((d) => d.rmqKey).filter((k) => k.startsWith("queue:")));
    expect(await queueKeys()).toHaveLength(4);
    await page.selectOption("#rmq-queue", "TopicTest@broker-a#2");
    expect(await queueKeys()).toEqual(["queue:TopicTest@broker-a#2"]);
    expect(await inkedPixels(page, "chart-cache")).toBeGreaterThan(5_000);

    await page.fill("#rmq-from", "10");
    await page.fill("#rmq-to", "30");
    await page.dispatchEvent("#rmq-to", "change");
    for (const id of CHART_IDS) {
      const x = await page.evaluate((chartId) => window.rmqReport.charts[chartId]!.scales.x, id);
      expect([x.min, x.max], id).toEqual([10, 30]);
      expect(await inkedPixels(page, `chart-${id}`), id).toBeGreaterThan(5_000);
    }
    expect(await page.textContent("#rmq-status")).toContain("10 – 30 s (21 points), queue TopicTest@broker-a#2");

    // Clicking a consumer's legend entry hides its line in all three panels, and nothing else.
    const firstConsumer = `consumer:${result.series.perConsumer[0]!.clientId}`;
    const hidden = await page.evaluate((group) => {
      const chart = window.rmqReport.charts.consumers!;
      const item = chart.legend.legendItems[0]!;
      chart.legend.options.onClick.call(chart.legend, null, item, chart.legend);
      return chart.data.datasets.filter((_, i) => !chart.isDatasetVisible(i)).map((d) => d.rmqGroup ?? d.rmqKey)
        .concat(chart.data.datasets.filter((d) => d.rmqGroup === group).length === 3 ? [] : ["not three series"]);
    }, firstConsumer);
    expect(hidden).toEqual([firstConsumer, firstConsumer, firstConsumer]);

    const bars = await page.evaluate(() => Array.from(document.querySelectorAll(".own-bar")).map((b) => b.getAttribute("data-queue")));
    expect(bars).toEqual(result.summary.perQueue.map((q) => `${q.group} ${q.topic}@${q.brokerName}#${q.queueId}`));
    const segments = await page.evaluate(() => Array.from(document.querySelectorAll(".own-seg")).map((s) => s.getAttribute("title")));
    expect(segments).toHaveLength(result.summary.perQueue.reduce((a, q) => a + q.ownerHistory.length, 0));
    expect(segments[0]).toMatch(/^\S+: [\d.]+ s – (end of run|[\d.]+ s) · \d+ duplicates$/);
    expect(problems).toEqual([]);
  });
});
