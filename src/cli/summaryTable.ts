// The human form of a run's result: a compact two-column table. It reads only the summary and
// run.json data that --json would print, so the two outputs cannot disagree. Broadcasting groups get a
// line of their instances' consumed / dropped; orderly groups a line of suspends, the longest head
// block and the queues' final lock states. With replicas: a line of the broker nodes' roles over time and
// the pulls each served, and — once there are duplicates — one of their causes. Every run: the cache's
// peak memory per consumer (bodies and heap estimate) and consume capacity against the offered load;
// a group whose pulls got error answers (NO_PERMISSION, time-outs, …), a line of them by code.
import { failureLines } from "../checks/failureDetail.ts";
import { roleTimelineText } from "../metrics/brokerNodes.ts";
import { HEAP_BYTES_PER_MESSAGE } from "../metrics/heapEstimate.ts";
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
    ["messages", join([
      ["produced", m.produced], ["consumed", m.consumed], ["duplicates", m.duplicates], ["lost", m.lost],
      ...(m.dropped > 0 ? [["of which dropped", m.dropped] as [string, number]] : []),
      ...(m.skippedAtStart > 0 ? [["skipped at start", m.skippedAtStart] as [string, number]] : []), ["dlq", m.dlq],
    ])],
    ...replayRows(summary),
    ...broadcastRows(summary),
    ...orderlyRows(summary),
    ...pullErrorRows(summary),
    ...(summary.store.commitLogFilesDeleted + summary.store.writesRefused + summary.store.produceFailed > 0
      ? [["store", join([["commit-log files deleted", summary.store.commitLogFilesDeleted], ["sends refused", summary.store.writesRefused], ["sends failed", summary.store.produceFailed]])] as [string, string]]
      : []),
    [
      "lag",
      `committed ${n(summary.lag.committed.final)} final / ${n(summary.lag.committed.max)} max   ` +
        `unpulled ${n(summary.lag.unpulled.final)} final / ${n(summary.lag.unpulled.max)} max   ` +
        `cached ${n(m.cached)} final / ${n(summary.cache.countPerQueueMax)} max per queue`,
    ],
    ...nodeRows(summary),
    ...memoryRows(summary),
    ...capacityRows(summary),
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
    for (const e of failed) {
      rows.push(["", `FAILED ${e.expression}  (actual ${e.actual})`]);
      // The clause(s) that missed, with threshold, by how much, and when/where (as `check` prints them).
      for (const line of failureLines(e)) rows.push(["", `  ${line}`]);
    }
  }
  rows.push(["report", reportPath]);
  const width = Math.max(...rows.map(([label]) => label.length));
  return rows.map(([label, text]) => `${label.padEnd(width)}  ${text}`.trimEnd()).join("\n") + "\n";
}

const MIB = 2 ** 20;

/**
 * The message cache's peak per consumer instance: body bytes (what pullThresholdSizeForQueue bounds)
 * and the heap estimate, which adds RocketMQ's objects around each cached message (heapEstimate.ts).
 */
function memoryRows(summary: Summary): [string, string][] {
  const c = summary.cache;
  return [["memory", `cache per consumer (peak): bodies ${mib(c.bytesPerConsumerMax / MIB)}, heap estimate ${mib(c.heapEstimateMiB)} (bodies + ${n(HEAP_BYTES_PER_MESSAGE)} B of objects per cached message)`]];
}

/**
 * Consume capacity against the offered load, from the summary alone: capacity = consume threads (every
 * instance's, summed) × messages per listener call / mean listener time; offered = messages to consume
 * (every group's, backlog included) per simulated second; pool busy = listener time spent per second
 * (calls × mean time / duration, Little's law) over the threads. The model has no CPU contention: a
 * thread costs nothing, so capacity grows with threads without limit here, unlike on a real machine.
 */
