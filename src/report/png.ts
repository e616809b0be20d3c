// Renders one chart spec to a PNG with chart.js on @napi-rs/canvas. No animation, no resize, a fixed
// device pixel ratio and a fixed font: the same spec gives the same bytes (on one machine's fonts).
import { createCanvas, GlobalFonts } from "@napi-rs/canvas";
import {
  Chart,
  Decimation,
  Legend,
  LinearScale,
  LineController,
  LineElement,
  LogarithmicScale,
  PointElement,
  SubTitle,
  Title,
} from "chart.js";
import { chartRuntime, type ChartView } from "./chartRuntime.ts";
import type { ChartData, ChartSpec } from "./chartSpecs.ts";

export const PNG_WIDTH = 1000;
export const PNG_HEIGHT = 500;
/** Queues (or consumers) named in the legend before "… N more": a 500 px chart has room for about three legend rows. */
const PNG_LEGEND_QUEUES_MAX = 8;

// Registration is idempotent; the tooltip plugin is left out because a PNG has no pointer.
Chart.register(LineController, LineElement, PointElement, LinearScale, LogarithmicScale, Title, SubTitle, Legend, Decimation);

// @napi-rs/canvas sees the system's fonts (it ships none). DejaVu Sans comes with fonts-dejavu-core on
// Debian/Ubuntu; the fallbacks cover other distributions. "sans-serif" alone may resolve to nothing.
const FONT_CANDIDATES = ["DejaVu Sans", "Liberation Sans", "Noto Sans", "Arial", "Helvetica"];

/** The font family the PNGs use, or null when the system has none we know (text would not render). */
export function pngFontFamily(): string | null {
  return FONT_CANDIDATES.find((f) => GlobalFonts.has(f)) ?? null;
}

export async function renderChartPng(data: ChartData, spec: ChartSpec): Promise<Buffer> {
  const last = data.tSec.length > 0 ? data.tSec[data.tSec.length - 1]! : 1;
  const view: ChartView = {
    fromSec: 0,
    toSec: last,
    queue: null,
    interactive: false,
    fontFamily: pngFontFamily() ?? "sans-serif",
    legendQueuesMax: PNG_LEGEND_QUEUES_MAX,
  };
  const config = chartRuntime().rmqChartConfig(data, spec, view);
  const canvas = createCanvas(PNG_WIDTH, PNG_HEIGHT);
  // chart.js takes any object with getContext("2d"); in Node it uses its BasicPlatform (no DOM).
  const chart = new Chart(canvas as unknown as ConstructorParameters<typeof Chart>[0], config);
  try {
    return await canvas.encode("png");
  } finally {
    chart.destroy();
  }
}
