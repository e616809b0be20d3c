// The interactive part of report.html, as plain browser JavaScript (ES2017, classic script). It reads
// the embedded JSON, builds every chart with the shared runtime (chartRuntime.ts) and re-slices the
// data when the time range or the queue changes (no zoom plugin is bundled, so zoom is slicing).
export const HTML_APP_JS = String.raw`
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("rmq-data").textContent);
  var chartData = data.charts;
  var tSec = chartData.tSec;
  var tLast = tSec.length > 0 ? tSec[tSec.length - 1] : 1;
  var view = {
    fromSec: 0, toSec: tLast, queue: null, interactive: true, legendQueuesMax: 16,
    fontFamily: "system-ui, -apple-system, 'Segoe UI', Roboto, 'DejaVu Sans', sans-serif"
  };
  var charts = {};
  var fromInput = document.getElementById("rmq-from");
  var toInput = document.getElementById("rmq-to");
  var queueSelect = document.getElementById("rmq-queue");
  var status = document.getElementById("rmq-status");

  function hiddenKeys(chart) {
    var keys = {};
    if (!chart) return keys;
    chart.data.datasets.forEach(function (d, i) { if (!chart.isDatasetVisible(i)) keys[d.rmqKey] = true; });
    return keys;
  }

  // Rebuilds every chart for the current view; legend toggles survive by series key.
  function draw() {
    chartData.charts.forEach(function (spec) {
      var old = charts[spec.id];
      var hidden = hiddenKeys(old);
      if (old) old.destroy();
      var config = rmqChartConfig(chartData, spec, view);
      config.data.datasets.forEach(function (d) { if (hidden[d.rmqKey]) d.hidden = true; });
      charts[spec.id] = new Chart(document.getElementById("chart-" + spec.id), config);
    });
    var range = rmqSliceRange(tSec, view.fromSec, view.toSec);
    status.textContent = "showing " + view.fromSec + " – " + view.toSec + " s (" + (range[1] - range[0]) + " points), " +
      (view.queue === null ? "all queues" : "queue " + view.queue);
    status.classList.remove("invalid");
  }

  function readSeconds(input, fallback) {
    var v = parseFloat(input.value);
    return isFinite(v) ? Math.max(0, Math.min(v, tLast)) : fallback;
  }

  function applyRange() {
    var from = readSeconds(fromInput, 0);
    var to = readSeconds(toInput, tLast);
    if (!(to > from)) {
      status.textContent = "the range needs “to” after “from” (0 – " + tLast + " s)";
      status.classList.add("invalid");
      return;
    }
    view.fromSec = from;
    view.toSec = to;
    draw();
  }

  fromInput.max = toInput.max = String(tLast);
  fromInput.value = "0";
  toInput.value = String(tLast);
  fromInput.addEventListener("change", applyRange);
  toInput.addEventListener("change", applyRange);
  document.getElementById("rmq-reset").addEventListener("click", function () {
    fromInput.value = "0";
    toInput.value = String(tLast);
    applyRange();
  });

  var queues = [];
  chartData.charts.forEach(function (spec) {
    spec.series.forEach(function (s) { if (s.queue !== undefined && queues.indexOf(s.queue) < 0) queues.push(s.queue); });
  });
  queues.forEach(function (q) {
    var option = document.createElement("option");
    option.value = q;
    option.textContent = q;
    queueSelect.appendChild(option);
  });
  queueSelect.addEventListener("change", function () {
    view.queue = queueSelect.value === "" ? null : queueSelect.value;
    draw();
  });

  // For people poking at the report from the console, and for the browser test.
  window.rmqReport = { charts: charts, view: view, draw: draw };
  draw();
})();
`;
