// report.html of a run with replicas in headless Chromium: the broker-nodes chart draws without errors,
// names the state under the pointer in its tooltip, and a node's legend entry hides both its lines.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { Browser } from "playwright-core";
import { hasChromium, inkedPixels, launchChromium, SKIP_NOTE } from "./chromium.ts";
import { afterAll, describe, expect, it } from "vitest";
import { renderReport } from "../../src/report/renderReport.ts";
import { simulateBacklogWithNodes } from "../../src/report/testScenario.ts";

interface PageLegendItem { datasetIndex: number }
interface PageChart {
  data: { datasets: { rmqKey: string; rmqGroup?: string }[] };
  isDatasetVisible(i: number): boolean;
  scales: { y: { getLabelForValue(v: number): string; ticks: { label: string }[] } };
  options: { plugins: { tooltip: { callbacks: { label(item: object): string } } } };
  legend: { legendItems: PageLegendItem[]; options: { onClick(this: unknown, e: unknown, item: PageLegendItem, legend: unknown): void } };
}
declare const window: { rmqReport: { charts: Record<string, PageChart> } };

describe("report.html with broker nodes in Chromium", () => {
  let browser: Browser | undefined;
  let dir: string | undefined;
  afterAll(async () => {
    await browser?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const title = hasChromium ? "the nodes chart draws, labels its state axis and tooltips by state name, and a node's legend entry hides both its lines" : SKIP_NOTE;
  (hasChromium ? it : it.skip)(title, async () => {
    const files = await renderReport(simulateBacklogWithNodes(), { charts: false });
    dir = mkdtempSync(join(tmpdir(), "rmqsim-nodes-"));
    const htmlPath = join(dir, "report.html");
    writeFileSync(htmlPath, files.get("report.html")!);
    browser = await launchChromium();
    const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
    const problems: string[] = [];
    page.on("console", (m) => { if (m.type() === "error") problems.push(`console: ${m.text()}`); });
    page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
    await page.goto(pathToFileURL(htmlPath).href);
    await page.waitForFunction(() => window.rmqReport !== undefined);

    expect(await inkedPixels(page, "chart-nodes")).toBeGreaterThan(5_000);
    const ticks = await page.evaluate(() => window.rmqReport.charts.nodes!.scales.y.ticks.map((t) => t.label));
    expect(ticks).toEqual(["down", "slave", "master"]);
    // broker-a's state line (dataset 0) at its down point, 20 s: drawn at 0 − 0.03.
    const tooltip = await page.evaluate(() => {
      const chart = window.rmqReport.charts.nodes!;
      return chart.options.plugins.tooltip.callbacks.label({ dataset: chart.data.datasets[0], parsed: { y: -0.03 }, formattedValue: "-0.03" });
    });
    expect(tooltip).toBe("broker-a: down");

    const hidden = await page.evaluate(() => {
      const chart = window.rmqReport.charts.nodes!;
      chart.legend.options.onClick.call(chart.legend, null, chart.legend.legendItems[0]!, chart.legend);
      return chart.data.datasets.filter((_, i) => !chart.isDatasetVisible(i)).map((d) => d.rmqGroup ?? d.rmqKey);
    });
    expect(hidden).toEqual(["node:broker-a", "node:broker-a"]);
    expect(problems).toEqual([]);
  });
});
