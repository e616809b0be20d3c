// report.html: one self-contained page (chart.js, the chart runtime, the data and the app inlined) that
// opens from disk with no network.
import type { ExplainedRun } from "../explain/explain.ts";
import type { RunResult } from "../run/simulate.ts";
import { CHART_RUNTIME_JS } from "./chartRuntime.ts";
import type { ChartData } from "./chartSpecs.ts";
import { HTML_APP_JS } from "./htmlApp.ts";
import { OWNERSHIP_STYLE, renderFaults, renderOwnership } from "./htmlOwnership.ts";
import { escapeHtml, formatDisplay, renderSummaryTables } from "./htmlSummary.ts";
import { renderVerdict, VERDICT_STYLE } from "./htmlVerdict.ts";
import { CONFIG_STYLE, renderConfig } from "./htmlConfig.ts";
import { dominantReasons, renderBlockedShares, renderWhy, WHY_STYLE } from "./htmlWhy.ts";
import { formatNumber } from "./csv.ts";
import { faultLabelsWithClients } from "./faultClients.ts";

/** Markers listed in the table under the charts (all of them are still drawn). */
const MARKERS_LISTED_MAX = 500;

/** JSON inside <script type="application/json">: a "<" could close the element or open a comment. */
export function embedJson(value: unknown): string {
  return JSON.stringify(value).replaceAll("<", "\\u003c");
}

/** JavaScript inside <script>: "</script" would end the element; "<\/" means the same to JS. */
export function embedScript(source: string): string {
  return source.replace(/<\/script/gi, "<\\/script");
}

const STYLE = `
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif; margin: 0 auto; max-width: 1120px; padding: 16px 20px 40px; color: #1a1a1a; }
h1 { font-size: 22px; margin: 8px 0 2px; } h2 { font-size: 18px; margin: 28px 0 8px; border-bottom: 1px solid #ddd; padding-bottom: 4px; }
.meta { color: #555; margin: 0 0 12px; }
.controls { position: sticky; top: 0; z-index: 1; background: #f6f7f9; border: 1px solid #dde; border-radius: 6px; padding: 8px 12px; display: flex; flex-wrap: wrap; gap: 8px 18px; align-items: center; }
.controls input[type=number] { width: 90px; } .controls select { max-width: 320px; }
#rmq-status { color: #555; font-size: 13px; } #rmq-status.invalid { color: #c62828; }
/* Where a link or a Why/verdict jump lands: below the sticky controls, title in view. */
#charts, .chart, .chart canvas, h2, h3 { scroll-margin-top: 84px; }
.rmq-zoom { position: absolute; display: none; background: rgba(31, 119, 180, 0.15); border: 1px solid rgba(31, 119, 180, 0.6); pointer-events: none; }
.chart canvas { cursor: crosshair; }
.chart { position: relative; height: 460px; margin: 14px 0; border: 1px solid #eee; border-radius: 6px; }
.tables { display: flex; flex-wrap: wrap; gap: 12px 24px; align-items: flex-start; }
table { border-collapse: collapse; font-size: 13px; } caption { text-align: left; font-weight: 600; padding: 4px 0; }
th, td { border: 1px solid #ddd; padding: 3px 8px; text-align: left; } td.num { text-align: right; font-variant-numeric: tabular-nums; }
thead th { background: #f3f3f3; }
pre { background: #f6f7f9; border: 1px solid #e3e3e3; padding: 10px; overflow: auto; font-size: 12px; }
`;

/** `why`: the explainer's account of the run, for the "Why" section and the Ownership table's reasons. */
export function renderHtml(result: RunResult, chartData: ChartData, chartJsSource: string, why?: ExplainedRun): string {
  const s = result.summary;
  const title = `rmqsim report: ${s.scenario}`;
  const canvases = chartData.charts
    .map((c) => `<div class="chart"><canvas id="chart-${escapeHtml(c.id)}" role="img" aria-label="${escapeHtml(c.title)}"></canvas></div>`
      + (c.id === "flow-control" ? renderBlockedShares(why, s.simulatedMs * 1000) : ""))
    .join("\n");
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>${STYLE}${OWNERSHIP_STYLE}${WHY_STYLE}${VERDICT_STYLE}${CONFIG_STYLE}</style>
</head>
<body>
<h1>${escapeHtml(title)}</h1>
<p class="meta">seed ${formatNumber(s.seed)} · profile ${escapeHtml(s.profile)} · ${formatDisplay(s.simulatedMs / 1000)} s of virtual time · ${s.complete ? "complete" : `incomplete (${escapeHtml(s.stopReason)})`} · trace ${escapeHtml(s.traceHash)}</p>
${renderVerdict(s, s.simulatedMs / 1000)}
${result.model.description ? `<p>${escapeHtml(result.model.description)}</p>` : ""}
<div class="controls">
<label>from <input id="rmq-from" type="number" min="0" step="any"> s</label>
<label>to <input id="rmq-to" type="number" min="0" step="any"> s</label>
<button id="rmq-reset" type="button">whole run</button>
<label>queue <select id="rmq-queue"><option value="">all queues</option></select></label>
<span id="rmq-status">charts need JavaScript</span>
</div>
<p class="meta">Hover for values; drag across a chart to zoom to that time range (double-click: whole run); click a legend entry to hide or show it (markers too; a consumer's entry hides its line in every panel). Grey dashed lines: rebalances; red lines: faults. Who owned each queue when: <a href="#ownership">Ownership</a>.</p>
<div id="charts">
${canvases}
</div>
${renderWhy(why, result.model.groups.map((g) => g.name), s.simulatedMs / 1000)}
<h2>Summary</h2>
<div class="tables">
${renderSummaryTables(result)}
</div>
${renderOwnership(result, why === undefined ? undefined : dominantReasons(why.queues))}
${renderFaults(s, faultLabelsWithClients(result.model))}
${renderMarkers(chartData)}
${renderConfig(result)}
<h2>Scenario</h2>
<pre>${escapeHtml(JSON.stringify(result.model.input, null, 2))}</pre>
<script type="application/json" id="rmq-data">${embedJson({ charts: chartData })}</script>
<script>${embedScript(chartJsSource)}</script>
<script>${embedScript(CHART_RUNTIME_JS)}</script>
<script>${embedScript(HTML_APP_JS)}</script>
</body>
</html>
`;
}

function renderMarkers(chartData: ChartData): string {
  const markers = chartData.markers;
  if (markers.length === 0) return "";
  const rows = markers
    .slice(0, MARKERS_LISTED_MAX)
    .map((m) => `<tr><td class="num">${formatDisplay(m.tSec)}</td><td>${m.kind}</td><td>${escapeHtml(m.label)}</td></tr>`)
    .join("\n");
  const more = markers.length > MARKERS_LISTED_MAX ? `<p>… and ${markers.length - MARKERS_LISTED_MAX} more.</p>` : "";
  return `<h2>Markers</h2>
<details><summary>${markers.length} markers (rebalances and faults)</summary>
<table><thead><tr><th>time (s)</th><th>kind</th><th>label</th></tr></thead>
<tbody>
${rows}
</tbody></table>${more}</details>`;
}
