// RunResult → report files (name → content), nothing written: the CLI writes the map to reports/<name>/.
// Pure apart from reading chart.js's bundle once at import (assets.ts); no clock, no process, no files.
import type { ExplainedRun } from "../explain/explain.ts";
import type { RunResult } from "../run/simulate.ts";
import { CHART_JS_UMD_SOURCE } from "./assets.ts";
import { buildChartData } from "./chartSpecs.ts";
import { renderTimeSeriesCsv } from "./csv.ts";
import { renderHtml } from "./html.ts";
import { renderChartPng } from "./png.ts";

export interface RenderReportOptions {
  /** Render the PNG charts (the slow part, ~0.1 s each). report.html is written either way. */
  charts: boolean;
  /** Captured trace, one JSON record a line; written as trace.jsonl when given. */
  traceJsonl?: string;
  /** Run metadata from the CLI (command, options, versions); written as run.json when given. */
  runJson?: object;
  /** The explainer's account of this run (computed while it ran): report.html's "Why" section, and why.json. */
  why?: ExplainedRun;
}

/**
 * Files of one report, in a fixed order: summary.json, why.json (when `why` is given: `rmqsim explain
 * --json`'s answer for the same run), timeseries.csv, report.html, then (when asked)
 * throughput.png, lag.png, cache.png, flow-control.png, latency.png, consumers.png, then trace.jsonl and run.json when
 * given. The same result and options give byte-identical contents.
 */
export async function renderReport(result: RunResult, options: RenderReportOptions): Promise<Map<string, Buffer | string>> {
  const files = new Map<string, Buffer | string>();
  const chartData = buildChartData(result);
  files.set("summary.json", JSON.stringify(result.summary, null, 2) + "\n");
  if (options.why !== undefined) files.set("why.json", JSON.stringify(options.why.explanation, null, 2) + "\n");
  files.set("timeseries.csv", renderTimeSeriesCsv(result.series));
  files.set("report.html", renderHtml(result, chartData, CHART_JS_UMD_SOURCE, options.why));
  if (options.charts) {
    for (const spec of chartData.charts) files.set(`${spec.id}.png`, await renderChartPng(chartData, spec));
  }
  if (options.traceJsonl !== undefined) files.set("trace.jsonl", options.traceJsonl);
  if (options.runJson !== undefined) files.set("run.json", JSON.stringify(options.runJson, null, 2) + "\n");
  return files;
}
