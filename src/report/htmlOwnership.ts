// The "Ownership" and "Faults" sections of report.html, static markup (readable with scripts off):
// per queue its orphan time, owners and duplicates, and its owner history as a horizontal bar across
// the run — under it, for an ORDERLY group's queue that had locks, each owner's lock state at the broker
// (held, expired, not locked) as a thin strip; then what each fault did.
import type { RunResult } from "../run/simulate.ts";
import type { LockState } from "../metrics/Ownership.ts";
import type { Summary } from "../metrics/summary.ts";
import { consumerColor } from "./chartSpecs.ts";
import { formatNumber } from "./csv.ts";
import { escapeHtml, formatDisplay } from "./htmlSummary.ts";
import { NO_REASON, whyKey } from "./htmlWhy.ts";
import { withClients } from "./faultClients.ts";

/** Queues listed (a run has one row per group × queue, retry queues included). */
export const OWNERSHIP_QUEUES_MAX = 1000;
/** Owner intervals drawn per queue; a rebalance storm can produce thousands (summary.json has all). */
export const OWNERSHIP_SEGMENTS_MAX = 500;
/** Lock-state stretches drawn per queue (summary.json has all). */
export const LOCK_SEGMENTS_MAX = 500;
/** How each lock state is drawn (a strip of its own, so no consumer colour is reused). */
const LOCK_FILL: Record<LockState, string> = {
  held: "#333",
  expired: "repeating-linear-gradient(135deg, #f0a030 0 3px, #fff 3px 5px)",
  "not locked": "#ddd",
};
const LOCK_MEANING: Record<LockState, string> = {
  held: "held (locked at the broker, refreshed within 30 s)",
  expired: "expired (still locked, but not refreshed for 30 s: consumption stops)",
  "not locked": "not locked (consumption waits for the lock)",
};
const UNKNOWN_OWNER_COLOR = "#7f7f7f";

type QueueRow = Summary["perQueue"][number];

export const OWNERSHIP_STYLE = `
table.ownership { width: 100%; } table.ownership th, table.ownership td { white-space: nowrap; }
.own-cell { width: 100%; min-width: 320px; vertical-align: middle; }
.own-axis { position: relative; height: 16px; margin-top: 2px; font-weight: normal; font-size: 11px; color: #555; }
.own-axis span { position: absolute; top: 0; transform: translateX(-50%); }
.own-bar { position: relative; height: 14px; border: 1px solid #ccc; background: repeating-linear-gradient(135deg, #fff 0 3px, #ececec 3px 5px); }
.own-seg { position: absolute; top: 0; bottom: 0; min-width: 1px; box-shadow: inset -1px 0 0 rgba(255,255,255,0.8); }
.own-fault { position: absolute; top: -3px; bottom: -3px; width: 0; border-left: 2px solid #d62728; }
.own-keys { display: flex; flex-wrap: wrap; gap: 4px 14px; font-size: 13px; margin: 6px 0; }
.own-key i { display: inline-block; width: 14px; height: 10px; margin-right: 5px; vertical-align: baseline; }
.own-lock { position: relative; height: 5px; margin-top: 1px; border: 1px solid #ccc; border-top: none; background: #fff; }
.own-lock span { position: absolute; top: 0; bottom: 0; min-width: 1px; }
`;

/** "G1 TopicTest@broker-a#3" style label of a summary queue row (the queue part as in timeseries.csv). */
export function queueRowLabel(q: QueueRow): string {
  return `${q.topic}@${q.brokerName}#${q.queueId}`;
}

/**
 * `dominant`: each queue's dominant reason by whyKey (htmlWhy.ts), from the explainer's account of the
 * run; given, the table gets a "held back most by" column ("—" where nothing held the queue back).
 */