function capacityRows(summary: Summary): [string, string][] {
  const threads = summary.perConsumer.reduce((a, c) => a + c.consumeThreads, 0);
  const call = summary.latency.consume;
  const seconds = summary.simulatedMs / 1000;
  if (threads === 0 || call.count === 0 || call.meanMs <= 0 || seconds <= 0) return [];
  const consumedOk = summary.throughput.consumedPerSec.mean * seconds;
  const perCall = Math.max(1, consumedOk / call.count);
  const capacity = (threads * perCall * 1000) / call.meanMs;
  const offered = summary.messages.produced / seconds;
  const busy = (call.count * call.meanMs) / 1000 / seconds / threads;
  const batch = perCall > 1.05 ? ` × ${perCall.toFixed(1)} messages per call` : "";
  return [[
    "capacity",
    `${n(threads)} threads${batch} / ${ms(call.meanMs)} mean consume time = ${fixed(capacity)} msg/s   ` +
      `offered ${fixed(offered)} msg/s (${percent(offered / capacity)} of capacity)   pool ${percent(busy)} busy`,
  ]];
}

function mib(x: number): string {
  return `${x >= 100 ? n(Math.round(x)) : x.toFixed(2)} MiB`;
}

function percent(x: number): string {
  return `${Math.round(x * 100)} %`;
}

/** With replicas and duplicates: the duplicates by cause, all groups. */
function replayRows(summary: Summary): [string, string][] {
  const r = summary.replays;
  if (r === undefined || summary.messages.duplicates === 0) return [];
  return [["replays", join([["rollback", r.rollback], ["reset", r.reset], ["rebalance", r.rebalance], ["retry replay", r.retryReplay]])]];
}

/** With replicas: each node of a group with replicas, its roles over time, the pulls it served and any retry replays. */
function nodeRows(summary: Summary): [string, string][] {
  const nodes = summary.brokerNodes;
  if (nodes === undefined || nodes.length === 0) return [];
  const text = nodes.map((x) => `${x.name} ${roleTimelineText(x.roleTimeline)} served ${n(x.servedPulls)}${x.retryReplays > 0 ? ` retry replays ${n(x.retryReplays)}` : ""}`);
  return [["nodes", text.join("; ")]];
}

/** Instances shown per broadcasting group (the summary has them all). */
const INSTANCES_SHOWN_MAX = 8;

/** Per broadcasting group: each instance's consumed and dropped. */
function broadcastRows(summary: Summary): [string, string][] {
  return summary.groups.flatMap((g): [string, string][] => {
    if (g.instances === null) return [];
    const shown = g.instances.slice(0, INSTANCES_SHOWN_MAX).map((i) => `${i.clientId} consumed ${n(i.consumed)} dropped ${n(i.dropped)}`);
    const more = g.instances.length - shown.length;
    return [[`broadcast ${g.group}`, shown.join("; ") + (more > 0 ? `; … ${more} more` : "")]];
  });
}

/** Orderly groups, all queues: suspends, the longest head block, and how many queues end in each lock state. */
function orderlyRows(summary: Summary): [string, string][] {
  const queues = summary.perQueue.filter((q) => q.orderly !== null);
  if (queues.length === 0) return [];
  const states = new Map<string, number>();
  for (const q of queues) if (!q.topic.startsWith("%")) states.set(q.orderly!.lockState, (states.get(q.orderly!.lockState) ?? 0) + 1);
  const lockText = [...states].map(([state, count]) => `${state} ${n(count)}`).join(", ");
  return [["orderly", `suspends ${n(summary.orderly.suspends)}   longest head block ${ms(summary.orderly.longestHeadBlockMs)}   queues' lock at the end: ${lockText}`]];
}

/** Pull answers other than the four a broker serves (SUCCESS, PULL_NOT_FOUND, PULL_RETRY_IMMEDIATELY, PULL_OFFSET_MOVED), per group. */
function pullErrorRows(summary: Summary): [string, string][] {
  const served = new Set(["SUCCESS", "PULL_NOT_FOUND", "PULL_RETRY_IMMEDIATELY", "PULL_OFFSET_MOVED"]);
  return summary.groups.flatMap((g): [string, string][] => {
    const errors = Object.entries(g.pulls?.byCode ?? {}).filter(([code, count]) => !served.has(code) && count > 0);
    return errors.length === 0 ? [] : [["pull errors", `${g.group}: ${join(errors)}`]];
  });
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
