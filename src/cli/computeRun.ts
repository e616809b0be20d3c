// The compute half of `rmqsim run`: simulate, then render every report file in memory. No file
// system, no terminal: it runs inside the simulation worker in production and inline in tests, with
// the same code either way, and hands back a Map of file name → content for the CLI to write.
import type { RunResult, SimulateOptions } from "../run/simulate.ts";
import { explainAlongside, type ExplainedRun } from "../explain/explain.ts";
import type { Summary } from "../metrics/summary.ts";
import { formatBytes } from "../scenario/units.ts";
import { reportReserve } from "./resourceGuards.ts";
import { sweepMetrics } from "../sweep/metrics.ts";
import type { RunMetrics } from "../sweep/types.ts";

/** What to run; plain data so it can cross into a worker thread. */
export interface RunRequest {
  /** The raw scenario JSON with --set / --seed / --duration already applied. */
  scenario: unknown;
  /** Capture every trace record and write trace.jsonl. */
  trace: boolean;
  /** Render the PNG charts (off: summary, CSV and HTML only). */
  charts: boolean;
  /** Wall-clock start, ISO 8601, for run.json. */
  startedAt: string;
  /** false: summary only, no rendering (rmqsim check, sweep). Default true. */
  report?: boolean;
  /** Set: also compute the sweep metrics, discarding samples up to this time (µs). */
  sweepWarmupUs?: number;
  /** Run the invariant and conservation checks every this much virtual time, µs (absent or 0: at the end only). */
  checkEveryUs?: number;
  /** --max-events: stop (stopReason "maxEvents") after this many events (absent: SCENARIO_DEFAULTS.maxEvents). */
  maxEvents?: number;
  /** --max-memory: stop (stopReason "maxMemory") once ComputeDeps.memoryOver says memory passed this. */
  maxMemoryBytes?: number;
}

/** Wall-clock facts about one run: written to run.json, never into summary.json. */
export interface RunInfo {
  startedAt: string;
  /** Wall time spent simulating, ms (rendering excluded). */
  wallMs: number;
  simulatedMs: number;
  events: number;
  eventsPerSec: number;
  /** Simulated time per wall time. */
  speedup: number;
  node: string;
  complete: boolean;
  stopReason: string;
}

export interface RunOutput {
  summary: Summary;
  run: RunInfo;
  /** Report files by name, summary.json and run.json included. */
  files: Map<string, Uint8Array | string>;
  warnings: string[];
  /** The sweep metrics of the run, when the request asked for them. */
  metrics?: RunMetrics;
}

export interface Progress {
  simulatedUs: number;
  totalUs: number;
  events: number;
  /** Wall time since the simulation started, ms. */
  wallMs: number;
}

export type SimulateFn = (scenario: unknown, options?: SimulateOptions) => RunResult;
export type RenderFn = (
  result: RunResult,
  options: { charts: boolean; traceJsonl?: string; runJson?: object; why?: ExplainedRun },
) => Promise<Map<string, Uint8Array | string>>;

export interface ComputeDeps {
  simulate: SimulateFn;
  render: RenderFn;
  /** Monotonic wall clock, ms. */
  nowMs: () => number;
  nodeVersion: string;
  /**
   * Whether memory use passed `limitBytes`: null if not, else what was measured ("the process's
   * resident memory reached 312.0 MiB"). Polled between slices of the run; absent: never over.
   */
  memoryOver?: (limitBytes: number) => string | null;
}

export interface ComputeControl {
  /** Polled between slices of virtual time; true stops the run, which then reports complete: false. */
  shouldStop: () => boolean;
  onProgress: (progress: Progress) => void;
}

