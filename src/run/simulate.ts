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
  /** Called between slices of virtual time; return false to stop early (the result is then incomplete). */
  onProgress?: (simulatedUs: number, totalUs: number, events: number) => boolean | void;
  /** Virtual time per slice between onProgress calls, µs (default: one sample interval). */
  sliceUs?: number;
  /**
   * Run the invariant and conservation checks every this much virtual time while running, not only at
   * the end (0 or absent: only at the end). A failure throws, naming the virtual time and the seed.
   */
  checkEveryUs?: number;
  /** Called once the cluster is built, before anything runs: tests use it to inject mutants. */
  configure?: (cl: Cluster, rec: Recorder) => void;
}

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
  const sampler = new Sampler(cluster, recorder);
  const plan = new FaultPlan(cluster, model.faults, markers);
  plan.schedule();
  cluster.start();

  const durationUs = model.durationUs;
  const sampleUs = model.sampleEveryUs;
  const sliceUs = options.sliceUs ?? Math.max(sampleUs, 1);
  const checkUs = options.checkEveryUs ?? 0;
  let nextSample = Math.min(sampleUs, durationUs);
  let nextSlice = Math.min(sliceUs, durationUs);
  let nextCheck = checkUs > 0 ? Math.min(checkUs, durationUs) : Infinity;
  let complete = true;
  let stopReason = "";
  for (let t = 0; t < durationUs; ) {
    t = Math.min(nextSample, nextSlice, nextCheck);
    const outcome = cluster.sched.runUntil(t);
    if (outcome === "eventLimit" || outcome === "timeLimit" || outcome === "stopped") {
      complete = false;
      stopReason = outcome;
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
      if (options.onProgress && options.onProgress(t, durationUs, cluster.sched.eventsRun) === false) {
        complete = false;
        stopReason = "interrupted";
        break;
      }
    }
  }
  cluster.settle();
  recorder.endToEnd.merge(recorder.endToEndInterval);
  recorder.endToEndInterval.reset();
  const accounts = checkRun(cluster, recorder);
  const summary = buildSummary(cluster, recorder, sampler, accounts, complete, stopReason, plan.records);
  summary.expectations = model.expectations.map((e) => evaluateExpectation(e, { summary, series: sampler.series }));
  return { summary, series: sampler.series, traceHash: cluster.trace.hash(), trace: cluster.trace.captured, markers, model, cluster, recorder };
}

function isModel(x: unknown): x is Model {
  return typeof x === "object" && x !== null && "durationUs" in x && "latency" in x;
}
