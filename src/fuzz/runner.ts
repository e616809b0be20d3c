// One fuzz run: a scenario, a fault schedule drawn from the run's seed on top of it, `simulate` with the
// invariant and conservation checks every `checkEveryUs`, and a verdict — pass, or the failure's kind.
// Pure: no clock, no I/O. The CLI (src/cli/fuzzCommand.ts) spreads runs over worker threads; the
// verdict of a run depends on (base scenario, run seed, config) alone, so it is the same on any thread.
import { ConservationError } from "../metrics/accounting.ts";
import { InvariantError } from "../checks/invariants.ts";
import { simulate, type RunResult, type SimulateOptions } from "../run/simulate.ts";
import { normalizeScenario } from "../scenario/normalize.ts";
import { parseDurationUs } from "../scenario/units.ts";
import { randomFaults } from "./faultSchedule.ts";

export interface FuzzConfig {
  /** Each run's length, µs: the scenario's duration capped here (DURATION_CAP_US unless told). */
  durationCapUs: number;
  /** End of the fault phase as a share of the run (0 < share ≤ 1); the rest is the heal phase. */
  faultPhaseShare: number;
  /** Fault kinds to draw from; absent: every kind of the fault table. */
  kinds?: readonly string[];
  /** Expectations added to every run (`--expect`). */
  expects: readonly string[];
  /** Also check the scenario's own `expect` list (written for its own faults, not for random ones). */
  scenarioExpectations: boolean;
  /** Invariant and conservation checks every this much virtual time, µs. */
  checkEveryUs: number;
}

/** Default cap on a run's virtual time: short runs, many of them. */
export const DURATION_CAP_US = 60_000_000;
/** Default fault phase: the first half of each run; the second half must converge. */
export const FAULT_PHASE_SHARE = 0.5;
/** Default period of the invariant and conservation checks during a run. */
export const CHECK_EVERY_US = 1_000_000;

/**
 * What failed, as a key two runs share when they fail the same way (the shrinker keeps a step only if
 * the key stays the same): `expect: <expression>`, `invariant: cache counters`, `invariant: committed
 * offsets`, `invariant: incarnations`, `conservation`, `crash: <ErrorName>` (any other exception: a
 * bug) or `incomplete: <reason>` (the run hit the event limit).
 */
export interface Failure {
  key: string;
  message: string;
}

export interface RunVerdict {
  runSeed: number;
  /** The faults drawn for the run (the scenario's own faults come before them in the run's list). */
  faults: Record<string, unknown>[];
  failure: Failure | null;
  /** Simulated events (for the runs-per-second figures). */
  events: number;
}

/**
 * The scenario every run of a fuzz starts from: duration capped, the scenario's own faults that would
 * now start after the end dropped, its `expect` list replaced by the fuzz's. Validated here, so bad
 * input fails before any run (normalizeScenario's InputError).
 */
export function prepareBase(raw: Record<string, unknown>, config: FuzzConfig): Record<string, unknown> {
  const model = normalizeScenario(raw);
  const durationUs = Math.min(model.durationUs, config.durationCapUs);
  const own = Array.isArray(raw.faults) ? (raw.faults as Record<string, unknown>[]) : [];
  const faults = own.filter((f) => {
    try {
      return parseDurationUs(f.at, "at") <= durationUs;
    } catch {
      return true; // let normalizeScenario name the problem
    }
  });
  const ownExpect = config.scenarioExpectations && Array.isArray(raw.expect) ? (raw.expect as string[]) : [];
  const base: Record<string, unknown> = { ...raw, duration: formatUs(durationUs), faults, expect: [...ownExpect, ...config.expects] };
  normalizeScenario(base);
  return base;
}

/**
 * Run i's seed under root seed S: S + i (mod 2³²). So run i of `--seed S` is run 0 of `--seed S+i`,
 * and `--seed <run seed> --runs 1` reproduces any run. The seed draws the faults and seeds the run.
 */
export function runSeedOf(rootSeed: number, index: number): number {
  return (rootSeed + index) % 2 ** 32;
}

/** The scenario of one run: the base, its seed, and the faults drawn for that seed after its own. */
export function runScenario(base: Record<string, unknown>, runSeed: number, config: FuzzConfig): { scenario: Record<string, unknown>; faults: Record<string, unknown>[] } {
  const durationUs = normalizeScenario(base).durationUs;
  const faults = randomFaults(base, runSeed, { ...(config.kinds ? { kinds: config.kinds } : {}), faultPhaseUs: Math.floor(durationUs * config.faultPhaseShare) });
  const own = (base.faults as Record<string, unknown>[] | undefined) ?? [];
  return { scenario: { ...base, seed: runSeed, faults: [...own, ...faults] }, faults };
}

/** Runs one fuzz run. */
export function fuzzRun(base: Record<string, unknown>, runSeed: number, config: FuzzConfig): RunVerdict {
  const { scenario, faults } = runScenario(base, runSeed, config);
  const { failure, events } = judge(scenario, config.checkEveryUs);
  return { runSeed, faults, failure, events };
}

export type SimulateFn = (scenario: unknown, options?: SimulateOptions) => RunResult;

/** Simulates a complete scenario (faults and seed in it) and says how it failed, if it did. */
export function judge(scenario: Record<string, unknown>, checkEveryUs: number, sim: SimulateFn = simulate): { failure: Failure | null; events: number } {
  let result: RunResult;
  try {
    result = sim(scenario, { checkEveryUs });
  } catch (error) {
    return { failure: classify(error), events: 0 };
  }
  const summary = result.summary;
  if (!summary.complete) return { failure: { key: `incomplete: ${summary.stopReason}`, message: `the run stopped early (${summary.stopReason}) at ${summary.simulatedMs} ms` }, events: summary.events };
  const failed = summary.expectations.find((e) => !e.ok);
  if (failed) return { failure: { key: `expect: ${failed.expression}`, message: `actual: ${failed.actual}` }, events: summary.events };
  return { failure: null, events: summary.events };
}

/** The failure key of an exception thrown by a run. */
export function classify(error: unknown): Failure {
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof ConservationError) return { key: "conservation", message };
  if (error instanceof InvariantError) {
    const which = message.includes("ProcessQueue of") ? "cache counters" : message.includes("running incarnations") ? "incarnations" : "committed offsets";
    return { key: `invariant: ${which}`, message };
  }
  const name = error instanceof Error ? error.name : typeof error;
  return { key: `crash: ${name}`, message };
}

/** A duration as the scenario files write it: whole milliseconds as "<n>ms", else "<n>us". */
export function formatUs(us: number): string {
  return us % 1000 === 0 ? `${us / 1000}ms` : `${us}us`;
}
