// Sweep chart data + metric → chart.js configuration, written once as plain browser JavaScript, like
// chartRuntime.ts: sweep.html inlines this source and the PNG renderer evaluates the same text, so a
// PNG and its interactive chart cannot drift apart. It builds on chartRuntime.ts's source (white
// background plugin, log ticks), which is evaluated and inlined with it. ES2017, no imports.
import type { ChartConfiguration } from "chart.js";
import type { MetricStats } from "../sweep/types.ts";
import { CHART_RUNTIME_JS } from "./chartRuntime.ts";
import type { SweepChartData } from "./sweepChartData.ts";
import { SWEEP_HEATMAP_RUNTIME_JS } from "./sweepHeatmapRuntime.ts";

export interface SweepChartView {
  /** true in the browser: responsive, tooltips, clickable legend; false for PNG (fixed size, no events). */
  interactive: boolean;
  fontFamily: string;
}

const SWEEP_COMMON_JS = String.raw`
var RMQ_SWEEP_STYLE = {
  mean: "#1f77b4", band: "rgba(31, 119, 180, 0.16)", whisker: "rgba(31, 119, 180, 0.75)", infeasible: "#9e9e9e",
  recommended: "#111111", runnerUp: "#e67e00", requirement: "#c62828"
};
// More swept values than this and the axis picks its own ticks instead of one per value.
var RMQ_SWEEP_TICKS_MAX = 16;

// Significant digits that read well at every magnitude: 3,812 · 41.2 · 3.43 · 0.125.
function rmqSweepDecimals(v) {
  var a = Math.abs(v);
  return a >= 100 ? 0 : a >= 10 ? 1 : a >= 1 ? 2 : 3;
}

// Fixed decimals, "," between thousands, no locale, never "-0".
function rmqSweepFixed(v, decimals) {
  if (typeof v !== "number" || !isFinite(v)) return "–";
  var s = v.toFixed(decimals);
  if (/^-0(\.0*)?$/.test(s)) s = s.slice(1);
  var parts = s.split(".");
  parts[0] = parts[0].replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  return parts.join(".");
}

function rmqSweepFormat(v) {
  var d = Number.isInteger(v) ? 0 : rmqSweepDecimals(v);
  // Below the last decimal shown is zero, not "0.000".
  return Math.abs(v) < 0.5 * Math.pow(10, -d) ? "0" : rmqSweepFixed(v, d);
}

// [mean, "± ci95"] with one number of decimals for both; no interval from a single run.
function rmqSweepMeanCiParts(s) {
  if (!s) return ["–", null];
  if (!(s.n > 1)) return [rmqSweepFormat(s.mean), null];
  var d = 0;
  if (!Number.isInteger(s.mean) || !Number.isInteger(s.ci95)) {
    // Enough decimals for the interval's first significant digit (12.70 ± 0.04, not 12.7 ± 0.0), at most 3.
    var ciDigits = s.ci95 > 0 ? -Math.floor(Math.log10(s.ci95)) : 0;
    d = Math.min(3, Math.max(rmqSweepDecimals(Math.max(Math.abs(s.mean), s.ci95)), ciDigits));
  }
  return [rmqSweepFixed(s.mean, d), "± " + rmqSweepFixed(s.ci95, d)];
}

function rmqSweepMeanCi(s, unit) {
  var parts = rmqSweepMeanCiParts(s);
  var text = parts[1] === null ? parts[0] : parts[0] + " " + parts[1];
  return s && unit ? text + " " + unit : text;
}

function rmqSweepFont(view, size, weight) {
  return { family: view.fontFamily, size: size, weight: weight || "normal" };
}

// Legend entries come from each dataset's rmqLegendItem, so a legend sample can differ from what the
// dataset draws (a line for the mean, a hollow circle for "misses a requirement").
function rmqSweepLegendLabels(chart) {
  var items = [];
  chart.data.datasets.forEach(function (d, i) {
    var k = d.rmqLegendItem;
    if (!k) return;
    items.push({ text: d.label, datasetIndex: i, hidden: !chart.isDatasetVisible(i), fontColor: "#222222",
      pointStyle: k.pointStyle || "rect", rotation: 0, fillStyle: k.fill, strokeStyle: k.stroke, lineWidth: k.width, lineDash: k.dash || [] });
  });
  return items;
}

function rmqSweepLegend(view, usePointStyle) {
  return {
    position: "bottom",
    labels: { font: rmqSweepFont(view, 12), color: "#222222", usePointStyle: usePointStyle, boxWidth: 26, boxHeight: 12,
      generateLabels: rmqSweepLegendLabels },
    onClick: function (e, item, legend) {
      var chart = legend.chart, i = item.datasetIndex;
      if (chart.data.datasets[i].rmqToggle === false) return;
      if (chart.isDatasetVisible(i)) chart.hide(i); else chart.show(i);
    }
  };
}

function rmqSweepVisible(chart, key) {
  var shown = false;
  chart.data.datasets.forEach(function (d, i) { if (d.rmqKey === key && chart.isDatasetVisible(i)) shown = true; });
  return shown;
}

// Tooltip lines for one point: the metric with its interval, the spread of the runs, the memory
// estimate, and whether the point meets the requirements.
function rmqSweepPointLines(data, metric, i) {
  var p = data.points[i], s = metric.stats[i], lines = [];
  lines.push(metric.label + ": " + rmqSweepMeanCi(s, metric.unit) + (s && s.n > 1 ? " (95 % CI)" : ""));
  if (s) lines.push("runs: " + s.n + ", min " + rmqSweepFormat(s.min) + ", max " + rmqSweepFormat(s.max));
  if (metric.key !== "memoryPerConsumerMiB" && p.memoryMiB) lines.push("memory per consumer: " + rmqSweepMeanCi(p.memoryMiB, "MiB"));
  if (i === data.recommended) lines.push("★ recommended");
  if (i === data.runnerUp) lines.push("runner-up");
  if (p.feasible) lines.push("meets every requirement");
  else p.failed.forEach(function (r) { lines.push("misses: " + r); });
  return lines;
}

function rmqSweepTooltip(data, metric, view, key) {
  return {
    enabled: view.interactive,
    filter: function (item) { return item.dataset.rmqKey === key; },
    callbacks: {
      title: function (items) { return items.length > 0 ? data.points[items[0].raw.rmqPoint].paramsText : ""; },
      label: function (item) { return rmqSweepPointLines(data, metric, item.raw.rmqPoint); }
    }
  };
}

function rmqSweepOptions(data, title, view, parts) {
  return {
    animation: false, responsive: view.interactive, maintainAspectRatio: false, devicePixelRatio: view.interactive ? undefined : 1,
    locale: "en-US", parsing: false, normalized: true,
    events: view.interactive ? ["mousemove", "mouseout", "click", "touchstart", "touchmove"] : [],
    interaction: parts.interaction,
    layout: { padding: parts.padding },
    scales: parts.scales,
    plugins: {
      title: { display: true, text: title, font: rmqSweepFont(view, 18, "bold"), color: "#111111", padding: { top: 6, bottom: 2 } },
      subtitle: { display: true, text: data.subtitle, font: rmqSweepFont(view, 12), color: "#555555", padding: { bottom: 8 } },
      legend: parts.legend,
      tooltip: parts.tooltip,
      decimation: { enabled: false }
    }
  };
}

// A label in a white box centred at (x, y), kept inside the chart area and moved away from the point
// (step: +1 down, -1 up) while it overlaps a box in "placed", which it is added to.
function rmqSweepTag(ctx, area, text, x, y, step, placed, color, family) {
  ctx.font = "bold 12px " + family;
  var w = ctx.measureText(text).width + 10, h = 19;
  var left = Math.min(Math.max(x - w / 2, area.left + 2), area.right - w - 2);
  var top = y - h / 2;
  var overlaps = function (b) { return left < b.left + b.w && b.left < left + w && top < b.top + b.h && b.top < top + h; };
  for (var k = 0; k < placed.length && placed.some(overlaps); k++) top += step * (h + 4);
  top = Math.min(Math.max(top, area.top + 2), area.bottom - h - 2);
  placed.push({ left: left, top: top, w: w, h: h });
  ctx.fillStyle = "rgba(255, 255, 255, 0.9)";
  ctx.fillRect(left, top, w, h);
  ctx.setLineDash([]);
  ctx.lineWidth = 1.5;
  ctx.strokeStyle = color;
  ctx.strokeRect(left + 0.5, top + 0.5, w - 1, h - 1);
  ctx.fillStyle = color;
  ctx.textAlign = "left";
  ctx.textBaseline = "middle";
  ctx.fillText(text, left + 5, top + h / 2 + 0.5);
}

function rmqSweepChartConfig(data, metricKey, view) {
  var metric = null;
  data.metrics.forEach(function (m) { if (m.key === metricKey) metric = m; });
  if (metric === null) throw new Error("the sweep has no metric " + metricKey);
  if (data.kind === "heatmap") return rmqSweepHeatmapConfig(data, metric, view);
  if (data.kind === "line") return rmqSweepLineConfig(data, metric, view);
  throw new Error("only sweeps over one or two parameters have charts");
}
`;

