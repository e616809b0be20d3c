// Renders one sweep chart to a PNG with chart.js on @napi-rs/canvas, through png.ts's setup (registered
// chart.js components, the font lookup): no animation, device pixel ratio 1, a fixed font, so the same
// data gives the same bytes on one machine's fonts.
import { createCanvas } from "@napi-rs/canvas";
import { Chart } from "chart.js";
import { PNG_HEIGHT, PNG_WIDTH, pngFontFamily } from "./png.ts";
import type { SweepChartData } from "./sweepChartData.ts";
import { sweepChartRuntime, type SweepChartView } from "./sweepChartRuntime.ts";

/** Heatmaps are taller than line charts: a grid with four rows needs room for two lines per cell. */
export const SWEEP_HEATMAP_PNG_HEIGHT = 640;

export async function renderSweepChartPng(data: SweepChartData, metricKey: string): Promise<Buffer> {
  const view: SweepChartView = { interactive: false, fontFamily: pngFontFamily() ?? "sans-serif" };
  const config = sweepChartRuntime().rmqSweepChartConfig(data, metricKey, view);
  const canvas = createCanvas(PNG_WIDTH, data.kind === "heatmap" ? SWEEP_HEATMAP_PNG_HEIGHT : PNG_HEIGHT);
  // chart.js takes any object with getContext("2d"); in Node it uses its BasicPlatform (no DOM).
  const chart = new Chart(canvas as unknown as ConstructorParameters<typeof Chart>[0], config);
  try {
    return await canvas.encode("png");
  } finally {
    chart.destroy();
  }
}
