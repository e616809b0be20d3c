// The "Why" section of report.html (issue 16): per group, the queues that were held back longest — ranked
// as `rmqsim explain --group G` ranks them — with the explainer's sentence for each interval. Each
// interval's time range is a link: clicking it shows that stretch on the charts, highlighted. Also each
// queue's dominant reason (the reason covering most of its time), for the Ownership table.
import type { ExplainedRun } from "../explain/explain.ts";
import { rankQueues, TOP_DEFAULT } from "../explain/explain.ts";
import { formatTimeUs } from "../explain/format.ts";
import type { ExplainedInterval, QueueExplanation } from "../explain/types.ts";
import { escapeHtml } from "./htmlSummary.ts";

/** Intervals listed per queue (a queue that flaps can have hundreds; why.json and `rmqsim explain` have them all). */
export const WHY_INTERVALS_MAX = 20;
/** Shown in place of a reason when nothing held the queue back. */
export const NO_REASON = "—";

export const WHY_STYLE = `
.why-queue { margin: 10px 0 4px; font-weight: 600; } .why-queue span { font-weight: normal; color: #555; }
ul.why { margin: 4px 0 10px; padding-left: 22px; font-size: 14px; } ul.why li { margin: 3px 0; }
a.why-link { font-variant-numeric: tabular-nums; white-space: nowrap; }
a.rmq-goto.active { background: #fff3b0; outline: 1px solid #e0b400; }
code.why-reason { background: #f1f1f4; padding: 0 4px; border-radius: 3px; font-size: 12px; }
ul.why details { color: #444; font-size: 13px; } ul.why details ul { margin: 2px 0; }
`;

/** The key the Ownership table looks a queue up by: group name and "Topic@broker#id". */
export function whyKey(group: string, queue: string): string {
  return `${group}\u0000${queue}`;
}

/**
 * Each examined queue's dominant reason: the one whose intervals (overlaps within a reason counted once)
 * cover the most time; ties go to the reason code first in alphabetical order. Queues with no interval
 * are absent (the table shows NO_REASON).
 */
export function dominantReasons(queues: readonly QueueExplanation[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const q of queues) {
    const byReason = new Map<string, ExplainedInterval[]>();
    for (const i of q.intervals) byReason.set(i.reason, [...(byReason.get(i.reason) ?? []), i]);
    let best: { reason: string; us: number } | null = null;
    for (const [reason, list] of [...byReason].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      const us = coveredUs(list);
      if (best === null || us > best.us) best = { reason, us };
    }
    if (best !== null) out.set(whyKey(q.group, q.queue), best.reason);
  }
  return out;
}

/** Time covered by intervals, overlaps counted once. */
function coveredUs(list: readonly ExplainedInterval[]): number {
  const sorted = [...list].sort((a, b) => a.startUs - b.startUs);
  let total = 0;
  let end = -Infinity;
  for (const i of sorted) {
    const from = Math.max(i.startUs, end);
    if (i.endUs > from) total += i.endUs - from;
    end = Math.max(end, i.endUs);
  }
  return total;
}

/** The section; empty without an account (a report rendered from a result alone). */
export function renderWhy(why: ExplainedRun | undefined, groups: readonly string[], runSec: number): string {
  if (why === undefined) return "";
  const parts = groups.map((g) => renderGroup(g, why.queues.filter((q) => q.group === g), runSec));
  return `<h2 id="why">Why</h2>
<p class="meta">Where a queue stopped or slowed for a second or more, and why, read from the run's trace (the same account as <code>rmqsim explain</code>; why.json has it as JSON). Per group, the ${TOP_DEFAULT} queues held back longest. Click a time range to show it on the charts, highlighted.</p>
${parts.join("\n")}`;
}

function renderGroup(group: string, queues: readonly QueueExplanation[], runSec: number): string {
  const shown = rankQueues(queues, TOP_DEFAULT).filter((q) => q.intervals.length > 0);
  const head = `<h3>Group ${escapeHtml(group)}</h3>`;
  if (shown.length === 0) return `${head}\n<p>Nothing held ${escapeHtml(group)}'s ${queues.length} queue(s) back: none stopped or slowed for a second or more.</p>`;
  const more = queues.filter((q) => q.intervals.length > 0).length - shown.length;
  const tail = more > 0 ? `\n<p class="meta">… and ${more} more queue(s) held back for less time (<code>rmqsim explain --group ${escapeHtml(group)} --top N</code>).</p>` : "";
  return `${head}\n${shown.map((q) => renderQueue(q, runSec)).join("\n")}${tail}`;
}

