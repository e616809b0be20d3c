// simulate(scenario) → RunResult: the pure entry point the CLI, the tests and the benchmarks share.
// No I/O, no wall clock: the same scenario and seed give the same result, byte for byte.
//
// The kernel runs the cluster's events; between them — at each sample time, each check time and each
// progress slice, after every event of that instant has run — the observers look: the sampler, the
// invariant and conservation checks, the progress callback. They are never events themselves, so how
// often they look cannot change what is simulated (the trace hash is the same for any sampleEvery).
import { checkRun } from "../checks/invariants.ts";
import { FaultPlan } from "../faults/plan.ts";
import { Recorder } from "../metrics/Recorder.ts";
import { Sampler, type TimeSeries } from "../metrics/Sampler.ts";
import { buildSummary, type Summary } from "../metrics/summary.ts";
import { Cluster } from "../model/Cluster.ts";
import type { Marker } from "../model/records.ts";
import { Routes } from "../protocol/routes.ts";
import { SCENARIO_DEFAULTS } from "../scenario/defaults.ts";
import { evaluateExpectation } from "../scenario/expect.ts";
import { normalizeScenario } from "../scenario/normalize.ts";
import type { Model } from "../scenario/types.ts";
import type { RunOutcome } from "../sim/Scheduler.ts";
import type { TraceFilter, TraceRecord } from "../sim/Trace.ts";

export interface SimulateOptions {
  /** Override the scenario's seed. */
  seed?: number;
  /** Override the scenario's duration, µs. */
  durationUs?: number;
  /** Capture trace records matching the filter (type codes from the cluster's components' trace types). */
  captureTrace?: (cl: Cluster) => TraceFilter;
  /** Cap on events (defaults to SCENARIO_DEFAULTS.maxEvents). */
  maxEvents?: number;
  /**
   * Called between slices of the run; return false to stop early (stopReason "interrupted"), or a
   * RunStop to stop with that reason. The result is then incomplete. A slice ends at the latest after
   * one sample interval of virtual time, progressEveryEvents events, or the virtual time the producers
   * take to produce progressEveryMessages messages — so a caller that watches a resource (memory) sees
   * it often, however the run grows. Where slices end cannot change what is simulated.
   */
  onProgress?: (simulatedUs: number, totalUs: number, events: number) => boolean | void | RunStop;
  /** Virtual time per slice between onProgress calls, µs (default: one sample interval). */
  sliceUs?: number;
  /** With onProgress: call it at least every this many events (default PROGRESS_EVERY_EVENTS). */
  progressEveryEvents?: number;
  /** With onProgress: and at least every time the producers store this many messages, at their
   * highest rate (default PROGRESS_EVERY_MESSAGES). */
  progressEveryMessages?: number;
  /**
   * Run the invariant and conservation checks every this much virtual time while running, not only at
   * the end (0 or absent: only at the end). A failure throws, naming the virtual time and the seed.
   */
  checkEveryUs?: number;
  /** Called once the cluster is built, before anything runs: tests use it to inject mutants. */
  configure?: (cl: Cluster, rec: Recorder) => void;
}

/** Why a run stopped early, for the summary: a short code and a sentence saying what limit was met. */
export interface RunStop {
  /** "interrupted", "maxEvents", "pendingEvents", "maxMemory" (set by the CLI)… */
  reason: string;
  detail: string;
}

/** Slices end at least this often in events, so a caller's check of a growing resource is never far off. */
export const PROGRESS_EVERY_EVENTS = 1 << 16;
/** …and in produced messages: production is lazy, so a store can grow by a whole slice at once. At ~50
 * bytes a message (a stored message's columns and its fate) that is ~13 MB between two looks. */
export const PROGRESS_EVERY_MESSAGES = 1 << 18;

export interface RunResult {
  summary: Summary;
  series: TimeSeries;
  traceHash: string;
  trace: TraceRecord[];
  /** Rebalance and fault moments, in time order. */
  markers: Marker[];
  model: Model;
  /** The cluster and the books after the run, for tests that inspect them. */
  cluster: Cluster;
  recorder: Recorder;
}

