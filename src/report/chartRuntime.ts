// chart spec + view → chart.js configuration, written once as plain browser JavaScript: report.html
// inlines this source, and the PNG renderer evaluates the very same text, so a PNG and the interactive
// chart cannot drift apart. Keep it ES2017 with no imports; it runs in a classic <script>.
import type { ChartConfiguration } from "chart.js";
import type { ChartData, ChartSpec } from "./chartSpecs.ts";

export interface ChartView {
  /** Visible time range, seconds of virtual time (inclusive). */
  fromSec: number;
  toSec: number;
  /** Per-queue selector: show only this queue's cached series; null shows every queue. */
  queue: string | null;
  /** true in the browser: responsive, tooltips, hover; false for PNG (fixed size, no events). */
  interactive: boolean;
  fontFamily: string;
  /** Queues (or consumers) named in the legend before the rest are summarised as "… N more queues". */
  legendQueuesMax: number;
  /** A time range drawn as a shaded band (report.html's "Why" links), seconds; absent or null: none. */
  highlight?: { fromSec: number; toSec: number } | null;
}

export const CHART_RUNTIME_JS = String.raw`
var RMQ_MARKER_STYLE = {
  rebalance: { color: "#8a8a8a", width: 1, dash: [4, 4] },
  fault: { color: "#d62728", width: 2, dash: [] },
  retention: { color: "#9467bd", width: 2, dash: [6, 3] }
};

function rmqSliceRange(tSec, fromSec, toSec) {
  var i0 = 0;
  while (i0 < tSec.length && tSec[i0] < fromSec) i0++;
  var i1 = tSec.length;
  while (i1 > i0 && tSec[i1 - 1] > toSec) i1--;
  return [i0, i1];
}

function rmqMarkersPlugin(markers) {
  return {
    id: "rmqMarkers",
    beforeDatasetsDraw: function (chart) {
      var x = chart.scales.x, area = chart.chartArea, ctx = chart.ctx;
      var visible = {};
      chart.data.datasets.forEach(function (d, i) {
        if (d.rmqMarkerKind) visible[d.rmqMarkerKind] = chart.isDatasetVisible(i);
      });
      var drawn = {};
      ctx.save();
      ctx.beginPath();
      ctx.rect(area.left, area.top, area.right - area.left, area.bottom - area.top);
      ctx.clip();
      // Faults last, so a red line is never hidden under a grey or purple one.
      ["rebalance", "retention", "fault"].forEach(function (kind) {
        if (!visible[kind]) return;
        var style = RMQ_MARKER_STYLE[kind];
        ctx.strokeStyle = style.color;
        ctx.fillStyle = style.color;
        ctx.lineWidth = style.width;
        ctx.setLineDash(style.dash);
        var labelRight = -Infinity;
        markers.forEach(function (m) {
          if (m.kind !== kind || m.tSec < x.min || m.tSec > x.max) return;
          var px = Math.round(x.getPixelForValue(m.tSec)) + 0.5;
          // Many markers at one pixel (a rebalance storm) are one line.
          if (drawn[kind + px]) return;
          drawn[kind + px] = true;
          ctx.beginPath();
          ctx.moveTo(px, area.top);
          ctx.lineTo(px, area.bottom);
          ctx.stroke();
          if (kind !== "rebalance" && px > labelRight) {
            var text = m.label.length > 44 ? m.label.slice(0, 43) + "…" : m.label;
            ctx.font = "11px " + chart.options.plugins.title.font.family;
            ctx.textBaseline = "top";
            ctx.fillText(text, px + 3, area.top + 3);
            labelRight = px + 6 + ctx.measureText(text).width;
          }
        });
      });
      ctx.restore();
    }
  };
}

// The interval a "Why" link points at: a pale band over the plot, under the lines.
function rmqHighlightPlugin(highlight) {
  return {
    id: "rmqHighlight",
    beforeDatasetsDraw: function (chart) {
      if (!highlight) return;
      var x = chart.scales.x, area = chart.chartArea, ctx = chart.ctx;
      var left = Math.max(area.left, x.getPixelForValue(highlight.fromSec));
      var right = Math.min(area.right, x.getPixelForValue(highlight.toSec));
      if (!(right > left)) return;
      ctx.save();
      ctx.fillStyle = "rgba(255, 205, 0, 0.18)";
      ctx.fillRect(left, area.top, right - left, area.bottom - area.top);
      ctx.strokeStyle = "rgba(200, 150, 0, 0.8)";
      ctx.lineWidth = 1;
      ctx.strokeRect(left + 0.5, area.top + 0.5, right - left - 1, area.bottom - area.top - 1);
      ctx.restore();
    }
  };
}

// Vertical reference lines (a time an expectation names), dashed, while their legend entry is shown.
function rmqVerticalLinesPlugin(lines) {
  return {
    id: "rmqVerticalLines",
    afterDatasetsDraw: function (chart) {
      var x = chart.scales.x, area = chart.chartArea, ctx = chart.ctx;
      ctx.save();
      chart.data.datasets.forEach(function (d, i) {
        var l = lines.filter(function (v) { return v.vertical && v.key === d.rmqKey; })[0];
        if (!l || !chart.isDatasetVisible(i) || l.value < x.min || l.value > x.max) return;
        var px = Math.round(x.getPixelForValue(l.value)) + 0.5;
        ctx.strokeStyle = l.color;
        ctx.lineWidth = 1.5;
        ctx.setLineDash([8, 5]);
        ctx.beginPath();
        ctx.moveTo(px, area.top);
        ctx.lineTo(px, area.bottom);
        ctx.stroke();
      });
      ctx.restore();
    }
  };
}

/** Gap between stacked panels, as a share of the plot height relative to the panels' weights. */
var RMQ_PANEL_GAP_WEIGHT = 0.3;

var rmqBackgroundPlugin = {
  id: "rmqBackground",
  beforeDraw: function (chart) {
    var ctx = chart.ctx;
    ctx.save();
    ctx.fillStyle = "#ffffff";
    ctx.fillRect(0, 0, chart.width, chart.height);
    ctx.restore();
  }
};

// Log axes label only 1, 2 and 5 × 10^k; chart.js's default labels every minor tick and they collide.
function rmqLogTick(value) {
  var mantissa = value / Math.pow(10, Math.floor(Math.log10(value) + 1e-9));
  var m = Math.round(mantissa * 1000) / 1000;
  return m === 1 || m === 2 || m === 5 ? Number(value).toLocaleString("en-US") : "";
}

// Stacked panels share one chart area; blanking the gaps between them (where the x grid would run
// through) makes each panel read as its own plot. Markers are drawn after this, across every panel.
var rmqPanelsPlugin = {
  id: "rmqPanels",
  beforeDatasetsDraw: function (chart) {
    var ctx = chart.ctx, area = chart.chartArea;
    ctx.save();
    ctx.fillStyle = "#ffffff";
    Object.keys(chart.scales).forEach(function (id) {
      var scale = chart.scales[id];
      if (id.indexOf("rmqGap") === 0) ctx.fillRect(area.left - 1, scale.top, area.right - area.left + 2, scale.bottom - scale.top);
    });
    ctx.restore();
  }
};

// Items of the panel under the pointer only: with three panels of N consumers, a tooltip of every
// dataset would be 3N lines long.
function rmqTooltipInPanel(item) {
  var y = item.chart.$rmqPointerY, scale = item.chart.scales[item.dataset.yAxisID];
  return y === undefined || scale === undefined || (y >= scale.top && y <= scale.bottom);
}

// A consumer's series (one per panel) share one legend entry: clicking it shows or hides them all.
function rmqLegendClick(e, item, legend) {
  var chart = legend.chart, clicked = chart.data.datasets[item.datasetIndex];
  var show = !chart.isDatasetVisible(item.datasetIndex);
  chart.data.datasets.forEach(function (d, i) {
    if (i === item.datasetIndex || (clicked.rmqGroup !== undefined && d.rmqGroup === clicked.rmqGroup)) chart.setDatasetVisibility(i, show);
  });
  chart.update();
}

// A state axis: one tick per state, labelled with its name, and room half a row above and below.
function rmqCategoryAxis(scale, names) {
  scale.min = -0.5;
  scale.max = names.length - 0.5;
  scale.beginAtZero = false;
  scale.afterBuildTicks = function (axis) { axis.ticks = names.map(function (n, i) { return { value: i }; }); };
  scale.ticks.callback = function (value) { return names[Math.round(value)] !== undefined ? names[Math.round(value)] : ""; };
}

function rmqChartConfig(data, spec, view) {
  var range = rmqSliceRange(data.tSec, view.fromSec, view.toSec);
  var i0 = range[0], i1 = range[1];
  var xMin = view.fromSec, xMax = Math.max(view.toSec, view.fromSec + 1e-3);
  var datasets = [];
  // Queue and consumer series: one legend entry per queue or consumer, up to legendQueuesMax of them;
  // the rest are drawn but summed up in one "… N more" entry.
  var legendGroups = {}, groupCount = 0, groupsHidden = 0, afterLastGroup = 0, groupNoun = "queues";
  spec.series.forEach(function (s) {
    if (s.queue !== undefined && view.queue !== null && s.queue !== view.queue) return;
    var points = [];
    for (var i = i0; i < i1; i++) points.push({ x: data.tSec[i], y: s.values[i] });
    var inLegend = true;
    var group = s.queue !== undefined ? "queue:" + s.queue : s.consumer !== undefined ? "consumer:" + s.consumer : s.node !== undefined ? "node:" + s.node : undefined;
    if (group !== undefined) {
      if (legendGroups[group] === undefined) {
        legendGroups[group] = true;
        inLegend = groupCount < view.legendQueuesMax;
        if (!inLegend) groupsHidden++;
        groupCount++;
      } else {
        inLegend = false;
      }
      if (s.consumer !== undefined) groupNoun = "consumers";
      if (s.node !== undefined) groupNoun = "nodes";
      afterLastGroup = datasets.length + 1;
    }
    datasets.push({
      rmqKey: s.key, rmqLegend: inLegend, rmqGroup: s.consumer !== undefined || s.node !== undefined ? group : undefined,
      label: s.label, data: points, yAxisID: s.axis, stepped: s.stepped === true,
      borderColor: s.color, backgroundColor: s.color, borderWidth: s.width, borderDash: s.dash,
      pointRadius: 0, pointHoverRadius: 3, pointHitRadius: 4, tension: 0, spanGaps: false
    });
  });
  if (groupsHidden > 0) {
    // A legend-only entry standing for the queues or consumers left out of the legend (their lines are drawn).
    var hint = !view.interactive ? "see report.html" : groupNoun === "queues" ? "pick one with the queue selector" : "hover for values";
    datasets.splice(afterLastGroup, 0, { rmqKey: "more:" + groupNoun, rmqLegend: true, label: "… " + groupsHidden + " more " + groupNoun + " (" + hint + ")",
      data: [], borderColor: "rgba(0,0,0,0)", backgroundColor: "rgba(0,0,0,0)", borderWidth: 0 });
  }
  spec.lines.forEach(function (l) {
    if (l.vertical) {
      // A time: drawn by rmqVerticalLinesPlugin across the plot; the dataset is the legend entry.
      datasets.push({ rmqKey: l.key, rmqLegend: true, label: l.label, yAxisID: l.axis, data: [],
        borderColor: l.color, backgroundColor: l.color, borderWidth: 1.5, borderDash: [8, 5] });
      return;
    }
    datasets.push({
      rmqKey: l.key, rmqLegend: true, label: l.label, yAxisID: l.axis,
      data: [{ x: xMin, y: l.value }, { x: xMax, y: l.value }],
      borderColor: l.color, backgroundColor: l.color, borderWidth: 1.5, borderDash: [8, 5],
      pointRadius: 0, pointHoverRadius: 0, pointHitRadius: 0
    });
  });
  ["rebalance", "retention", "fault"].forEach(function (kind) {
    var n = data.markers.filter(function (m) { return m.kind === kind && m.tSec >= xMin && m.tSec <= xMax; }).length;
    if (n === 0) return;
    var style = RMQ_MARKER_STYLE[kind];
    datasets.push({ rmqKey: "marker:" + kind, rmqMarkerKind: kind, rmqLegend: true, label: kind + " markers (" + n + ")",
      // Legend-only: a thicker sample than the drawn marker, so the thin grey line is visible there.
      data: [], borderColor: style.color, backgroundColor: style.color, borderWidth: 2.5, borderDash: style.dash });
  });

  var font = function (size, weight) { return { family: view.fontFamily, size: size, weight: weight || "normal" }; };
  var scales = {
    x: { type: "linear", min: xMin, max: xMax, title: { display: true, text: "virtual time (s)", font: font(13) },
      ticks: { font: font(12), color: "#333" }, grid: { color: "#e6e6e6" } }
  };
  var panels = spec.axes.some(function (a) { return a.panelWeight !== undefined; });
  var categories = {}, anyCategories = false;
  spec.axes.forEach(function (a, k) {
    scales[a.id] = {
      type: a.log ? "logarithmic" : "linear", position: a.id === "y" || panels ? "left" : "right", beginAtZero: !a.log,
      title: { display: true, text: a.title, font: font(panels ? 12 : 13) },
      ticks: { font: font(12), color: "#333" },
      grid: { color: "#e6e6e6", drawOnChartArea: a.id === "y" || panels }
    };
    if (a.suggestedMax !== undefined) scales[a.id].suggestedMax = a.suggestedMax;
    if (a.integer) scales[a.id].ticks.precision = 0;
    if (panels) {
      // chart.js stacks left-hand boxes heaviest first from the top: the first axis is the top panel.
      var weight = 2 * (spec.axes.length - k);
      scales[a.id].stack = "panels";
      scales[a.id].stackWeight = a.panelWeight;
      scales[a.id].weight = weight;
      // An empty, hidden scale below each panel but the last keeps the panels' tick labels apart.
      if (k < spec.axes.length - 1) {
        scales["rmqGap" + k] = { type: "linear", axis: "y", position: "left", display: false, stack: "panels", stackWeight: RMQ_PANEL_GAP_WEIGHT, weight: weight - 1 };
      }
    }
    // Only when logarithmic: an explicit undefined would replace chart.js's default formatter too.
    if (a.log) scales[a.id].ticks.callback = rmqLogTick;
    if (a.categories !== undefined) {
      rmqCategoryAxis(scales[a.id], a.categories);
      categories[a.id] = a.categories;
      anyCategories = true;
    }
  });
  var config = {
    type: "line",
    data: { datasets: datasets },
    plugins: [rmqBackgroundPlugin].concat(panels ? [rmqPanelsPlugin] : [], [rmqHighlightPlugin(view.highlight), rmqMarkersPlugin(data.markers), rmqVerticalLinesPlugin(spec.lines)]),
    options: {
      animation: false, responsive: view.interactive, maintainAspectRatio: false, devicePixelRatio: view.interactive ? undefined : 1,
      locale: "en-US", parsing: false, normalized: true,
      events: view.interactive ? ["mousemove", "mouseout", "click", "touchstart", "touchmove"] : [],
      interaction: { mode: "index", intersect: false, axis: "x" },
      layout: { padding: { left: 8, right: 12, top: 4, bottom: 4 } },
      scales: scales,
      plugins: {
        title: { display: true, text: spec.title, font: font(18, "bold"), color: "#111", padding: { top: 6, bottom: 2 } },
        subtitle: { display: true, text: spec.note ? data.subtitle + " · " + spec.note : data.subtitle, font: font(12), color: "#555", padding: { bottom: 6 } },
        legend: { position: "bottom", onClick: rmqLegendClick, labels: { font: font(12), color: "#222", usePointStyle: true, pointStyle: "line", boxWidth: 28,
          filter: function (item, chartData) { return chartData.datasets[item.datasetIndex].rmqLegend !== false; } } },
        tooltip: { enabled: view.interactive,
          callbacks: { title: function (items) {
            if (items.length === 0) return "";
            var panel = panels ? " · " + items[0].chart.scales[items[0].dataset.yAxisID].options.title.text : "";
            return "t = " + items[0].parsed.x + " s" + panel;
          } } },
        decimation: { enabled: false }
      }
    }
  };
  if (anyCategories) {
    // A state series' tooltip names the state, not the value drawn (which sits a little apart from it).
    config.options.plugins.tooltip.callbacks.label = function (item) {
      var names = categories[item.dataset.yAxisID];
      return item.dataset.label + ": " + (names !== undefined ? names[Math.round(item.parsed.y)] : item.formattedValue);
    };
  }
  if (panels) {
    // Remembers the pointer's height so the tooltip can keep to the panel under it; chart.js calls
    // onHover before the tooltip plugin handles the same event.
    config.options.onHover = function (e, active, chart) { chart.$rmqPointerY = e.y; };
    config.options.plugins.tooltip.filter = rmqTooltipInPanel;
  }
  return config;
}
`;

type RuntimeConfig = ChartConfiguration<"line", { x: number; y: number | null }[]>;

interface ChartRuntime {
  rmqChartConfig(data: ChartData, spec: ChartSpec, view: ChartView): RuntimeConfig;
}

let runtime: ChartRuntime | undefined;

/** The runtime's functions for use in Node (evaluated once; pure functions of their arguments). */
export function chartRuntime(): ChartRuntime {
  runtime ??= new Function(`${CHART_RUNTIME_JS}\nreturn { rmqChartConfig: rmqChartConfig };`)() as ChartRuntime;
  return runtime;
}