export function renderOwnership(result: RunResult, dominant?: ReadonlyMap<string, string>): string {
  const s = result.summary;
  const runMs = Math.max(1, s.simulatedMs);
  // A consumer's colour follows its place in the series, as on the consumers chart.
  const slot = new Map(result.series.perConsumer.map((c, i) => [c.clientId, i]));
  const slotOf = (cid: string) => slot.get(cid) ?? Number.MAX_SAFE_INTEGER;
  const colorOf = (cid: string) => (slot.has(cid) ? consumerColor(slot.get(cid)!) : UNKNOWN_OWNER_COLOR);
  const queues = s.perQueue.slice(0, OWNERSHIP_QUEUES_MAX);
  const owners = [...new Set(queues.flatMap((q) => q.ownerHistory.map((h) => h.clientId)))];
  owners.sort((a, b) => slotOf(a) - slotOf(b) || (a < b ? -1 : a > b ? 1 : 0));
  const keys = owners
    .map((cid) => `<span class="own-key"><i style="background:${colorOf(cid)}"></i>${escapeHtml(cid)}</span>`)
    .join("");
  const rows = queues.map((q) => ownershipRow(q, runMs, colorOf, s.faults, dominant)).join("\n");
  const more = s.perQueue.length > queues.length ? `<p>… and ${s.perQueue.length - queues.length} more queues (summary.json lists them).</p>` : "";
  const anyLocks = queues.some((q) => (q.orderly?.locks.length ?? 0) > 0);
  const lockText = anyLocks
    ? " For an orderly queue, the thin strip under the bar is each owner's lock at the broker, by state; hover it for the owner and times."
    : "";
  const lockKeys = anyLocks
    ? `<div class="own-keys">lock: ${(Object.keys(LOCK_FILL) as LockState[])
      .map((st) => `<span class="own-key"><i style="background:${LOCK_FILL[st]}"></i>${escapeHtml(LOCK_MEANING[st])}</span>`).join("")}</div>`
    : "";
  return `<h2 id="ownership">Ownership</h2>
<p class="meta">${formatDisplay(s.ownershipChanges)} ownership changes · ${formatDisplay(s.orphanQueueSeconds)} queue-seconds with no owner. Each bar runs from 0 to ${formatDisplay(runMs / 1000)} s: who held the queue when, coloured per consumer as on the consumers chart; hatched gaps had no owner; red lines are faults. Hover a segment for its client id, times and the duplicates its owner consumed. Where two owners briefly overlap (a rebalance hand-over), the later one is drawn on top.${lockText}</p>
<div class="own-keys">${keys}</div>${lockKeys}
<table class="ownership"><thead><tr><th>group</th><th>queue</th><th>no owner (s)</th><th>owners</th><th>changes</th><th>duplicates</th>${dominant !== undefined ? `<th title="the reason (rmqsim explain) that held the queue back for the most time; see Why">held back most by</th>` : ""}<th class="own-cell">owner history (s)${axisTicks(runMs)}</th></tr></thead>
<tbody>
${rows}
</tbody></table>${more}`;
}

function ownershipRow(q: QueueRow, runMs: number, colorOf: (cid: string) => string, faults: Summary["faults"], dominant: ReadonlyMap<string, string> | undefined): string {
  const label = queueRowLabel(q);
  const history = q.ownerHistory;
  const distinct = new Set(history.map((h) => h.clientId)).size;
  const duplicates = history.reduce((a, h) => a + h.duplicates, 0);
  const segments = history.slice(0, OWNERSHIP_SEGMENTS_MAX).map((h) => {
    const toMs = h.toMs ?? runMs;
    const left = pct(h.fromMs, runMs);
    const width = Math.max(0, pct(toMs, runMs) - left);
    const until = h.toMs === null ? "end of run" : `${formatDisplay(h.toMs / 1000)} s`;
    const title = `${h.clientId}: ${formatDisplay(h.fromMs / 1000)} s – ${until} · ${formatDisplay(h.duplicates)} duplicates`;
    return `<span class="own-seg" style="left:${formatNumber(left)}%;width:${formatNumber(width)}%;background:${colorOf(h.clientId)}" title="${escapeHtml(title)}"></span>`;
  });
  const marks = faults
    .filter((f) => f.atMs <= runMs)
    .map((f) => `<span class="own-fault" style="left:${formatNumber(pct(f.atMs, runMs))}%" title="${escapeHtml(`${f.label} at ${formatDisplay(f.atMs / 1000)} s`)}"></span>`);
  const cut = history.length - segments.length;
  const barTitle = cut > 0 ? ` title="${cut} more owner intervals not drawn (summary.json has them)"` : "";
  return `<tr><td>${escapeHtml(q.group)}</td><td>${escapeHtml(label)}</td>${num(q.orphanSeconds)}${num(distinct)}${num(Math.max(0, history.length - 1))}${num(duplicates)}`
    + (dominant !== undefined ? `<td class="own-why">${escapeHtml(dominant.get(whyKey(q.group, label)) ?? NO_REASON)}</td>` : "")
    + `<td class="own-cell"><div class="own-bar" data-queue="${escapeHtml(`${q.group} ${label}`)}"${barTitle}>${segments.join("")}${marks.join("")}</div>${lockStrip(q, runMs)}</td></tr>`;
}

