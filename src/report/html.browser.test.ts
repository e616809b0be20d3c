// report.html in headless Chromium (issue 17): a deliberately failing run opens with a FAIL banner that
// lists its failed expectations, each threshold is a line on its series' chart, dragging across a chart
// zooms every chart to that time range, and a "Why" link shows its interval highlighted. Skipped
// without Chromium.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hasChromium, launchChromium, SKIP_NOTE } from "../../test/browser/chromium.ts";
import { renderReport } from "./renderReport.ts";
import { simulateExplained } from "./testScenario.ts";

/** count-flow-control's shape, 20 s: 2 000 msg/s into 4 queues, 8 workers at 10 ms (800 msg/s). */
const FAILING = {
  name: "failing", seed: 1, phase: "aligned", duration: "20s",
  brokers: [{ name: "broker-a" }],
  topics: [{ name: "TopicTest", brokers: ["broker-a"], queuesPerBroker: 4, produce: { rate: 2000 } }],
  groups: [{ name: "G1", instances: 1, subscribe: { TopicTest: "*" }, config: { consumeThreadMin: 8, consumeThreadMax: 8 }, listener: { consumeTime: "10ms" } }],
  expect: [
    // Fails: 1 200 msg/s pile up, so the committed lag passes 1 000 within a second or two.
    "max(lag.committed) < 1000",
    // Fails: each cache fills in 1 000 ÷ 300 msg/s ≈ 3.3 s, so count flow control starts well before 10 s.
    "first(flowControl.count > 0) > 10s",
    // Holds.
    "messages.lost == 0",
  ],
};

interface PageChart {
  data: { datasets: { rmqKey: string; label: string; data: { x: number; y: number }[] }[] };
  scales: { x: { min: number; max: number } };
  chartArea: { left: number; right: number; top: number; bottom: number };
}
declare const window: { rmqReport: { charts: Record<string, PageChart>; view: { highlight: { fromSec: number; toSec: number } | null } } };
declare const document: { getElementById(id: string): { getBoundingClientRect(): { left: number; top: number }; scrollIntoView(): void } };

let browser: Browser | undefined;
let dir: string | undefined;
let page: Page | undefined;
const problems: string[] = [];

beforeAll(async () => {
  if (!hasChromium) return;
  const { result, why } = simulateExplained(FAILING);
  const files = await renderReport(result, { charts: false, why });
  dir = mkdtempSync(join(tmpdir(), "rmqsim-verdict-"));
  const path = join(dir, "report.html");
  writeFileSync(path, files.get("report.html")!);
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
  page.on("console", (m) => { if (m.type() === "error") problems.push(`console: ${m.text()}`); });
  page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
  page.on("request", (r) => { if (!/^(file|data|blob):/.test(r.url())) problems.push(`network: ${r.url()}`); });
  await page.goto(pathToFileURL(path).href);
  await page.waitForFunction(() => window.rmqReport !== undefined);
});

afterAll(async () => {
  await browser?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const test = hasChromium ? it : it.skip;
const name = (title: string) => (hasChromium ? title : `${title} (${SKIP_NOTE})`);

describe("report.html in Chromium: the verdict", () => {
  test(name("the banner says FAIL and lists exactly the failed expectations, each linked to its chart"), async () => {
    const banner = (await page!.textContent("#verdict"))!;
    expect(banner).toContain("FAIL — 2 of 3 expectation(s) failed");
    expect(banner).toContain("max(lag.committed) < 1000");
    expect(banner).toContain("first(flowControl.count > 0) > 10s");
    expect(banner).not.toContain("messages.lost");
    const targets = await page!.$$eval("#verdict a.rmq-goto", (links) => links.map((a) => a.getAttribute("data-target")));
    expect(targets).toEqual(["chart-lag", "chart-flow-control"]);
  });

  test(name("each threshold is a line on its series' chart: 1 000 on the lag axis, 10 s across the flow-control chart"), async () => {
    const lines = await page!.evaluate(() => {
      const find = (id: string) => window.rmqReport.charts[id]!.data.datasets.filter((d) => d.rmqKey.startsWith("expect:")).map((d) => ({ label: d.label, ys: d.data.map((p) => p.y) }));
      return { lag: find("lag"), flow: find("flow-control") };
    });
    expect(lines.lag).toEqual([{ label: "FAILED: max(lag.committed) < 1000", ys: [1000, 1000] }]);
    // A time threshold is drawn by a plugin across the plot; its dataset is the legend entry.
    expect(lines.flow).toEqual([{ label: "FAILED: first(flowControl.count > 0) > 10s", ys: [] }]);
  });

  test(name("clicking a failed expectation's link shows its chart's window with the deciding sample highlighted"), async () => {
    await page!.click("#verdict a.rmq-goto >> nth=1");
    const state = await page!.evaluate(() => ({ x: window.rmqReport.charts["flow-control"]!.scales.x, hl: window.rmqReport.view.highlight }));
    // first(…) found count flow control at about 3.3 s (the cache fill time): ±1 s around it is highlighted.
    expect(state.hl!.toSec - state.hl!.fromSec).toBeCloseTo(2, 3);
    expect((state.hl!.fromSec + state.hl!.toSec) / 2).toBeGreaterThan(2.5);
    expect((state.hl!.fromSec + state.hl!.toSec) / 2).toBeLessThan(5);
    await page!.click("#rmq-reset");
  });

  test(name("dragging across a chart zooms every chart to the dragged time range"), async () => {
    const box = await page!.evaluate(() => {
      document.getElementById("chart-lag").scrollIntoView();
      const chart = window.rmqReport.charts.lag!;
      const r = document.getElementById("chart-lag").getBoundingClientRect();
      return { left: r.left, top: r.top, area: chart.chartArea, x: chart.scales.x };
    });
    expect([box.x.min, box.x.max]).toEqual([0, 20]);
    // From a quarter to three quarters of the plot's width: 5 s to 15 s of the 0–20 s axis.
    const a = box.area;
    const y = box.top + (a.top + a.bottom) / 2;
    await page!.mouse.move(box.left + a.left + 0.25 * (a.right - a.left), y);
    await page!.mouse.down();
    await page!.mouse.move(box.left + a.left + 0.5 * (a.right - a.left), y, { steps: 4 });
    await page!.mouse.move(box.left + a.left + 0.75 * (a.right - a.left), y, { steps: 4 });
    await page!.mouse.up();
    for (const id of ["throughput", "lag", "flow-control"]) {
      const x = await page!.evaluate((chartId) => window.rmqReport.charts[chartId]!.scales.x, id);
      expect(x.min, id).toBeCloseTo(5, 0);
      expect(x.max, id).toBeCloseTo(15, 0);
    }
    await page!.dblclick("#chart-lag");
    const whole = await page!.evaluate(() => window.rmqReport.charts.lag!.scales.x);
    expect([whole.min, whole.max]).toEqual([0, 20]);
  });

  test(name("a Why link shows its interval, highlighted, and nothing errored or went to the network"), async () => {
    const link = page!.locator("a.why-link").first();
    const hlFrom = Number(await link.getAttribute("data-hl-from"));
    const hlTo = Number(await link.getAttribute("data-hl-to"));
    await link.click();
    const hl = await page!.evaluate(() => window.rmqReport.view.highlight);
    expect(hl).toEqual({ fromSec: hlFrom, toSec: hlTo });
    expect(await link.getAttribute("class")).toContain("active");
    expect(problems).toEqual([]);
  });
});
