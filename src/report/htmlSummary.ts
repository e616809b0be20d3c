// The summary as HTML tables (static markup: readable even with scripts off). Broadcasting groups get a
// table of their instances' accounts, orderly groups one of their queues' suspends, blocks and locks.
import type { RunResult } from "../run/simulate.ts";
import type { LatencySummary } from "../metrics/summary.ts";
import { roleTimelineText } from "../metrics/brokerNodes.ts";
import { formatNumber } from "./csv.ts";

export function escapeHtml(s: string): string {
  return s.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;").replaceAll('"', "&quot;").replaceAll("'", "&#39;");
}

/**
 * A number for people to read: formatNumber's digits (at most 3 decimals, never an exponent) with the
 * integer part grouped by thousands, "1,234,567.5" — the charts' tick labels use the same en-US groups.
 * CSV and JSON keep plain digits for tools.
 */
export function formatDisplay(v: number): string {
  const text = formatNumber(v);
  const m = /^(-?)(\d+)(\.\d+)?$/.exec(text);
  if (m === null) return text;
  return `${m[1]}${m[2]!.replace(/\B(?=(\d{3})+(?!\d))/g, ",")}${m[3] ?? ""}`;
}

type Cell = string | number;

function cell(v: Cell): string {
  return typeof v === "number" ? `<td class="num">${formatDisplay(v)}</td>` : `<td>${escapeHtml(v)}</td>`;
}

function table(caption: string, head: string[], rows: Cell[][]): string {
  const th = head.map((h) => `<th>${escapeHtml(h)}</th>`).join("");
  const thead = head.length > 0 ? `<thead><tr>${th}</tr></thead>\n` : "";
  const body = rows.map((r) => `<tr>${r.map(cell).join("")}</tr>`).join("\n");
  return `<table><caption>${escapeHtml(caption)}</caption>\n${thead}<tbody>\n${body}\n</tbody></table>`;
}

/** Orderly queues listed (summary.json has every one). */
export const ORDERLY_QUEUES_MAX = 200;

function latencyRow(name: string, l: LatencySummary): Cell[] {
  return [name, l.count, l.meanMs, l.p50Ms, l.p90Ms, l.p99Ms, l.maxMs];
}

/** Key figures of the run, one small table per topic. */
export function renderSummaryTables(result: RunResult): string {
  const s = result.summary;
  const m = s.messages;
  const cachedSeries = result.series.columns.cached;
  const cachedMax = cachedSeries.reduce((a, v) => (v > a ? v : a), m.cached);
  const tables = [
    table("Run", [], [
      ["scenario", s.scenario], ["seed", s.seed], ["profile", s.profile],
      ["complete", s.complete ? "yes" : `no (${s.stopReason})`], ["simulated (s)", s.simulatedMs / 1000],
      ["events", s.events], ["trace hash", s.traceHash], ["pulls", s.pulls.total],
      ["rebalances (changed)", `${formatDisplay(s.rebalances)} (${formatDisplay(s.rebalanceChanges)})`],
    ]),
    table("Messages", ["", "count"], [
      ["produced", m.produced], ["consumed", m.consumed], ["duplicates", m.duplicates], ["lost", m.lost], ["of which dropped", m.dropped],
      ["skipped at start", m.skippedAtStart], ["dlq", m.dlq], ["sent back", m.sentBack], ["in flight", m.inFlight], ["cached", m.cached],
      ["retrying", m.retrying], ["unpulled", m.unpulled], ["filtered", m.filtered],
    ]),
    table("Store", ["", "count"], [
      ["commit-log files deleted", s.store.commitLogFilesDeleted], ["producer sends refused", s.store.writesRefused],
      ["producer sends failed", s.store.produceFailed],
    ]),
    table("Lag (messages)", ["", "final", "max"], [
      ["lagCommitted", s.lag.committed.final, s.lag.committed.max],
      ["lagUnpulled", s.lag.unpulled.final, s.lag.unpulled.max],
      ["cached in ProcessQueues", m.cached, cachedMax],
    ]),
    table("Flow control (events)", ["kind", "count"], [
      ["count", s.flowControl.count], ["size", s.flowControl.size], ["span", s.flowControl.span],
      ["paused", s.flowControl.paused], ["total", s.flowControl.total],
    ]),
    table("Throughput (msg/s)", ["", "mean", "max"], [
      ["produced", s.throughput.producedPerSec.mean, s.throughput.producedPerSec.max],
      ["consumed", s.throughput.consumedPerSec.mean, s.throughput.consumedPerSec.max],
    ]),
    table("Latency (ms)", ["", "count", "mean", "p50", "p90", "p99", "max"], [
      latencyRow("end to end", s.latency.endToEnd),
      latencyRow("consume", s.latency.consume),
      latencyRow("wait for a worker", s.latency.consumeWait),
    ]),
    table("Consumers", ["clientId", "group", "queues", "cached", "cached bytes", "count/size flow control", "span flow control", "threads", "hung workers"],
      s.perConsumer.map((c) => [c.clientId, c.group, c.queues, c.cached, c.cachedBytes, c.queueFlowControlTimes,
        c.queueMaxSpanFlowControlTimes, c.consumeThreads, c.hungWorkers])),
  ];
  const instances = s.groups.flatMap((g) => (g.instances ?? []).map((i) => ({ group: g.group, ...i })));
  if (instances.length > 0) {
    tables.push(table("Broadcasting instances (each consumes every message)",
      ["group", "clientId", "consumed", "dropped", "duplicates", "lost", "skipped at start", "in flight", "cached", "unpulled"],
      instances.map((i) => [i.group, i.started ? i.clientId : `${i.clientId} (never started)`, i.consumed, i.dropped, i.duplicates, i.lost,
        i.skippedAtStart, i.inFlight, i.cached, i.unpulled])));
  }
  if (s.brokerNodes !== undefined) {
    tables.push(table("Broker nodes (groups with replicas)", ["node", "group", "roles over time", "pulls served", "offsets held", "syncs", "retry replays"],
      s.brokerNodes.map((n) => [n.name, n.broker, roleTimelineText(n.roleTimeline), n.servedPulls, n.offsetsHeld, n.syncs, n.retryReplays])));
  }
  if (s.replays !== undefined) {
    const causes = ["rollback", "reset", "rebalance", "retryReplay"] as const;
    tables.push(table("Duplicates by cause", ["group", "duplicates", ...causes],
      s.groups.map((g) => [g.group, g.duplicates, ...causes.map((c) => g.replays?.[c] ?? 0)])));
  }
  const orderly = s.perQueue.filter((q) => q.orderly !== null);
  if (orderly.length > 0) {
    const shown = orderly.slice(0, ORDERLY_QUEUES_MAX);
    const more = orderly.length > shown.length ? ` — first ${shown.length} of ${orderly.length}` : "";
    tables.push(table(`Orderly queues${more}`, ["group", "queue", "suspends", "longest head block (ms)", "lock at the end"],
      shown.map((q) => [q.group, `${q.topic}@${q.brokerName}#${q.queueId}`, q.orderly!.suspends, q.orderly!.longestHeadBlockMs, q.orderly!.lockState])));
  }
  if (s.expectations.length > 0) {
    tables.push(table("Expectations", ["expression", "ok", "actual"],
      s.expectations.map((e) => [e.expression, e.ok ? "ok" : "FAILED", e.actual])));
  }
  return tables.join("\n");
}
