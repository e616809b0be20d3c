// sweep.html: one self-contained page (chart.js, both chart runtimes, the chart data and the app
// inlined) that opens from disk with no network. The static parts (recommendation, points table) read
// without JavaScript; the charts, the metric selector and table sorting need it.
import type { SweepResult } from "../sweep/types.ts";
import { CHART_RUNTIME_JS } from "./chartRuntime.ts";
import { embedJson, embedScript } from "./html.ts";
import { escapeHtml } from "./htmlSummary.ts";
import type { SweepChartData } from "./sweepChartData.ts";
import { SWEEP_CHART_RUNTIME_JS, sweepChartRuntime } from "./sweepChartRuntime.ts";
import { SWEEP_HTML_APP_JS } from "./sweepHtmlApp.ts";
import {
  formatParamValue,
  HEAP_METRIC,
  MEMORY_METRIC,
  memoryStats,
  metricLabel,
  noRecommendationSentences,
  paramName,
  pointByIndex,
  pointParamsText,
  recommendationWarnings,
  requirementTallies,
  tieBreakersText,
} from "./sweepLabels.ts";

const STYLE = `
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif; margin: 0 auto; max-width: 1180px; padding: 16px 20px 40px; color: #1a1a1a; }
h1 { font-size: 22px; margin: 8px 0 2px; } h2 { font-size: 18px; margin: 28px 0 8px; border-bottom: 1px solid #ddd; padding-bottom: 4px; }
.meta { color: #555; margin: 0 0 12px; } code { background: #f3f4f6; padding: 0 3px; border-radius: 3px; }
.verdict { border: 1px solid #cfd8cf; border-left: 6px solid #2e7d32; border-radius: 6px; padding: 10px 16px; background: #f6fbf6; }
.verdict.none { border-color: #e6cccc; border-left-color: #c62828; background: #fdf6f6; }
.verdict .value { font-size: 20px; margin: 4px 0 8px; }
.controls { position: sticky; top: 0; z-index: 1; background: #f6f7f9; border: 1px solid #dde; border-radius: 6px; padding: 8px 12px; display: flex; flex-wrap: wrap; gap: 8px 18px; align-items: center; }
.chart { position: relative; height: 460px; margin: 14px 0; border: 1px solid #eee; border-radius: 6px; }
.chart.heatmap { height: 600px; }
.scroll { overflow-x: auto; }
table { border-collapse: collapse; font-size: 13px; } caption { text-align: left; font-weight: 600; padding: 4px 0; }
th, td { border: 1px solid #ddd; padding: 3px 8px; text-align: left; white-space: nowrap; } td.num { text-align: right; font-variant-numeric: tabular-nums; }
thead th { background: #f3f3f3; } dt { margin-top: 6px; } dd { margin-left: 20px; color: #333; } #rmq-points thead th { cursor: pointer; user-select: none; }
#rmq-points th[aria-sort=ascending]::after { content: " ▲"; } #rmq-points th[aria-sort=descending]::after { content: " ▼"; }
.warning { border-left: 4px solid #e65100; background: #fff8e1; padding: 6px 10px; }
tr.recommended td { background: #e8f5e9; font-weight: 600; } tr.runner-up td { background: #fff3e0; } tr.infeasible td { color: #777; }
`;