/** An orderly queue's lock states over the run, under its owner bar; nothing for a queue without locks. */
function lockStrip(q: QueueRow, runMs: number): string {
  const locks = q.orderly?.locks ?? [];
  if (locks.length === 0) return "";
  const spans = locks.slice(0, LOCK_SEGMENTS_MAX).map((l) => {
    const left = pct(l.fromMs, runMs);
    const width = Math.max(0, pct(l.toMs ?? runMs, runMs) - left);
    const until = l.toMs === null ? "end of run" : `${formatDisplay(l.toMs / 1000)} s`;
    const title = `${l.clientId}: lock ${l.state}, ${formatDisplay(l.fromMs / 1000)} s – ${until}`;
    return `<span class="lock-${l.state.replace(" ", "-")}" style="left:${formatNumber(left)}%;width:${formatNumber(width)}%;background:${LOCK_FILL[l.state]}" title="${escapeHtml(title)}"></span>`;
  });
  const cut = locks.length - spans.length;
  const title = `lock at the end: ${q.orderly!.lockState}${cut > 0 ? `; ${cut} more lock stretches not drawn (summary.json has them)` : ""}`;
  return `<div class="own-lock" title="${escapeHtml(title)}">${spans.join("")}</div>`;
}

/** The faults that hit, in order; empty when the run had none. */
export function renderFaults(summary: Summary, labels: ReadonlyMap<string, string> = new Map()): string {
  if (summary.faults.length === 0) return "";
  const rows = summary.faults.map((f) => {
    const end = f.endMs === null ? "—" : formatDisplay(f.endMs / 1000);
    return `<tr>${num(f.atMs / 1000)}<td>${escapeHtml(f.kind)}</td><td>${escapeHtml(withClients(f.label, labels))}</td><td>${escapeHtml(f.effect)}</td><td class="num">${end}</td></tr>`;
  });
  return `<h2>Faults</h2>
<table class="faults"><thead><tr><th>at (s)</th><th>kind</th><th>label</th><th>effect</th><th>end (s)</th></tr></thead>
<tbody>
${rows.join("\n")}
</tbody></table>`;
}

/** Time labels over the bars: about six, at 1, 2 or 5 × 10^k seconds. */
function axisTicks(runMs: number): string {
  const runSec = runMs / 1000;
  const raw = runSec / 6;
  const magnitude = Math.pow(10, Math.floor(Math.log10(raw)));
  const stepSec = [1, 2, 5, 10].map((m) => m * magnitude).find((v) => v >= raw) ?? 10 * magnitude;
  const spans: string[] = [];
  for (let i = 0; i * stepSec <= runSec + 1e-9 && i <= 20; i++) {
    spans.push(`<span style="left:${formatNumber(pct(i * stepSec * 1000, runMs))}%">${formatDisplay(i * stepSec)}</span>`);
  }
  return `<div class="own-axis">${spans.join("")}</div>`;
}

function num(v: number): string {
  return `<td class="num">${formatDisplay(v)}</td>`;
}

/** Share of the run, % (formatNumber rounds it to 3 decimals, which keeps the markup byte-stable). */
function pct(ms: number, runMs: number): number {
  return Math.min(100, Math.max(0, (ms / runMs) * 100));
}

