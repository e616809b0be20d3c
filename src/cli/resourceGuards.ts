// Resource guards: --max-memory and --max-events for run, check and sweep. The model never reads
// memory; the simulation worker's callback does (memoryOver below) and asks the run to stop, the way
// Ctrl-C does, so a completed run is unchanged and a stopped one writes a partial report (exit 3).
//
// Memory is measured where it is spent. `run` has one simulation thread: the limit applies to the
// process's resident set (RSS), what the OOM killer looks at. `check` and `sweep` run W worker threads
// at once; each run gets 1/W of the limit, measured on its own thread (V8 heap + external memory: the
// typed arrays of the store and the fates), so whether a run hits the guard does not depend on which
// other runs happen to share the process; the process's RSS over the whole limit stops a run too, as
// a backstop for what no thread accounts for.
import { totalmem } from "node:os";
import type { Model } from "../scenario/types.ts";
import { formatBytes, parseBytes } from "../scenario/units.ts";
import { BadInputError, ResourceLimitError } from "./errors.ts";

/** Without --max-memory: this share of the machine's memory (or of the cgroup's limit, if lower)… */
export const MEMORY_SHARE_DEFAULT = 0.75;
/** …leaving the rest to the OS, the page cache and whatever else runs. */
const MEMORY_FLOOR = 64 * 1024 ** 2;
/** What Node, the loaded model and an empty cluster take before any message is stored (measured ~90 MiB). */
export const BASE_BYTES = 100 * 1024 ** 2;
/**
 * A backlog message is stored before the first event, in one step nothing can interrupt: its columns
 * in the consume queue (~40 bytes: born time, commit-log position, body size, tag, origin) and its
 * fate per group. Measured 44 bytes (one group) to 48 (three) per message; rounded up.
 */
export const BACKLOG_BYTES_PER_MESSAGE = 48;
export const BACKLOG_BYTES_PER_MESSAGE_GROUP = 4;
/**
 * A produced message nobody consumes costs ~12 bytes once the reclaimer has compacted its chunk
 * (measured at 10^7 msg/s with a listener that never returns); rounded up. A run whose consumers keep
 * up keeps far less: memory follows the backlog, not the history.
 */
export const PRODUCED_BYTES_PER_MESSAGE = 16;

/**
 * Memory a run keeps back from --max-memory while simulating, for what follows the stop: with a report
 * (`run`), the final accounting, loading the chart renderer and drawing the charts (~50 MiB measured):
 * 1/4 of the limit, at most 96 MiB; without (`check`, `sweep`: the summary only, ~10 MiB), 1/16, at
 * most 32 MiB. So the process's peak stays under the limit, not just near it.
 */
export function reportReserve(limitBytes: number, rendering = true): number {
  return rendering ? Math.min(Math.floor(limitBytes / 4), 96 * 1024 ** 2) : Math.min(Math.floor(limitBytes / 16), 32 * 1024 ** 2);
}

/** The default --max-memory: 75 % of the machine's memory, or of the cgroup's limit when that is lower. */
export function defaultMaxMemory(total: number = totalmem(), constrained: number | undefined = process.constrainedMemory?.()): number {
  const usable = constrained !== undefined && constrained > 0 ? Math.min(total, constrained) : total;
  return Math.floor(usable * MEMORY_SHARE_DEFAULT);
}

/** "2GiB", "512MiB" → bytes; at least 64 MiB (less cannot hold Node itself). */
export function parseMaxMemory(text: string): number {
  const bytes = parseBytes(text, "--max-memory");
  if (bytes < MEMORY_FLOOR) throw new BadInputError("--max-memory", `must be at least 64MiB, got "${text}"`);
  return bytes;
}

/** A whole number of events ≥ 1: digits, optionally with _ separators or an exponent (1e9). */
export function parseMaxEvents(text: string): number {
  const n = /^\s*[\d_.eE+]+\s*$/.test(text) ? Number(text.replace(/_/g, "")) : NaN;
  if (!Number.isSafeInteger(n) || n < 1) throw new BadInputError("--max-events", `must be a whole number of events ≥ 1, e.g. 1e9, got "${text}"`);
  return n;
}

/** The limits every run of a command gets, as they go into a RunRequest. */
export interface RunLimits {
  maxEvents?: number;
  maxMemoryBytes: number;
}

