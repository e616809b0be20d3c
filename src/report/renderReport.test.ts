import { beforeAll, describe, expect, it } from "vitest";
import { SERIES_COLUMNS } from "../scenario/vocabulary.ts";
import type { RunResult } from "../run/simulate.ts";
import { PNG_HEIGHT, PNG_WIDTH, pngFontFamily } from "./png.ts";
import { renderReport } from "./renderReport.ts";
import { simulateBacklog } from "./testScenario.ts";

const PNG_FILES = ["throughput.png", "lag.png", "cache.png", "flow-control.png", "latency.png", "consumers.png"];
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

let result: RunResult;
let first: Map<string, Buffer | string>;

beforeAll(async () => {
  result = simulateBacklog();
  first = await renderReport(result, { charts: true });
});

function text(files: Map<string, Buffer | string>, name: string): string {
  const v = files.get(name);
  if (typeof v !== "string") throw new Error(`${name} is not text`);
  return v;
}

describe("renderReport: determinism", () => {
  it("rendering the same result twice gives byte-identical files", async () => {
    const second = await renderReport(result, { charts: true });
    expect([...second.keys()]).toEqual([...first.keys()]);
    for (const [name, content] of first) {
      const again = second.get(name)!;
      if (Buffer.isBuffer(content)) expect(Buffer.compare(content, again as Buffer), name).toBe(0);
      else expect(again, name).toBe(content);
    }
  });

  it("lists the files in a fixed order, PNGs only when charts are asked for", async () => {
    expect([...first.keys()]).toEqual(["summary.json", "timeseries.csv", "report.html", ...PNG_FILES]);
    const lean = await renderReport(result, { charts: false, traceJsonl: "{}\n", runJson: { command: "run" } });
    expect([...lean.keys()]).toEqual(["summary.json", "timeseries.csv", "report.html", "trace.jsonl", "run.json"]);
    expect(lean.get("run.json")).toBe('{\n  "command": "run"\n}\n');
  });
});

describe("renderReport: files", () => {
  it("summary.json is the summary, two-space indented, newline-terminated", () => {
    expect(text(first, "summary.json")).toBe(JSON.stringify(result.summary, null, 2) + "\n");
  });

  it("timeseries.csv has the series columns, one per queue and consumer, and one row per sample", () => {
    const lines = text(first, "timeseries.csv").trimEnd().split("\n");
    const header = lines[0]!.split(",");
    expect(header).toEqual([
      ...SERIES_COLUMNS,
      "cached:TopicTest@broker-a#0", "cached:TopicTest@broker-a#1", "cached:TopicTest@broker-a#2", "cached:TopicTest@broker-a#3",
      ...result.series.perConsumer.map((c) => `cachedBytes:${c.clientId}`),
      ...result.series.perConsumer.map((c) => `queues:${c.clientId}`),
      ...result.series.perConsumer.map((c) => `poolBusy:${c.clientId}`),
    ]);
    expect(lines.length - 1).toBe(result.series.columns.tSec.length);
    for (const line of lines.slice(1)) {
      const cells = line.split(",");
      expect(cells.length).toBe(header.length);
      for (const c of cells) expect(c).toMatch(/^-?\d+(\.\d{1,3})?$/);
    }
  });

  it("every PNG is a 1000×500 image with real content", () => {
    for (const name of PNG_FILES) {
      const png = first.get(name) as Buffer;
      expect(png.subarray(0, 8).equals(PNG_SIGNATURE), name).toBe(true);
      // IHDR follows the signature: length, "IHDR", width, height (big-endian).
      expect(png.readUInt32BE(16), name).toBe(PNG_WIDTH);
      expect(png.readUInt32BE(20), name).toBe(PNG_HEIGHT);
      expect(png.length, name).toBeGreaterThan(20_000);
    }
  });

  it("markers change the picture: a fault marker is drawn", async () => {
    const without = await renderReport({ ...result, markers: [] }, { charts: true });
    expect(Buffer.compare(without.get("throughput.png") as Buffer, first.get("throughput.png") as Buffer)).not.toBe(0);
  });

  it("a known font family is installed, so chart text renders (apt-get install fonts-dejavu-core otherwise)", () => {
    expect(pngFontFamily()).not.toBeNull();
  });
});

describe("renderReport: report.html", () => {
  it("embeds the data, chart.js and the scenario, with no network references", () => {
    const html = text(first, "report.html");
    expect(html).toContain('<script type="application/json" id="rmq-data">');
    expect(html).toContain("Chart.js v4");
    expect(html).toContain("&quot;pullThresholdForQueue&quot;: 200");
    expect(html).not.toMatch(/<(script|link|img|iframe)\b[^>]*\b(src|href)\s*=\s*["']?(https?:)?\/\//i);
    expect(html).not.toMatch(/@import|url\(\s*["']?(https?:)?\/\//i);
  });

  it("has an Ownership section with one owner-history bar per queue, and no Faults section for a run without faults", () => {
    const html = text(first, "report.html");
    expect(html).toContain('<h2 id="ownership">Ownership</h2>');
    expect(html.match(/<div class="own-bar"/g)!.length).toBe(result.summary.perQueue.length);
    const intervals = result.summary.perQueue.reduce((a, q) => a + q.ownerHistory.length, 0);
    expect(html.match(/<span class="own-seg"/g)!.length).toBe(intervals);
    expect(result.summary.faults).toEqual([]);
    expect(html).not.toContain("<h2>Faults</h2>");
  });

  it("escapes </script inside embedded data: every script element closes where it should", () => {
    const html = text(first, "report.html");
    const opened = html.match(/<script\b/gi)!.length;
    expect(opened).toBe(4);
    expect(html.match(/<\/script/gi)!.length).toBe(opened);
    const json = html.split('<script type="application/json" id="rmq-data">')[1]!.split("</script>")[0]!;
    const data = JSON.parse(json) as { charts: { markers: { label: string }[]; tSec: number[] } };
    expect(data.charts.markers.at(-1)!.label).toBe("broker-a </script> partitioned");
    expect(data.charts.tSec.length).toBe(result.series.columns.tSec.length);
  });
});
