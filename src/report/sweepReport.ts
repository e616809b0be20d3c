// SweepResult → sweep report files (name → content), nothing written: the CLI writes the map. Pure apart
// from reading chart.js's bundle once at import (assets.ts); no clock, no process, no files.
//
// Charts: a sweep over one parameter gets line charts (`sweep-<metric>.png`), one over two parameters
// heatmaps (`heatmap-<metric>.png`), for each metric of SWEEP_CHART_METRICS the result has, plus the
// objective's metric; sweeps over no parameter or more than two get none (the tables cover them).
import type { SweepResult } from "../sweep/types.ts";
import { CHART_JS_UMD_SOURCE } from "./assets.ts";
import { buildSweepChartData } from "./sweepChartData.ts";
import { renderSweepCsv } from "./sweepCsv.ts";
import { renderSweepHtml } from "./sweepHtml.ts";
import { renderSweepMarkdown } from "./sweepMarkdown.ts";
import { renderSweepChartPng } from "./sweepPng.ts";

export interface RenderSweepOptions {
  /** Render the PNG charts (the slow part, ~0.1 s each). sweep.html is written either way. */
  charts: boolean;
}

/**
 * Files of one sweep report, in a fixed order: sweep.json, sweep.csv, sweep.html, recommendation.md,
 * then (when asked) the PNGs in chart order. The same result gives byte-identical contents.
 */
export async function renderSweep(result: SweepResult, options: RenderSweepOptions): Promise<Map<string, Uint8Array | string>> {
  const files = new Map<string, Uint8Array | string>();
  const data = buildSweepChartData(result);
  files.set("sweep.json", JSON.stringify(result, null, 2) + "\n");
  files.set("sweep.csv", renderSweepCsv(result));
  files.set("sweep.html", renderSweepHtml(result, data, CHART_JS_UMD_SOURCE));
  files.set("recommendation.md", renderSweepMarkdown(result));
  if (options.charts) {
    const prefix = data.kind === "heatmap" ? "heatmap" : "sweep";
    for (const metric of data.chartMetrics) files.set(`${prefix}-${metric}.png`, await renderSweepChartPng(data, metric));
  }
  return files;
}
