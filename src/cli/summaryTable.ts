// The human form of a run's result: a compact two-column table. It reads only the summary and
// run.json data that --json would print, so the two outputs cannot disagree.
import type { Summary } from "../metrics/summary.ts";
import { formatDurationUs } from "../scenario/units.ts";
import type { RunInfo } from "./computeRun.ts";

export function formatRunTable(summary: Summary, run: RunInfo, reportPath: string): string {
  const m = summary.messages;
  const fc = summary.flowControl;
  const e2e = summary.latency.endToEnd;
  const consume = summary.latency.consume;
  const state = summary.complete ? "complete" : `INCOMPLETE (${summary.stopReason || "stopped"})`;
  const rows: [string, string][] = [
    ["scenario", `${summary.scenario}  seed ${summary.seed}  profile ${summary.profile}  ${formatDurationUs(summary.simulatedMs * 1000)} simulated, ${state}`],
    ["messages", join([["produced", m.produced], ["consumed", m.consumed], ["duplicates", m.duplicates], ["lost", m.lost], ...(m.skippedAtStart > 0 ? [["skipped at start", m.skippedAtStart] as [string, number]] : []), ["dlq", m.dlq]])],
    ...(summary.store.commitLogFilesDeleted + summary.store.writesRefused + summary.store.produceFailed > 0
      ? [["store", join([["commit-log files deleted", summary.store.commitLogFilesDeleted], ["sends refused", summary.store.writesRefused], ["sends failed", summary.store.produceFailed]])] as [string, string]]
      : []),
    [
      "lag",
      `committed ${n(summary.lag.committed.final)} final / ${n(summary.lag.committed.max)} max   ` +
        `unpulled ${n(summary.lag.unpulled.final)} final / ${n(summary.lag.unpulled.max)} max   ` +
        `cached ${n(m.cached)} final / ${n(summary.cache.countPerQueueMax)} max per queue`,
    ],
    ["flow control", `${join([["count", fc.count], ["size", fc.size], ["span", fc.span], ["paused", fc.paused]])}   (total ${n(fc.total)})`],
    [
      "latency",
      `end-to-end p50 ${ms(e2e.p50Ms)} p99 ${ms(e2e.p99Ms)}   consume p50 ${ms(consume.p50Ms)} p99 ${ms(consume.p99Ms)}`,
    ],
    ["throughput", `${fixed(summary.throughput.consumedPerSec.mean)} msg/s consumed (mean), ${fixed(summary.throughput.producedPerSec.mean)} produced`],
    ["wall time", `${(run.wallMs / 1000).toFixed(2)} s   ${n(run.eventsPerSec)} events/s   speed-up ${fixed(run.speedup)}× simulated/wall`],
  ];
  const failed = summary.expectations.filter((e) => !e.ok);
  if (summary.expectations.length > 0) {
    rows.push(["expect", `${summary.expectations.length - failed.length} of ${summary.expectations.length} hold`]);
    for (const e of failed) rows.push(["", `FAILED ${e.expression}  (actual ${e.actual})`]);
  }
  rows.push(["report", reportPath]);
  const width = Math.max(...rows.map(([label]) => label.length));
  return rows.map(([label, text]) => `${label.padEnd(width)}  ${text}`.trimEnd()).join("\n") + "\n";
}

function join(pairs: [string, number][]): string {
  return pairs.map(([label, value]) => `${label} ${n(value)}`).join("   ");
}

/** Thousands separated by commas, independent of the machine's locale. */
function n(x: number): string {
  const [whole, frac] = String(Math.round(x * 1000) / 1000).split(".");
  const grouped = whole!.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  return frac === undefined ? grouped : `${grouped}.${frac}`;
}

function fixed(x: number): string {
  return x >= 100 ? n(Math.round(x)) : x.toFixed(1);
}

function ms(x: number): string {
  return `${x >= 100 ? n(Math.round(x)) : x.toFixed(2)} ms`;
}
