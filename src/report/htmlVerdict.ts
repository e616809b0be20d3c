// The banner report.html opens with (issue 17): did the run meet its expectations — and if not, which
// failed, with the actual value against the threshold, when and where, each linked to the chart that
// shows its series at the time it failed. An incomplete run says so first: its verdict means little.
import type { Summary } from "../metrics/summary.ts";
import type { ClauseDetail } from "../scenario/expectDetail.ts";
import { failedClauses, placeOf } from "./chartExpectations.ts";
import { escapeHtml, formatDisplay } from "./htmlSummary.ts";

export const VERDICT_STYLE = `
.verdict { border-radius: 6px; padding: 10px 14px; margin: 10px 0 12px; border: 1px solid; }
.verdict.pass { background: #edf7ee; border-color: #9ccc9f; } .verdict.fail { background: #fdecef; border-color: #e59aab; }
.verdict.none { background: #f6f7f9; border-color: #dde; } .verdict.partial { background: #fff6e0; border-color: #e8c46a; }
.verdict strong { font-size: 17px; } .verdict ul { margin: 6px 0 0; padding-left: 22px; } .verdict li { margin: 3px 0; }
.verdict code { background: rgba(255,255,255,0.7); padding: 0 4px; border-radius: 3px; }
`;

/** The banner; `runSec` bounds the chart ranges the links ask for. */
export function renderVerdict(s: Summary, runSec: number): string {
  const partial = s.complete ? "" : `<p><strong>Incomplete run</strong> — stopped early (${escapeHtml(s.stopReason)}${s.stopDetail ? `: ${escapeHtml(s.stopDetail)}` : ""}); it covers the first ${formatDisplay(s.simulatedMs / 1000)} s, so its figures and verdict are partial.</p>`;
  const total = s.expectations.length;
  const failed = s.expectations.filter((e) => !e.ok);
  if (total === 0) {
    return `<div class="verdict ${s.complete ? "none" : "partial"}" id="verdict">${partial}<strong>No expectations</strong> — the scenario sets none (<code>expect</code>), so there is no verdict.</div>`;
  }
  if (failed.length === 0) {
    return `<div class="verdict ${s.complete ? "pass" : "partial"}" id="verdict">${partial}<strong>PASS</strong> — all ${total} expectation(s) held.</div>`;
  }
  const items = failed.map((e) => {
    const clauses = failedClauses(e);
    // One clause that is the whole expression reads on one line; several get a line each.
    if (clauses.length === 1 && clauses[0]!.text === e.expression) return `<li>${clauseText(clauses[0]!, runSec)}</li>`;
    const detail = clauses.length > 0
      ? `<ul>${clauses.map((c) => `<li>${clauseText(c, runSec)}</li>`).join("")}</ul>`
      : ` — ${escapeHtml(e.actual)}`;
    return `<li><code>${escapeHtml(e.expression)}</code>${detail}</li>`;
  });
  return `<div class="verdict fail" id="verdict">${partial}<strong>FAIL</strong> — ${failed.length} of ${total} expectation(s) failed:
<ul>
${items.join("\n")}
</ul></div>`;
}

/** "max(lag.committed, 90s..) < 1000: actual 1 523 (threshold < 1 000) at 95 s, queue …; window 90 – 120 s — lag chart". */
function clauseText(c: ClauseDetail, runSec: number): string {
  const value = (v: number | null) => (v === null ? "no value" : c.unit === "ms" ? `${formatDisplay(v / 1000)} s` : formatDisplay(v));
  const parts = [`actual ${value(c.actual)} (needs ${escapeHtml(c.op)} ${value(c.threshold)})`];
  if (c.atUs !== null) parts.push(`at ${formatDisplay(c.atUs / 1e6)} s`);
  if (c.where !== null) parts.push(escapeHtml(c.where));
  if (c.windowUs !== null) parts.push(`window ${formatDisplay(c.windowUs[0] / 1e6)} – ${formatDisplay(c.windowUs[1] / 1e6)} s`);
  const place = placeOf(c.series);
  const link = place === null ? "" : ` — ${goto(c, place.chart, runSec)}`;
  return `<code>${escapeHtml(c.text)}</code>: ${parts.join(", ")}${link}`;
}

/**
 * A link that shows the chart at the time the clause failed: the clause's window (the run when it has
 * none), with the deciding sample highlighted (±1 s) or else the window.
 */
function goto(c: ClauseDetail, chart: string, runSec: number): string {
  const [w0, w1] = c.windowUs !== null ? [c.windowUs[0] / 1e6, c.windowUs[1] / 1e6] : [0, runSec];
  const at = c.atUs !== null ? c.atUs / 1e6 : c.unit === "ms" && c.actual !== null ? c.actual / 1000 : null;
  const pad = Math.max(1, (w1 - w0) / 10);
  const from = Math.max(0, Math.min(w0, at ?? w0) - pad);
  const to = Math.min(runSec, Math.max(w1, at ?? w1) + pad);
  const [h0, h1] = at !== null ? [Math.max(0, at - 1), Math.min(runSec, at + 1)] : [w0, w1];
  return `<a class="rmq-goto" href="#chart-${chart}" data-target="chart-${chart}" data-from="${r3(from)}" data-to="${r3(to)}" data-hl-from="${r3(h0)}" data-hl-to="${r3(h1)}">${escapeHtml(chart)} chart</a>`;
}

function r3(v: number): number {
  return Math.round(v * 1000) / 1000;
}
