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
    fromSec: 0, toSec: tLast, queue: null, interactive: true, legendQueuesMax: 16, highlight: null,
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
      (view.queue === null ? "all queues" : "queue " + view.queue) +
      (view.highlight ? "; highlighted " + view.highlight.fromSec + " – " + view.highlight.toSec + " s" : "");
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
    setHighlight(null, null);
    applyRange();
  });

  function setHighlight(range, link) {
    view.highlight = range;
    Array.prototype.forEach.call(document.querySelectorAll("a.rmq-goto.active"), function (a) { a.classList.remove("active"); });
    if (link) link.classList.add("active");
  }

  // Links into the charts ("Why" intervals, failed expectations): show data-from – data-to, highlight
  // data-hl-from – data-hl-to, and scroll to data-target.
  Array.prototype.forEach.call(document.querySelectorAll("a.rmq-goto"), function (link) {
    link.addEventListener("click", function (e) {
      e.preventDefault();
      var num = function (name) { return parseFloat(link.getAttribute(name)); };
      setHighlight({ fromSec: num("data-hl-from"), toSec: num("data-hl-to") }, link);
      fromInput.value = String(num("data-from"));
      toInput.value = String(num("data-to"));
      applyRange();
      document.getElementById(link.getAttribute("data-target")).scrollIntoView();
    });
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

  // Drag across a chart's plot to show that time range on every chart; double-click for the whole run.
  // The band is a div over the canvas (charts are rebuilt on every change, the listeners stay on the box).
  function round3(v) { return Math.round(v * 1000) / 1000; }
  chartData.charts.forEach(function (spec) {
    var canvas = document.getElementById("chart-" + spec.id);
    var box = canvas.parentNode;
    var band = document.createElement("div");
    band.className = "rmq-zoom";
    box.appendChild(band);
    var startX = null;
    function xIn(e) { return e.clientX - canvas.getBoundingClientRect().left; }
    function area() { return charts[spec.id].chartArea; }
    function clampX(x) { var a = area(); return Math.max(a.left, Math.min(a.right, x)); }
    box.addEventListener("mousedown", function (e) {
      var a = area(), x = xIn(e), y = e.clientY - canvas.getBoundingClientRect().top;
      if (e.button !== 0 || x < a.left || x > a.right || y < a.top || y > a.bottom) return;
      startX = x;
      band.style.top = a.top + "px";
      band.style.height = (a.bottom - a.top) + "px";
      band.style.left = x + "px";
      band.style.width = "0px";
      band.style.display = "block";
      e.preventDefault();
    });
    window.addEventListener("mousemove", function (e) {
      if (startX === null) return;
      var x = clampX(xIn(e));
      band.style.left = Math.min(startX, x) + "px";
      band.style.width = Math.abs(x - startX) + "px";
    });
    window.addEventListener("mouseup", function (e) {
      if (startX === null) return;
      var x = clampX(xIn(e)), a = Math.min(startX, x), b = Math.max(startX, x);
      startX = null;
      band.style.display = "none";
      if (b - a < 4) return;
      var scale = charts[spec.id].scales.x;
      fromInput.value = String(round3(Math.max(0, scale.getValueForPixel(a))));
      toInput.value = String(round3(Math.min(tLast, scale.getValueForPixel(b))));
      applyRange();
    });
    box.addEventListener("dblclick", function () {
      fromInput.value = "0";
      toInput.value = String(tLast);
      applyRange();
    });
  });

  // For people poking at the report from the console, and for the browser test.
  window.rmqReport = { charts: charts, view: view, draw: draw, setHighlight: setHighlight };
  draw();
})();
`;