export function runLimits(options: { maxMemory?: string; maxEvents?: string }): RunLimits {
  return {
    maxMemoryBytes: options.maxMemory === undefined ? defaultMaxMemory() : parseMaxMemory(options.maxMemory),
    ...(options.maxEvents !== undefined ? { maxEvents: parseMaxEvents(options.maxEvents) } : {}),
  };
}

/** What a scenario will hold at least (its backlog) and at most (everything produced, never consumed). */
export interface MemoryEstimate {
  backlogMessages: number;
  backlogBytes: number;
  producedMessages: number;
  producedBytes: number;
}

export function estimateMemory(model: Model): MemoryEstimate {
  let backlogMessages = 0;
  let backlogBytes = 0;
  let producedMessages = 0;
  for (const t of model.topics) {
    if (!t.produce) continue;
    const queues = t.brokers.length * t.queuesPerBroker;
    const groups = model.groups.filter((g) => g.subscriptions.some((s) => s.topic === t.index)).length;
    const backlog = t.produce.backlog * queues;
    backlogMessages += backlog;
    backlogBytes += backlog * (BACKLOG_BYTES_PER_MESSAGE + BACKLOG_BYTES_PER_MESSAGE_GROUP * groups);
    const rate = Math.max(t.produce.rate, ...t.produce.rateChanges.map((c) => c.rate));
    producedMessages += (rate * model.durationUs) / 1e6;
  }
  return { backlogMessages, backlogBytes, producedMessages: Math.round(producedMessages), producedBytes: producedMessages * PRODUCED_BYTES_PER_MESSAGE };
}

/**
 * Checks a validated scenario against the memory limit before anything is built. A backlog is stored
 * in one step before the first event, where no guard can look, so one that cannot fit is refused now
 * (ResourceLimitError, exit 3) instead of being allocated. Returns a warning (or null) when what the
 * producers could store over the run is far beyond the limit: the run may stop early.
 */
export function guardScenario(model: Model, limitBytes: number, where: string, workers = 1): string | null {
  const e = estimateMemory(model);
  const share = limitBytes / workers;
  const limit = workers > 1 ? `${formatBytes(share)}, a run's share (1/${workers}) of --max-memory ${formatBytes(limitBytes)}` : `--max-memory ${formatBytes(limitBytes)}`;
  const need = BASE_BYTES + e.backlogBytes;
  if (e.backlogMessages > 0 && need > share) {
    throw new ResourceLimitError(
      `${where}: the backlog of ${count(e.backlogMessages)} messages needs about ${formatBytes(need)} before the first event, ` +
        `more than ${limit}; raise --max-memory or lower produce.backlog`,
    );
  }
  if (BASE_BYTES + e.backlogBytes + e.producedBytes > FAR_BEYOND * share) {
    return (
      `${where}: the producers may store ${count(e.producedMessages)} messages over the run (about ${formatBytes(e.producedBytes)} ` +
      `if the consumers fall behind), far beyond ${limit}; if they do, the run stops early (exit 3)`
    );
  }
  return null;
}

/** How far past the limit the worst case must be before the up-front warning: healthy runs keep far less. */
const FAR_BEYOND = 4;

/** 12345678 → "12 345 678". */
function count(n: number): string {
  return String(Math.round(n)).replace(/\B(?=(\d{3})+(?!\d))/g, " ");
}

/** The memory reading of `run`'s single simulation thread: the process's RSS against the whole limit. */
export function processMemoryOver(rssBytes: () => number = () => process.memoryUsage.rss()): (limitBytes: number) => string | null {
  return (limit) => {
    const rss = rssBytes();
    return rss > limit ? `the process's resident memory reached ${formatBytes(rss)}` : null;
  };
}

/**
 * The memory reading of one of `workers` pool threads: its own heap and external memory against 1/workers
 * of the limit, and the process's RSS against the whole limit.
 */
export function threadMemoryOver(workers: number, usage: () => NodeJS.MemoryUsage = () => process.memoryUsage()): (limitBytes: number) => string | null {
  return (limit) => {
    const m = usage();
    const own = m.heapTotal + m.external;
    const share = limit / workers;
    if (own > share) return `this run's worker thread held ${formatBytes(own)}, more than its share (1/${workers}) ${formatBytes(share)}`;
    return m.rss > limit ? `the process's resident memory reached ${formatBytes(m.rss)}` : null;
  };
}
