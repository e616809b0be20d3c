// The interactive part of sweep.html, as plain browser JavaScript (ES2017, classic script). It reads the
// embedded chart data, draws every chart with the shared sweep runtime (sweepChartRuntime.ts), redraws
// the selected chart when the metric selector changes, and sorts the points table by any column.
export const SWEEP_HTML_APP_JS = String.raw`
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("rmq-sweep-data").textContent);
  var view = { interactive: true, fontFamily: "system-ui, -apple-system, 'Segoe UI', Roboto, 'DejaVu Sans', sans-serif" };
  var charts = {};

  // (Re)draws one canvas; legend toggles survive a redraw by dataset key.
  function draw(id, metricKey) {
    var old = charts[id], hidden = {};
    if (old) {
      old.data.datasets.forEach(function (d, i) { if (!old.isDatasetVisible(i)) hidden[d.rmqKey] = true; });
      old.destroy();
    }
    var config = rmqSweepChartConfig(data, metricKey, view);
    config.data.datasets.forEach(function (d) { if (hidden[d.rmqKey]) d.hidden = true; });
    charts[id] = new Chart(document.getElementById(id), config);
  }

  var select = document.getElementById("rmq-metric");
  var status = document.getElementById("rmq-status");
  if (select !== null) {
    var showSelected = function () {
      draw("chart-selected", select.value);
      data.metrics.forEach(function (m) {
        if (m.key !== select.value) return;
        var n = m.stats.filter(function (s) { return s !== null; }).length;
        status.textContent = m.key + (m.description ? ": " + m.description : "") + " (" + n + " of " + data.points.length + " points have it)";
      });
    };
    select.addEventListener("change", showSelected);
    showSelected();
    data.chartMetrics.forEach(function (m, i) { draw("chart-key-" + i, m); });
  }

  // Numbers sort as numbers, text as text; empty cells last; ties keep the grid order.
  var table = document.getElementById("rmq-points");
  var heads = table.tHead.rows[0].cells;
  var sorted = { col: -1, dir: 1 };
  function compareCells(col, dir) {
    return function (a, b) {
      var x = a.cells[col].getAttribute("data-v"), y = b.cells[col].getAttribute("data-v");
      var c = 0;
      if (x === "" || y === "") c = x === y ? 0 : x === "" ? 1 : -1;
      else if (isFinite(parseFloat(x)) && isFinite(parseFloat(y))) c = dir * (parseFloat(x) - parseFloat(y));
      else c = dir * (x < y ? -1 : x > y ? 1 : 0);
      return c !== 0 ? c : Number(a.getAttribute("data-index")) - Number(b.getAttribute("data-index"));
    };
  }
  Array.prototype.forEach.call(heads, function (th, col) {
    th.addEventListener("click", function () {
      sorted = { col: col, dir: sorted.col === col ? -sorted.dir : 1 };
      var body = table.tBodies[0];
      var rows = Array.prototype.slice.call(body.rows).sort(compareCells(col, sorted.dir));
      rows.forEach(function (r) { body.appendChild(r); });
      Array.prototype.forEach.call(heads, function (h, i) {
        h.setAttribute("aria-sort", i !== col ? "none" : sorted.dir > 0 ? "ascending" : "descending");
      });
    });
  });

  // For people poking at the page from the console, and for the browser test.
  window.rmqSweep = { charts: charts, data: data, draw: draw };
})();
`;
