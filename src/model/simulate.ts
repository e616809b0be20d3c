// simulate(scenario) → RunResult: the pure entry point the CLI, the tests and the benchmarks share.
// No I/O, no wall clock: the same scenario and seed give the same result, byte for byte.
import { normalizeScenario } from "../scenario/normalize.ts";
import type { Model } from "../scenario/types.ts";
import type { TraceFilter, TraceRecord } from "../sim/Trace.ts";
import { SCENARIO_DEFAULTS } from "../scenario/defaults.ts";
import { checkInvariants } from "../checks/invariants.ts";
import { evaluateExpectation } from "../scenario/expect.ts";
import { accountMessages } from "./accounting.ts";
import { Sampler, type TimeSeries } from "./Sampler.ts";
import { buildSummary, type Summary } from "./summary.ts";
import { World, type Marker } from "./World.ts";
import { FaultPlan } from "../faults/plan.ts";

export interface SimulateOptions {
  /** Override the scenario's seed. */
  seed?: number;
  /** Override the scenario's duration, µs. */
  durationUs?: number;
  /** Capture trace records matching the filter (see World.T for type codes). */
  captureTrace?: (w: World) => TraceFilter;
  /** Cap on events (defaults to SCENARIO_DEFAULTS.maxEvents). */
  maxEvents?: number;
  /** Called between slices of virtual time; return false to stop early (the result is then incomplete). */
  onProgress?: (simulatedUs: number, totalUs: number, events: number) => boolean | void;
  /** Virtual time per slice between onProgress calls, µs (default: one sample interval). */
  sliceUs?: number;
  /** Called once the world is built, before anything runs: tests use it to inject mutants. */
  configure?: (w: World) => void;
}

export interface RunResult {
  summary: Summary;
  series: TimeSeries;
  traceHash: string;
  trace: TraceRecord[];
  /** Rebalance (and later fault) moments, in time order. */
  markers: Marker[];
  model: Model;
  /** The world after the run, for tests that inspect it. */
  world: World;
}

/** Runs a scenario (raw JSON-like input or an already normalised Model). */
export function simulate(scenario: unknown, options: SimulateOptions = {}): RunResult {
  const base = isModel(scenario) ? scenario : normalizeScenario(scenario);
  const model: Model = {
    ...base,
    seed: options.seed ?? base.seed,
    durationUs: options.durationUs ?? base.durationUs,
  };
  const world = new World(model, { maxEvents: options.maxEvents ?? SCENARIO_DEFAULTS.maxEvents });
  if (options.captureTrace) world.trace.setCapture(options.captureTrace(world));
  options.configure?.(world);
  const sampler = new Sampler(world);
  world.kinds.sample = world.sched.defineKind("sample", () => {
    sampler.sample();
    const next = world.sched.nowUs + model.sampleEveryUs;
    if (next <= model.durationUs) world.sched.scheduleAt(next, world.kinds.sample);
  });
  const plan = new FaultPlan(world, model.faults);
  plan.schedule();
  world.start();
  world.sched.scheduleAt(Math.min(model.sampleEveryUs, model.durationUs), world.kinds.sample);

  const slice = options.sliceUs ?? Math.max(model.sampleEveryUs, 1);
  let complete = true;
  let stopReason = "";
  for (let t = 0; t < model.durationUs; ) {
    t = Math.min(model.durationUs, t + slice);
    const outcome = world.sched.runUntil(t);
    if (outcome === "eventLimit" || outcome === "timeLimit" || outcome === "stopped") {
      complete = false;
      stopReason = outcome;
      break;
    }
    if (options.onProgress && options.onProgress(t, model.durationUs, world.sched.eventsRun) === false) {
      complete = false;
      stopReason = "interrupted";
      break;
    }
  }
  world.advanceProducers(world.sched.nowUs);
  world.metrics.endToEnd.merge(world.metrics.endToEndInterval);
  world.metrics.endToEndInterval.reset();
  checkInvariants(world);
  const accounts = accountMessages(world);
  const summary = buildSummary(world, sampler, accounts, complete, stopReason, plan.records);
  summary.expectations = model.expectations.map((e) => evaluateExpectation(e, { summary, series: sampler.series }));
  return { summary, series: sampler.series, traceHash: world.trace.hash(), trace: world.trace.captured, markers: world.markers, model, world };
}

function isModel(x: unknown): x is Model {
  return typeof x === "object" && x !== null && "durationUs" in x && "latency" in x;
}
