// sweep.html in headless Chromium: every chart draws, nothing errors, nothing is fetched, hovering a
// point shows its interval, the metric selector redraws and the table sorts. Skipped without Chromium.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { Browser, Page } from "playwright-core";
import { hasChromium, inkedPixels, launchChromium } from "../../test/browser/chromium.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SweepResult } from "../sweep/types.ts";
import { renderSweep } from "./sweepReport.ts";
import { fakeSweep1d, fakeSweep2d } from "./sweepTestData.ts";

/** What the page exposes as window.rmqSweep, reduced to what the test reads. */
interface PageChart {
  data: { datasets: { rmqKey: string; label: string; data: unknown[] }[] };
  getDatasetMeta(i: number): { data: { x: number; y: number }[] };
  tooltip: { title: string[]; body: { lines: string[] }[] };
}
declare const window: { rmqSweep: { charts: Record<string, PageChart> } };
interface PageCanvas {
  width: number;
  height: number;
  getContext(kind: "2d"): { getImageData(x: number, y: number, w: number, h: number): { data: Uint8ClampedArray } };
}
interface PageRow { getAttribute(name: string): string | null }
// The lib is ES2022 without DOM types; these describe the little the page callbacks touch.
declare const document: {
  querySelectorAll(s: string): ArrayLike<PageRow>;
  getElementById(id: string): PageCanvas;
};

let browser: Browser | undefined;
let dir: string | undefined;

beforeAll(async () => {
  if (!hasChromium) return;
  dir = mkdtempSync(join(tmpdir(), "rmqsim-sweep-"));
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Opens the result's sweep.html, collecting console errors, page errors and network requests. */
async function open(result: SweepResult, name: string): Promise<{ page: Page; problems: string[] }> {
  const files = await renderSweep(result, { charts: false });
  const path = join(dir!, `${name}.html`);
  writeFileSync(path, files.get("sweep.html")!);
  const page = await browser!.newPage({ viewport: { width: 1280, height: 1000 } });
  const problems: string[] = [];
  page.on("console", (m) => { if (m.type() === "error") problems.push(`console: ${m.text()}`); });
  page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
  page.on("request", (r) => { if (!/^(file|data|blob):/.test(r.url())) problems.push(`network: ${r.url()}`); });
  await page.goto(pathToFileURL(path).href);
  await page.waitForFunction(() => window.rmqSweep !== undefined);
  return { page, problems };
}

const rowOrder = (page: Page) =>
  page.evaluate(() => Array.from(document.querySelectorAll("#rmq-points tbody tr")).map((r) => r.getAttribute("data-index")));

const test = hasChromium ? it : it.skip;
const note = hasChromium ? "" : " (install Debian's chromium to run)";

describe("sweep.html in Chromium", () => {
  test(`draws every 1-D chart without errors or network, with CI tooltips, a metric selector and sorting${note}`, async () => {
    const { page, problems } = await open(fakeSweep1d(), "one");
    const ids = ["chart-key-0", "chart-key-1", "chart-key-2", "chart-key-3", "chart-key-4", "chart-selected"];
    for (const id of ids) expect(await inkedPixels(page, id), id).toBeGreaterThan(5_000);

    // Hover the recommended point of the throughput chart: the tooltip gives its interval and memory.
    const canvas = page.locator("#chart-key-0");
    await canvas.scrollIntoViewIfNeeded();
    const at = await page.evaluate(() => {
      const chart = window.rmqSweep.charts["chart-key-0"]!;
      const i = chart.data.datasets.findIndex((d) => d.rmqKey === "recommended");
      return chart.getDatasetMeta(i).data[0]!;
    });
    const box = (await canvas.boundingBox())!;
    await page.mouse.move(box.x + at.x, box.y + at.y);
    const tooltip = await page.evaluate(() => window.rmqSweep.charts["chart-key-0"]!.tooltip);
    expect(tooltip.title).toEqual(["pullThresholdForQueue = 500"]);
    const lines = tooltip.body.flatMap((b) => b.lines);
    expect(lines[0]).toMatch(/^consumed throughput: 3,997 ± 86 msg\/s \(95 % CI\)$/);
    expect(lines).toContain("memory per consumer: 6.61 ± 0.24 MiB");
    expect(lines).toContain("★ recommended");

    await page.selectOption("#rmq-metric", "latency.endToEnd.p50Ms");
    const label = await page.evaluate(() => window.rmqSweep.charts["chart-selected"]!.data.datasets.find((d) => d.rmqKey === "mean")!.label);
    expect(label).toBe("mean end-to-end median latency over 3 seeds");

    // Column 3 is the memory estimate: ascending, then descending on a second click.
    const memoryHead = page.locator("#rmq-points thead th").nth(3);
    expect(await memoryHead.textContent()).toBe("memory per consumer (MiB)");
    await memoryHead.click();
    expect(await rowOrder(page)).toEqual(["0", "1", "2", "3", "4", "5"]);
    await memoryHead.click();
    expect(await rowOrder(page)).toEqual(["5", "4", "3", "2", "1", "0"]);
    expect(problems).toEqual([]);
    await page.close();
  });

  test(`draws every 2-D heatmap with one cell per point${note}`, async () => {
    const { page, problems } = await open(fakeSweep2d(), "two");
    for (const id of ["chart-key-0", "chart-key-1", "chart-key-2", "chart-key-3", "chart-key-4", "chart-selected"]) {
      expect(await inkedPixels(page, id), id).toBeGreaterThan(50_000);
    }
    const cells = await page.evaluate(() => window.rmqSweep.charts["chart-key-1"]!.data.datasets.find((d) => d.rmqKey === "cells")!.data.length);
    expect(cells).toBe(16);
    expect(problems).toEqual([]);
    await page.close();
  });
});