const SWEEP_LINE_JS = String.raw`
// The 95 % interval as a band between the points and as a whisker at each point (the band alone would
// suggest the metric between two swept values is known).
var rmqSweepBandPlugin = {
  id: "rmqSweepBand",
  beforeDatasetsDraw: function (chart) {
    var x = chart.scales.x, y = chart.scales.y, ctx = chart.ctx, area = chart.chartArea;
    chart.data.datasets.forEach(function (d, i) {
      if (!d.rmqBand || !chart.isDatasetVisible(i) || d.data.length === 0) return;
      ctx.save();
      ctx.beginPath();
      ctx.rect(area.left, area.top, area.right - area.left, area.bottom - area.top);
      ctx.clip();
      ctx.beginPath();
      d.data.forEach(function (p, j) {
        var px = x.getPixelForValue(p.x), py = y.getPixelForValue(p.hi);
        if (j === 0) ctx.moveTo(px, py); else ctx.lineTo(px, py);
      });
      for (var j = d.data.length - 1; j >= 0; j--) ctx.lineTo(x.getPixelForValue(d.data[j].x), y.getPixelForValue(d.data[j].lo));
      ctx.closePath();
      ctx.fillStyle = RMQ_SWEEP_STYLE.band;
      ctx.fill();
      ctx.strokeStyle = RMQ_SWEEP_STYLE.whisker;
      ctx.lineWidth = 1.5;
      d.data.forEach(function (p) {
        if (!(p.hi > p.lo)) return;
        var px = Math.round(x.getPixelForValue(p.x)) + 0.5, top = y.getPixelForValue(p.hi), bottom = y.getPixelForValue(p.lo);
        ctx.beginPath();
        ctx.moveTo(px, top); ctx.lineTo(px, bottom);
        ctx.moveTo(px - 5, top); ctx.lineTo(px + 5, top);
        ctx.moveTo(px - 5, bottom); ctx.lineTo(px + 5, bottom);
        ctx.stroke();
      });
      ctx.restore();
    });
  }
};

// Labels the recommended point above its ring and the runner-up below its diamond.
var rmqSweepTagPlugin = {
  id: "rmqSweepTags",
  afterDatasetsDraw: function (chart) {
    var ctx = chart.ctx, area = chart.chartArea, family = chart.options.plugins.title.font.family, placed = [];
    chart.data.datasets.forEach(function (d, i) {
      if (!d.rmqTag || !chart.isDatasetVisible(i)) return;
      var el = chart.getDatasetMeta(i).data[0];
      if (!el) return;
      var above = d.rmqTagAbove;
      if (above && el.y - 40 < area.top) above = false;
      if (!above && el.y + 40 > area.bottom) above = true;
      ctx.save();
      rmqSweepTag(ctx, area, d.rmqTag, el.x, el.y + (above ? -26 : 26), above ? -1 : 1, placed, d.borderColor, family);
      ctx.restore();
    });
  }
};

function rmqSweepXRange(axis) {
  var vs = axis.positions, lo = Math.min.apply(null, vs), hi = Math.max.apply(null, vs);
  var ticks = vs.length <= RMQ_SWEEP_TICKS_MAX ? vs.slice() : null;
  if (!axis.numeric) return { min: -0.5, max: vs.length - 0.5, ticks: ticks };
  if (axis.log) {
    var f = Math.pow(hi / lo, 0.05);
    return { min: lo / f, max: hi * f, ticks: ticks };
  }
  var pad = hi > lo ? (hi - lo) * 0.05 : Math.max(1, Math.abs(hi) * 0.1);
  return { min: lo - pad, max: hi + pad, ticks: ticks };
}

// A swept value is labelled as the scenario spells it (1000, not 1,000); other ticks as numbers.
function rmqSweepXTick(axis, v, ticksSet) {
  if (!axis.numeric) return Number.isInteger(v) && v >= 0 && v < axis.labels.length ? axis.labels[v] : "";
  var at = axis.positions.indexOf(v);
  if (at >= 0) return axis.labels[at];
  if (axis.log && !ticksSet) return rmqLogTick(v);
  return rmqSweepFormat(v);
}

function rmqSweepLineConfig(data, metric, view) {
  var st = RMQ_SWEEP_STYLE, axis = data.x, pts = data.points;
  var font = function (size, weight) { return rmqSweepFont(view, size, weight); };
  var mean = [], band = [], lo = Infinity, hi = -Infinity;
  pts.forEach(function (p, i) {
    var s = metric.stats[i];
    if (!s) return;
    mean.push({ x: p.x, y: s.mean, rmqPoint: i });
    band.push({ x: p.x, y: s.mean, lo: s.mean - s.ci95, hi: s.mean + s.ci95 });
    lo = Math.min(lo, s.mean - s.ci95);
    hi = Math.max(hi, s.mean + s.ci95);
  });
  metric.thresholds.forEach(function (t) { lo = Math.min(lo, t.value); hi = Math.max(hi, t.value); });
  var feasible = function (j) { return mean[j] !== undefined && pts[mean[j].rmqPoint].feasible; };
  var segmentOk = function (c) { return feasible(c.p0DataIndex) && feasible(c.p1DataIndex); };
  var range = rmqSweepXRange(axis);
  var datasets = [];
  if (data.seeds > 1) {
    datasets.push({ rmqKey: "ci", rmqBand: true, label: "95 % confidence interval of the mean (" + data.seeds + " seeds)", data: band,
      showLine: false, pointRadius: 0, pointHoverRadius: 0, pointHitRadius: 0, borderWidth: 0,
      rmqLegendItem: { pointStyle: "rect", fill: st.band, stroke: st.whisker, width: 1 } });
  }
  datasets.push({ rmqKey: "mean", label: "mean " + metric.label + (data.seeds > 1 ? " over " + data.seeds + " seeds" : ""), data: mean, order: 2,
    borderColor: st.mean, backgroundColor: st.mean, borderWidth: 2.5, tension: 0,
    pointRadius: 5, pointHoverRadius: 7, pointBorderWidth: 2, pointHitRadius: 10,
    pointBackgroundColor: mean.map(function (m, j) { return feasible(j) ? st.mean : "#ffffff"; }),
    pointBorderColor: mean.map(function (m, j) { return feasible(j) ? st.mean : st.infeasible; }),
    segment: {
      borderColor: function (c) { return segmentOk(c) ? undefined : st.infeasible; },
      borderDash: function (c) { return segmentOk(c) ? undefined : [6, 4]; }
    },
    rmqLegendItem: { pointStyle: "line", fill: st.mean, stroke: st.mean, width: 2.5 } });
  if (mean.some(function (m, j) { return !feasible(j); })) {
    datasets.push({ rmqKey: "infeasible", rmqToggle: false, label: "misses a requirement (hollow, grey)", data: [],
      rmqLegendItem: { pointStyle: "circle", fill: "#ffffff", stroke: st.infeasible, width: 2 } });
  }
  [["recommended", data.recommended, st.recommended, "circle", 12, true],
   ["runner-up", data.runnerUp, st.runnerUp, "rectRot", 11, false]].forEach(function (r) {
    var i = r[1];
    if (i === null || !metric.stats[i]) return;
    var p = pts[i];
    datasets.push({ rmqKey: r[0], label: r[0] + ": " + p.paramsText, data: [{ x: p.x, y: metric.stats[i].mean, rmqPoint: i }],
      order: r[0] === "recommended" ? 0 : 1, showLine: false, pointStyle: r[3], pointRadius: r[4], pointHoverRadius: r[4],
      pointBorderWidth: 3, pointHitRadius: 0, borderColor: r[2], backgroundColor: "rgba(0, 0, 0, 0)",
      rmqTag: r[0] + ": " + axis.labels[p.xi], rmqTagAbove: r[5],
      rmqLegendItem: { pointStyle: r[3], fill: "rgba(0, 0, 0, 0)", stroke: r[2], width: 3 } });
  });
  metric.thresholds.forEach(function (t, k) {
    datasets.push({ rmqKey: "threshold:" + k, label: t.text, data: [{ x: range.min, y: t.value }, { x: range.max, y: t.value }],
      order: 3, borderColor: st.requirement, backgroundColor: st.requirement, borderWidth: 1.5, borderDash: [8, 5],
      pointRadius: 0, pointHoverRadius: 0, pointHitRadius: 0,
      rmqLegendItem: { pointStyle: "line", fill: st.requirement, stroke: st.requirement, width: 2, dash: [6, 3] } });
  });

  var x = { type: axis.log ? "logarithmic" : "linear", min: range.min, max: range.max,
    title: { display: true, text: (axis.title || axis.path) + (axis.log ? " (log scale)" : ""), font: font(13) },
    ticks: { font: font(12), color: "#333333", maxRotation: 0,
      callback: function (v) { return rmqSweepXTick(axis, v, range.ticks !== null); } },
    grid: { color: "#e6e6e6" } };
  // Only when set: an explicit undefined would replace chart.js's default tick builder too.
  if (range.ticks !== null) x.afterBuildTicks = function (scale) { scale.ticks = range.ticks.map(function (v) { return { value: v }; }); };
  var yTitle = metric.label + (metric.unit ? " (" + metric.unit + ")" : "");
  var y = { type: "linear", beginAtZero: lo >= 0, title: { display: true, text: yTitle, font: font(13) },
    ticks: { font: font(12), color: "#333333" }, grid: { color: "#e6e6e6" } };
  if (isFinite(lo)) { y.suggestedMin = lo; y.suggestedMax = hi; }
  return {
    type: "line",
    data: { datasets: datasets },
    plugins: [rmqBackgroundPlugin, rmqSweepBandPlugin, rmqSweepTagPlugin],
    options: rmqSweepOptions(data, metric.label[0].toUpperCase() + metric.label.slice(1) + " vs " + axis.name, view, {
      interaction: { mode: "nearest", intersect: false, axis: "x" },
      padding: { left: 8, right: 16, top: 4, bottom: 4 },
      scales: { x: x, y: y },
      legend: rmqSweepLegend(view, true),
      tooltip: rmqSweepTooltip(data, metric, view, "mean")
    })
  };
}
`;