function renderQueue(q: QueueExplanation, runSec: number): string {
  const items = q.intervals.slice(0, WHY_INTERVALS_MAX).map((i) => renderInterval(i, runSec)).join("\n");
  const more = q.intervals.length > WHY_INTERVALS_MAX
    ? `\n<li>… and ${q.intervals.length - WHY_INTERVALS_MAX} more (<code>rmqsim explain --queue ${escapeHtml(q.queue)}</code>)</li>`
    : "";
  return `<p class="why-queue">${escapeHtml(q.queue)} <span>— not progressing for ${formatTimeUs(q.notProgressingUs)} in ${q.intervals.length} interval(s)</span></p>
<ul class="why">
${items}${more}
</ul>`;
}

/**
 * The interval's link: it shows the interval with a sixth of its length (at least 1 s) either side, so
 * the highlighted band's edges are in view; the band itself is the interval (seconds, µs precision).
 */
function renderInterval(i: ExplainedInterval, runSec: number): string {
  const range = `${formatTimeUs(i.startUs)} – ${i.ongoing ? "end of run" : formatTimeUs(i.endUs)}`;
  const [from, to] = [i.startUs / 1e6, i.endUs / 1e6];
  const pad = Math.max(1, (to - from) / 6);
  const view = `data-from="${r3(Math.max(0, from - pad))}" data-to="${r3(Math.min(runSec, to + pad))}"`;
  const link = `<a class="why-link rmq-goto" href="#charts" data-target="charts" ${view} data-hl-from="${from}" data-hl-to="${to}">${range}</a>`;
  const settings = i.settings.length === 0
    ? ""
    : `<details><summary>what would change it</summary><ul>${i.settings.map((a) => `<li>${a.direction} <code>${escapeHtml(a.setting)}</code>: ${escapeHtml(a.effect)}</li>`).join("")}</ul></details>`;
  return `<li>${link} <code class="why-reason">${escapeHtml(i.reason)}</code> (${i.progress}) ${escapeHtml(i.sentence)}${settings}</li>`;
}

function r3(v: number): number {
  return Math.round(v * 1000) / 1000;
}

/** Queues listed under the flow-control chart (the most blocked first). */
export const BLOCKED_QUEUES_MAX = 50;
const FLOW_REASONS = ["flowControl.count", "flowControl.size", "flowControl.span"] as const;

/**
 * Under the flow-control chart: the share of the run each queue had its pulls deferred by flow control
 * (count / size / span, and any of them), from the explainer's intervals — stretches of a second or more,
 * deferrals less than FLOW_GAP_US apart counted as one. Queues never blocked are left out.
 */
export function renderBlockedShares(why: ExplainedRun | undefined, runUs: number): string {
  if (why === undefined || runUs <= 0) return "";
  const rows = why.queues.map((q) => {
    const by = FLOW_REASONS.map((r) => coveredUs(q.intervals.filter((i) => i.reason === r)) / runUs);
    const any = coveredUs(q.intervals.filter((i) => (FLOW_REASONS as readonly string[]).includes(i.reason))) / runUs;
    return { q, by, any };
  }).filter((x) => x.any > 0).sort((a, b) => b.any - a.any);
  if (rows.length === 0) return `<p class="meta">No queue had its pulls deferred by flow control for a second or more.</p>`;
  const pct = (v: number) => `<td class="num">${(Math.round(v * 1000) / 10).toFixed(1)}</td>`;
  const body = rows.slice(0, BLOCKED_QUEUES_MAX).map((x) => `<tr><td>${escapeHtml(x.q.group)}</td><td>${escapeHtml(x.q.queue)}</td>${x.by.map(pct).join("")}${pct(x.any)}</tr>`).join("\n");
  const more = rows.length > BLOCKED_QUEUES_MAX ? `<p class="meta">… and ${rows.length - BLOCKED_QUEUES_MAX} more (why.json, <code>rmqsim explain</code>).</p>` : "";
  return `<table class="blocked"><caption>Share of the run each queue was blocked by flow control (%, stretches of 1 s or more)</caption>
<thead><tr><th>group</th><th>queue</th><th>count</th><th>size</th><th>span</th><th>any</th></tr></thead>
<tbody>
${body}
</tbody></table>${more}`;
}
