// The heatmap half of the sweep chart runtime (see sweepChartRuntime.ts, which joins the two). chart.js
// has no heatmap type, so this is a line chart with no lines: one invisible point per cell gives the
// axes, the tooltips and the legend, and a plugin paints the cells. Plain ES2017 browser JavaScript.
export const SWEEP_HEATMAP_RUNTIME_JS = String.raw`
// viridis: perceptually uniform and readable in grey and by the colour-blind; dark = low, yellow = high.
var RMQ_SWEEP_VIRIDIS = [[68, 1, 84], [65, 68, 135], [42, 120, 142], [34, 168, 132], [122, 209, 81], [253, 231, 37]];

// A metric that does not vary (data.metrics[].constant) gets this one colour, not the whole scale.
var RMQ_SWEEP_CONSTANT_COLOR = [198, 212, 228];

function rmqSweepHeatColor(t) {
  var stops = RMQ_SWEEP_VIRIDIS, n = stops.length - 1;
  var s = Math.min(Math.max(isFinite(t) ? t : 0.5, 0), 1) * n;
  var i = Math.min(Math.floor(s), n - 1), f = s - i, a = stops[i], b = stops[i + 1];
  return [0, 1, 2].map(function (c) { return Math.round(a[c] + (b[c] - a[c]) * f); });
}

function rmqSweepRgb(c) {
  return "rgb(" + c[0] + ", " + c[1] + ", " + c[2] + ")";
}

// Dark text on light cells, white on dark ones (relative luminance, sRGB weights).
function rmqSweepInk(c) {
  return 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2] > 128 ? "#111111" : "#ffffff";
}

function rmqSweepCellRect(chart, xi, yi) {
  var x = chart.scales.x, y = chart.scales.y;
  var left = x.getPixelForValue(xi - 0.5), right = x.getPixelForValue(xi + 0.5);
  var top = y.getPixelForValue(yi + 0.5), bottom = y.getPixelForValue(yi - 0.5);
  return { left: left + 1, top: top + 1, w: right - left - 2, h: bottom - top - 2 };
}

function rmqSweepHatch(ctx, r) {
  ctx.save();
  ctx.beginPath();
  ctx.rect(r.left, r.top, r.w, r.h);
  ctx.clip();
  ctx.fillStyle = "rgba(255, 255, 255, 0.62)";
  ctx.fillRect(r.left, r.top, r.w, r.h);
  ctx.strokeStyle = "rgba(90, 90, 90, 0.45)";
  ctx.lineWidth = 1;
  ctx.beginPath();
  for (var d = -r.h; d < r.w; d += 9) {
    ctx.moveTo(r.left + d, r.top + r.h);
    ctx.lineTo(r.left + d + r.h, r.top);
  }
  ctx.stroke();
  ctx.restore();
}

// A white line under the coloured one, so the outline shows on dark and light cells alike.
function rmqSweepOutline(ctx, r, color, dash) {
  ctx.save();
  ctx.strokeStyle = "#ffffff";
  ctx.lineWidth = 7;
  ctx.strokeRect(r.left + 3.5, r.top + 3.5, r.w - 7, r.h - 7);
  ctx.strokeStyle = color;
  ctx.lineWidth = 4;
  ctx.setLineDash(dash);
  ctx.strokeRect(r.left + 3.5, r.top + 3.5, r.w - 7, r.h - 7);
  ctx.restore();
}

function rmqSweepCellText(ctx, r, parts, ink, family, showCi) {
  var mid = r.top + r.h / 2;
  var withCi = showCi && parts[1] !== null && r.h >= 40;
  ctx.fillStyle = ink;
  ctx.textAlign = "center";
  ctx.textBaseline = "middle";
  ctx.font = "bold " + (r.w >= 70 ? 14 : 11) + "px " + family;
  if (ctx.measureText(parts[0]).width > r.w - 4) return;
  ctx.fillText(parts[0], r.left + r.w / 2, withCi ? mid - 8 : mid);
  if (!withCi) return;
  ctx.font = "11px " + family;
  if (ctx.measureText(parts[1]).width <= r.w - 4) ctx.fillText(parts[1], r.left + r.w / 2, mid + 9);
}

function rmqSweepCellTag(ctx, r, text, color, family) {
  if (r.h < 58) return;
  ctx.font = "bold 10px " + family;
  if (ctx.measureText(text).width > r.w - 12) return;
  ctx.fillStyle = color;
  ctx.textAlign = "center";
  ctx.textBaseline = "top";
  ctx.fillText(text, r.left + r.w / 2, r.top + 10);
}

var rmqSweepHeatmapPlugin = {
  id: "rmqSweepHeatmap",
  beforeDatasetsDraw: function (chart) {
    var cells = null;
    chart.data.datasets.forEach(function (d) { if (d.rmqKey === "cells") cells = d; });
    if (cells === null) return;
    var h = cells.rmqHeat, ctx = chart.ctx, family = chart.options.plugins.title.font.family;
    var showValues = rmqSweepVisible(chart, "values"), showInfeasible = rmqSweepVisible(chart, "infeasible");
    var showRecommended = rmqSweepVisible(chart, "recommended"), showRunnerUp = rmqSweepVisible(chart, "runner-up");
    ctx.save();
    cells.data.forEach(function (c) {
      var r = rmqSweepCellRect(chart, c.x, c.y), s = h.stats[c.rmqPoint], p = h.points[c.rmqPoint];
      if (!s) {
        ctx.fillStyle = "#f0f0f0";
        ctx.fillRect(r.left, r.top, r.w, r.h);
        rmqSweepCellText(ctx, r, ["no data", null], "#777777", family, false);
        return;
      }
      var color = h.constant ? RMQ_SWEEP_CONSTANT_COLOR : rmqSweepHeatColor(h.max > h.min ? (s.mean - h.min) / (h.max - h.min) : 0.5);
      ctx.fillStyle = rmqSweepRgb(color);
      ctx.fillRect(r.left, r.top, r.w, r.h);
      var washed = !p.feasible && showInfeasible;
      if (washed) rmqSweepHatch(ctx, r);
      if (showValues) rmqSweepCellText(ctx, r, rmqSweepMeanCiParts(s), washed ? "#222222" : rmqSweepInk(color), family, true);
      var tagInk = washed ? "#222222" : rmqSweepInk(color);
      if (c.rmqPoint === h.recommended && showRecommended) {
        rmqSweepOutline(ctx, r, RMQ_SWEEP_STYLE.recommended, []);
        rmqSweepCellTag(ctx, r, "recommended", tagInk, family);
      }
      if (c.rmqPoint === h.runnerUp && showRunnerUp) {
        rmqSweepOutline(ctx, r, RMQ_SWEEP_STYLE.runnerUp, [8, 4]);
        rmqSweepCellTag(ctx, r, "runner-up", tagInk, family);
      }
    });
    ctx.restore();
  },
  // The colour scale, in the right-hand padding.
  afterDraw: function (chart) {
    var cells = null;
    chart.data.datasets.forEach(function (d) { if (d.rmqKey === "cells") cells = d; });
    if (cells === null || !isFinite(cells.rmqHeat.min)) return;
    var h = cells.rmqHeat, ctx = chart.ctx, area = chart.chartArea, family = chart.options.plugins.title.font.family;
    var left = area.right + 24, w = 16, steps = 64, span = area.bottom - area.top;
    ctx.save();
    if (h.constant) {
      // One colour and the word "constant": a spread within noise is not stretched over the scale.
      ctx.fillStyle = rmqSweepRgb(RMQ_SWEEP_CONSTANT_COLOR);
      ctx.fillRect(left, area.top + span / 2 - 20, w, 40);
      ctx.strokeStyle = "#666666";
      ctx.lineWidth = 1;
      ctx.strokeRect(left + 0.5, area.top + span / 2 - 19.5, w - 1, 39);
      ctx.fillStyle = "#333333";
      ctx.font = "12px " + family;
      ctx.textAlign = "left";
      ctx.textBaseline = "middle";
      ctx.fillText("constant", left - 4, area.top + span / 2 - 32);
      ctx.fillText(h.min === h.max ? rmqSweepFormat(h.min) : rmqSweepFormat(h.min) + "–", left + w + 5, area.top + span / 2 - 8);
      if (h.min !== h.max) ctx.fillText(rmqSweepFormat(h.max), left + w + 5, area.top + span / 2 + 8);
      ctx.textBaseline = "bottom";
      if (h.unit) ctx.fillText(h.unit, left, area.top - 12);
      ctx.restore();
      return;
    }
    for (var k = 0; k < steps; k++) {
      ctx.fillStyle = rmqSweepRgb(rmqSweepHeatColor(1 - (k + 0.5) / steps));
      ctx.fillRect(left, area.top + (k * span) / steps, w, span / steps + 0.5);
    }
    ctx.strokeStyle = "#666666";
    ctx.lineWidth = 1;
    ctx.strokeRect(left + 0.5, area.top + 0.5, w - 1, span - 1);
    ctx.fillStyle = "#333333";
    ctx.font = "12px " + family;
    ctx.textAlign = "left";
    ctx.textBaseline = "middle";
    var marks = h.max > h.min ? [[h.max, area.top], [(h.min + h.max) / 2, area.top + span / 2], [h.min, area.bottom]] : [[h.min, area.top + span / 2]];
    marks.forEach(function (m) { ctx.fillText(rmqSweepFormat(m[0]), left + w + 5, m[1]); });
    ctx.textBaseline = "bottom";
    if (h.unit) ctx.fillText(h.unit, left, area.top - 12);
    ctx.restore();
  }
};

function rmqSweepGridAxis(axis, view) {
  var ticks = [];
  for (var i = 0; i < axis.labels.length; i++) ticks.push({ value: i });
  return { type: "linear", min: -0.5, max: axis.labels.length - 0.5,
    title: { display: true, text: (axis.title || axis.path), font: rmqSweepFont(view, 13) },
    ticks: { font: rmqSweepFont(view, 12), color: "#333333", maxRotation: 0, autoSkip: false,
      callback: function (v) { return Number.isInteger(v) && v >= 0 && v < axis.labels.length ? axis.labels[v] : ""; } },
    afterBuildTicks: function (scale) { scale.ticks = ticks.slice(); },
    grid: { display: false } };
}

function rmqSweepHeatmapConfig(data, metric, view) {
  var st = RMQ_SWEEP_STYLE, cells = [], min = Infinity, max = -Infinity;
  data.points.forEach(function (p, i) {
    if (p.xi < 0 || p.yi < 0) return;
    cells.push({ x: p.xi, y: p.yi, rmqPoint: i });
    var s = metric.stats[i];
    if (s) { min = Math.min(min, s.mean); max = Math.max(max, s.mean); }
  });
  var unitText = metric.unit ? " (" + metric.unit + ")" : "";
  var datasets = [
    { rmqKey: "cells", rmqToggle: false, label: metric.constant ? "constant: does not vary across the grid (within 1 % or the 95 % CI), one colour" : "colour: mean" + unitText + ", scale on the right", data: cells,
      showLine: false, pointRadius: 0, pointHoverRadius: 0, pointHitRadius: 1,
      rmqHeat: { min: min, max: max, unit: metric.unit, constant: metric.constant === true, stats: metric.stats, points: data.points, recommended: data.recommended, runnerUp: data.runnerUp },
      rmqLegendItem: { fill: rmqSweepRgb(metric.constant ? RMQ_SWEEP_CONSTANT_COLOR : rmqSweepHeatColor(0.55)), stroke: "#666666", width: 1 } },
    { rmqKey: "values", label: data.seeds > 1 ? "mean ± 95 % CI in each cell" : "mean in each cell", data: [],
      rmqLegendItem: { fill: "#ffffff", stroke: "#666666", width: 1 } }
  ];
  if (data.points.some(function (p) { return !p.feasible; })) {
    datasets.push({ rmqKey: "infeasible", label: "misses a requirement (washed out, hatched)", data: [],
      rmqLegendItem: { fill: "#d9d9d9", stroke: "#8a8a8a", width: 1 } });
  }
  if (data.recommended !== null) {
    datasets.push({ rmqKey: "recommended", label: "recommended: " + data.points[data.recommended].paramsText, data: [],
      rmqLegendItem: { fill: "rgba(0, 0, 0, 0)", stroke: st.recommended, width: 3 } });
  }
  if (data.runnerUp !== null) {
    datasets.push({ rmqKey: "runner-up", label: "runner-up: " + data.points[data.runnerUp].paramsText, data: [],
      rmqLegendItem: { fill: "rgba(0, 0, 0, 0)", stroke: st.runnerUp, width: 3, dash: [6, 3] } });
  }
  var title = metric.label[0].toUpperCase() + metric.label.slice(1) + ": " + data.x.name + " × " + data.y.name;
  return {
    type: "line",
    data: { datasets: datasets },
    plugins: [rmqBackgroundPlugin, rmqSweepHeatmapPlugin],
    options: rmqSweepOptions(data, title, view, {
      interaction: { mode: "nearest", intersect: false, axis: "xy" },
      padding: { left: 8, right: 90, top: 18, bottom: 4 },
      scales: { x: rmqSweepGridAxis(data.x, view), y: rmqSweepGridAxis(data.y, view) },
      legend: rmqSweepLegend(view, false),
      tooltip: rmqSweepTooltip(data, metric, view, "cells")
    })
  };
}
`;