/** Runs a scenario (raw JSON-like input or an already normalised Model). */
export function simulate(scenario: unknown, options: SimulateOptions = {}): RunResult {
  const base = isModel(scenario) ? scenario : normalizeScenario(scenario);
  const model: Model = {
    ...base,
    seed: options.seed ?? base.seed,
    durationUs: options.durationUs ?? base.durationUs,
  };
  const routes = new Routes(model);
  const markers: Marker[] = [];
  const recorder = new Recorder(model, routes, markers);
  const cluster = new Cluster(model, recorder, { maxEvents: options.maxEvents ?? SCENARIO_DEFAULTS.maxEvents, routes });
  if (options.captureTrace) cluster.trace.setCapture(options.captureTrace(cluster));
  options.configure?.(cluster, recorder);
  // The loop below samples at every multiple of sampleEvery up to the duration (once, at the duration,
  // when that is shorter).
  const sampler = new Sampler(cluster, recorder, model.sampleEveryUs > 0 ? Math.max(1, Math.floor(model.durationUs / model.sampleEveryUs)) : 0);
  const plan = new FaultPlan(cluster, model.faults, markers);
  plan.schedule();
  cluster.start();

  const durationUs = model.durationUs;
  const sampleUs = model.sampleEveryUs;
  const watched = options.onProgress !== undefined;
  const sliceUs = Math.min(options.sliceUs ?? Math.max(sampleUs, 1), watched ? productionSliceUs(model, options.progressEveryMessages ?? PROGRESS_EVERY_MESSAGES) : Infinity);
  const eventBudget = watched ? (options.progressEveryEvents ?? PROGRESS_EVERY_EVENTS) : Infinity;
  const checkUs = options.checkEveryUs ?? 0;
  const sched = cluster.sched;
  let nextSample = Math.min(sampleUs, durationUs);
  let nextSlice = Math.min(sliceUs, durationUs);
  let nextCheck = checkUs > 0 ? Math.min(checkUs, durationUs) : Infinity;
  let stop: RunStop | null = null;
  const ask = (): RunStop | null => {
    const answer = options.onProgress?.(sched.nowUs, durationUs, sched.eventsRun);
    if (answer === false) return { reason: "interrupted", detail: `interrupted at ${sched.nowUs / 1e6} s of virtual time` };
    return typeof answer === "object" && answer !== null ? answer : null;
  };
  for (let t = 0; t < durationUs; ) {
    t = Math.min(nextSample, nextSlice, nextCheck);
    let outcome = sched.runUntil(t, eventBudget);
    while (outcome === "budget" && (stop = ask()) === null) outcome = sched.runUntil(t, eventBudget);
    if (stop !== null) break;
    if (outcome !== "until" && outcome !== "idle") {
      stop = schedulerStop(outcome, cluster);
      break;
    }
    cluster.settle();
    if (t === nextSample) {
      sampler.sample();
      nextSample = t + sampleUs <= durationUs ? t + sampleUs : Infinity;
    }
    if (t === nextCheck) {
      checkRun(cluster, recorder);
      nextCheck = Math.min(t + checkUs, durationUs);
      if (t === durationUs) nextCheck = Infinity;
    }
    if (t === nextSlice) {
      nextSlice = Math.min(t + sliceUs, durationUs);
      if (t === durationUs) nextSlice = Infinity;
      if ((stop = ask()) !== null) break;
    }
  }
  cluster.settle();
  sampler.finish();
  recorder.endToEnd.merge(recorder.endToEndInterval);
  recorder.endToEndInterval.reset();
  const accounts = checkRun(cluster, recorder);
  const summary = buildSummary(cluster, recorder, sampler, accounts, stop === null, stop?.reason ?? "", plan.records, stop?.detail ?? "");
  summary.expectations = model.expectations.map((e) => evaluateExpectation(e, { summary, series: sampler.series }));
  return { summary, series: sampler.series, traceHash: cluster.trace.hash(), trace: cluster.trace.captured, markers, model, cluster, recorder };
}

/** The longest slice in which the producers, at their highest rate, store at most `messages` messages. */
function productionSliceUs(model: Model, messages: number): number {
  let rate = 0;
  for (const t of model.topics) {
    if (!t.produce) continue;
    rate += Math.max(t.produce.rate, ...t.produce.rateChanges.map((c) => c.rate));
  }
  return rate > 0 ? Math.max(1, Math.floor((messages / rate) * 1e6)) : Infinity;
}

/** Why the scheduler stopped the run, when it was not asked to. */
function schedulerStop(outcome: RunOutcome, cluster: Cluster): RunStop {
  const sched = cluster.sched;
  const atSec = `${sched.nowUs / 1e6} s of virtual time`;
  switch (outcome) {
    case "eventLimit":
      return { reason: "maxEvents", detail: `reached the limit of ${sched.maxEvents} events (maxEvents) at ${atSec}` };
    case "pendingLimit":
      return { reason: "pendingEvents", detail: sched.describePending() };
    case "timeLimit":
      return { reason: "timeLimit", detail: `the next event lies beyond the scheduler's time limit, at ${atSec}` };
    default:
      return { reason: outcome, detail: `the scheduler stopped (${outcome}) at ${atSec}` };
  }
}

function isModel(x: unknown): x is Model {
  return typeof x === "object" && x !== null && "durationUs" in x && "latency" in x;
}