export function renderSweepHtml(result: SweepResult, data: SweepChartData, chartJsSource: string): string {
  const title = `rmqsim sweep: ${result.scenario}`;
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style>
</head>
<body>
<h1>${escapeHtml(title)}</h1>
<p class="meta">${escapeHtml(data.subtitle)}</p>
${renderVerdict(result)}
${renderCharts(data)}
<h2>Points</h2>
<p class="meta">Mean ± half-width of the 95 % confidence interval over the seeds. Memory per consumer is the peak of message bodies cached in one consumer's ProcessQueues; the heap estimate adds RocketMQ's 2 360 bytes of objects per cached message. Click a column heading to sort.</p>
<div class="scroll">
${renderPointsTable(result, data)}
</div>
${renderMetricDefinitions(data)}
<h2>Sweep</h2>
<pre>${escapeHtml(JSON.stringify({ scenario: result.scenario, params: result.params, requires: result.requires, objective: result.objective, baseSeed: result.baseSeed, seeds: result.seeds, warmupMs: result.warmupMs }, null, 2))}</pre>
<script type="application/json" id="rmq-sweep-data">${embedJson(data)}</script>
<script>${embedScript(chartJsSource)}</script>
<script>${embedScript(CHART_RUNTIME_JS)}</script>
<script>${embedScript(SWEEP_CHART_RUNTIME_JS)}</script>
<script>${embedScript(SWEEP_HTML_APP_JS)}</script>
</body>
</html>
`;
}

function code(s: string): string {
  return `<code>${escapeHtml(s)}</code>`;
}

function renderVerdict(result: SweepResult): string {
  const recommended = pointByIndex(result, result.recommendation?.point);
  const runnerUp = pointByIndex(result, result.recommendation?.runnerUp);
  const o = result.recommendation?.objective ?? result.objective;
  const tallies = requirementTallies(result);
  const requirements = tallies.length === 0
    ? "<p>No requirements: every point qualifies.</p>"
    : `<ul>${tallies.map((t) => `<li>${code(t.requirement)}: met by ${t.met} of ${t.points} points</li>`).join("")}</ul>`;
  const objective = `<p>Objective: ${escapeHtml(o.direction)} ${code(o.metric)} among the points that meet every requirement${tieBreakersText(o, code)}:</p>\n${requirements}`;
  const warnings = recommendationWarnings(result).map((w) => `<p class="warning"><strong>Warning:</strong> ${escapeHtml(w)}</p>`).join("\n");
  const reason = (result.recommendation?.reason ? `<p>Why: ${escapeHtml(result.recommendation.reason)}</p>` : "") + warnings;
  if (!recommended) {
    const why = noRecommendationSentences(result, code, escapeHtml).map((s) => `<p>${s}</p>`);
    return `<h2>Recommendation</h2>
<div class="verdict none">
<p class="value"><strong>No recommendation</strong></p>
${why.join("\n")}
${reason}
${objective}
</div>`;
  }
  const memory = sweepChartRuntime().rmqSweepMeanCi(memoryStats(recommended), "MiB");
  return `<h2>Recommendation</h2>
<div class="verdict">
<p class="value">${result.params.map((p) => `${escapeHtml(paramName(result.params, p.path))} = <strong>${escapeHtml(formatParamValue(recommended.params[p.path] ?? ""))}</strong>`).join(", ")}</p>
${reason}
<p>Memory per consumer there: ${escapeHtml(memory)}.${runnerUp ? ` Runner-up: ${escapeHtml(pointParamsText(result.params, runnerUp))} (${escapeHtml(sweepChartRuntime().rmqSweepMeanCi(memoryStats(runnerUp), "MiB"))}).` : " No other point meets every requirement."}</p>
${objective}
</div>`;
}

function renderCharts(data: SweepChartData): string {
  if (data.kind === "none") return `<h2>Charts</h2>\n<p>Charts cover sweeps over one or two parameters; this one has ${data.x === null ? "none" : "more than two"}. The table below has every point.</p>`;
  const cls = data.kind === "heatmap" ? "chart heatmap" : "chart";
  // The selector starts on a metric the charts above do not show.
  const first = data.metrics.find((m) => !data.chartMetrics.includes(m.key))?.key ?? data.chartMetrics[0];
  const options = data.metrics
    .map((m) => `<option value="${escapeHtml(m.key)}"${m.key === first ? " selected" : ""}>${escapeHtml(m.label)}${m.unit ? ` (${escapeHtml(m.unit)})` : ""} · ${escapeHtml(m.key)}</option>`)
    .join("");
  const keyCharts = data.chartMetrics
    .map((m, i) => `<div class="${cls}"><canvas id="chart-key-${i}" role="img" aria-label="${escapeHtml(metricLabel(m).label)}"></canvas></div>`)
    .join("\n");
  const what = data.kind === "heatmap" ? "cell" : "point";
  return `<h2>Charts</h2>
<p class="meta">Hover a ${what} for its mean, 95 % interval, runs, memory and requirements; click a legend entry to hide or show it.</p>
${keyCharts}
<h2>Any metric</h2>
<div class="controls">
<label>metric <select id="rmq-metric">${options}</select></label>
<span id="rmq-status">charts need JavaScript</span>
</div>
<div class="${cls}"><canvas id="chart-selected" role="img" aria-label="selected metric"></canvas></div>`;
}

function renderMetricDefinitions(data: SweepChartData): string {
  const items = data.metrics
    .map((m) => `<dt>${code(m.key)}${m.unit ? ` (${escapeHtml(m.unit)})` : ""}</dt><dd>${escapeHtml(m.description || m.label)}</dd>`)
    .join("\n");
  return `<h2>Metrics</h2>\n<dl>\n${items}\n</dl>`;
}

function renderPointsTable(result: SweepResult, data: SweepChartData): string {
  const rt = sweepChartRuntime();
  // Memory and the heap estimate first, next to the parameters; cached bytes are the memory figure in other units.
  const first = [MEMORY_METRIC, HEAP_METRIC];
  const metrics = [
    ...first.flatMap((k) => data.metrics.filter((m) => m.key === k)),
    ...data.metrics.filter((m) => !first.includes(m.key) && m.key !== "cache.bytesPerConsumerMax"),
  ];
  const heads = [
    "#",
    ...result.params.map((p) => escapeHtml(paramName(result.params, p.path))),
    "verdict",
    ...metrics.map((m) => `${escapeHtml(m.label)}${m.unit ? ` (${escapeHtml(m.unit)})` : ""}`),
    "misses",
  ];
  const rows = result.points.map((p, i) => {
    const verdict = i === data.recommended ? "★ recommended" : i === data.runnerUp ? "runner-up" : p.feasible ? "feasible" : "infeasible";
    const cls = i === data.recommended ? "recommended" : i === data.runnerUp ? "runner-up" : p.feasible ? "" : "infeasible";
    const cells = [
      `<td class="num" data-v="${p.index}">${p.index}</td>`,
      ...result.params.map((q) => {
        const v = p.params[q.path] ?? "";
        return `<td class="${typeof v === "number" ? "num" : ""}" data-v="${escapeHtml(String(v))}">${escapeHtml(formatParamValue(v))}</td>`;
      }),
      `<td data-v="${i === data.recommended ? 0 : i === data.runnerUp ? 1 : p.feasible ? 2 : 3}">${verdict}</td>`,
      ...metrics.map((m) => {
        const s = m.stats[i] ?? null;
        return `<td class="num" data-v="${s ? s.mean : ""}">${escapeHtml(rt.rmqSweepMeanCi(s, ""))}</td>`;
      }),
      `<td data-v="${escapeHtml(data.points[i]!.failed.join("; "))}">${data.points[i]!.failed.map(code).join(", ")}</td>`,
    ];
    return `<tr data-index="${p.index}"${cls ? ` class="${cls}"` : ""}>${cells.join("")}</tr>`;
  });
  return `<table id="rmq-points">
<thead><tr>${heads.map((h) => `<th aria-sort="none">${h}</th>`).join("")}</tr></thead>
<tbody>
${rows.join("\n")}
</tbody></table>`;
}