export async function computeRun(request: RunRequest, deps: ComputeDeps, control: ComputeControl): Promise<RunOutput> {
  const started = deps.nowMs();
  const memoryLimit = request.maxMemoryBytes;
  const memoryOver = memoryLimit === undefined ? undefined : deps.memoryOver;
  // Finishing the run (and rendering the report, charts above all) needs memory after the stop: keep some back.
  const reserve = memoryLimit === undefined ? 0 : reportReserve(memoryLimit, request.report !== false);
  const kept = ` less ${formatBytes(reserve)} kept for ${request.report === false ? "the summary" : "writing the report"}`;
  // The report's "Why" section is explained during this very run: a capture filter streams the records
  // the explainer reads into it and keeps none (or, with --trace, keeps every record for trace.jsonl).
  const why = request.report === false ? null : explainAlongside();
  let explaining = false;
  const captureTrace: Pick<SimulateOptions, "captureTrace"> = why !== null
    ? { captureTrace: (cl) => ((explaining = true), why.captureTrace(cl, request.trace)) }
    : request.trace ? { captureTrace: () => () => true } : {};
  const result = deps.simulate(request.scenario, {
    ...captureTrace,
    ...(request.checkEveryUs ? { checkEveryUs: request.checkEveryUs } : {}),
    ...(request.maxEvents !== undefined ? { maxEvents: request.maxEvents } : {}),
    onProgress: (simulatedUs, totalUs, events) => {
      control.onProgress({ simulatedUs, totalUs, events, wallMs: deps.nowMs() - started });
      if (control.shouldStop()) return false;
      const over = memoryOver?.(memoryLimit! - reserve) ?? null;
      if (over === null) return true;
      return { reason: "maxMemory", detail: `${over}, past --max-memory ${formatBytes(memoryLimit!)}${kept}, at ${simulatedUs / 1e6} s of virtual time` };
    },
  });
  const wallMs = deps.nowMs() - started;
  const summary = result.summary;
  const run = runInfo(request.startedAt, wallMs, summary, deps.nodeVersion);
  const warnings: string[] = [];
  if (request.trace && result.cluster.trace.capturedTruncated) {
    warnings.push(`trace.jsonl holds only the first ${result.trace.length} records; the rest were not captured`);
  }
  const traceJsonl = request.trace ? toJsonl(result.trace) : undefined;
  if (request.report === false) {
    const metrics = request.sweepWarmupUs !== undefined ? sweepMetrics(summary, result.series, request.sweepWarmupUs) : undefined;
    return { summary, run, files: new Map([["summary.json", `${JSON.stringify(summary, null, 2)}\n`]]), warnings, ...(metrics ? { metrics } : {}) };
  }
  const rendered = await deps.render(result, {
    charts: request.charts,
    // A stand-in simulate (tests) may not install the filter: then there is nothing to explain.
    ...(why !== null && explaining ? { why: why.finish(result) } : {}),
    ...(traceJsonl !== undefined ? { traceJsonl } : {}),
    runJson: run,
  });
  const files = new Map(rendered);
  // The renderer owns the report's files; these two are ours, so add them if it did not.
  if (!files.has("summary.json")) files.set("summary.json", `${JSON.stringify(summary, null, 2)}\n`);
  if (traceJsonl !== undefined && !files.has("trace.jsonl")) files.set("trace.jsonl", traceJsonl);
  files.set("run.json", `${JSON.stringify(run, null, 2)}\n`);
  return { summary, run, files, warnings };
}

function runInfo(startedAt: string, wallMs: number, summary: Summary, node: string): RunInfo {
  const wallSec = Math.max(wallMs, 1e-3) / 1000;
  return {
    startedAt,
    wallMs: round1(wallMs),
    simulatedMs: summary.simulatedMs,
    events: summary.events,
    eventsPerSec: Math.round(summary.events / wallSec),
    speedup: round1(summary.simulatedMs / 1000 / wallSec),
    node,
    complete: summary.complete,
    stopReason: summary.stopReason,
  };
}

/** One JSON object per line, newline-terminated. */
export function toJsonl(records: readonly object[]): string {
  let out = "";
  for (const r of records) out += `${JSON.stringify(r)}\n`;
  return out;
}

const round1 = (x: number) => Math.round(x * 10) / 10;