/** The sweep runtime's source: inline after CHART_RUNTIME_JS (it uses rmqBackgroundPlugin, rmqLogTick). */
export const SWEEP_CHART_RUNTIME_JS = SWEEP_COMMON_JS + SWEEP_LINE_JS + SWEEP_HEATMAP_RUNTIME_JS;

type SweepChartConfig = ChartConfiguration<"line", { x: number; y: number }[]>;

interface SweepChartRuntime {
  rmqSweepChartConfig(data: SweepChartData, metricKey: string, view: SweepChartView): SweepChartConfig;
  /** A number for people: "3,812", "41.2", "3.43", "0.125". */
  rmqSweepFormat(v: number): string;
  /** "3.43 ± 0.12 MiB"; no interval when n = 1; "–" for null. */
  rmqSweepMeanCi(s: MetricStats | null, unit: string): string;
  rmqSweepMeanCiParts(s: MetricStats | null): [string, string | null];
}

let runtime: SweepChartRuntime | undefined;

/** The runtime's functions for use in Node (evaluated once; pure functions of their arguments). */
export function sweepChartRuntime(): SweepChartRuntime {
  runtime ??= new Function(
    `${CHART_RUNTIME_JS}\n${SWEEP_CHART_RUNTIME_JS}\n` +
      "return { rmqSweepChartConfig: rmqSweepChartConfig, rmqSweepFormat: rmqSweepFormat, rmqSweepMeanCi: rmqSweepMeanCi, rmqSweepMeanCiParts: rmqSweepMeanCiParts };",
  )() as SweepChartRuntime;
  return runtime;
}
