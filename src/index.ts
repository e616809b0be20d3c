// The programmatic API: `import { loadScenario, simulate, check, explain, sweep } from "rmqsim"`.
//
// A small, stable surface over the same code the CLI runs, for a service's own test suite: load a
// scenario file, override settings as `--set` does, run it, and assert on the summary. Each function
// is synchronous and runs on the caller's thread (no worker threads, no files written); the same
// scenario, seed and overrides give the same summary and trace hash as `rmqsim run`, byte for byte.
// Bad input throws InputError, whose message starts with the field, option or file at fault — the
// same sentences the CLI prints before exiting with code 2. There are no resource guards here (the
// CLI's --max-memory, --max-events): a scenario that may not fit in memory belongs to the CLI.
//
// This file sits above every layer of src/ (it may import any of them; nothing imports it), and is
// the package's `exports` entry: dist/index.js with dist/index.d.ts once built (scripts/build.mjs).
import { readFileSync } from "node:fs";
import { InvariantError } from "./checks/invariants.ts";
import { CHECK_EVERY_DEFAULT, MAX_DEFAULT_CHECKS } from "./cli/checkCommand.ts";
import { BadInputError } from "./cli/errors.ts";
import { fileError, parseJsonText } from "./cli/readJson.ts";
import { explain as explainRun } from "./explain/explain.ts";
import type { Explanation } from "./explain/types.ts";
import type { TimeSeries } from "./metrics/Sampler.ts";
import type { Summary } from "./metrics/summary.ts";
import { simulate as simulateModel } from "./run/simulate.ts";
import { describeValue, InputError } from "./scenario/errors.ts";
import { normalizeScenario } from "./scenario/normalize.ts";
import { applySets, parseSet } from "./scenario/overrides.ts";
import type { ScenarioInput } from "./scenario/types.ts";
import { parseDurationUs } from "./scenario/units.ts";
import { assemble, type AssembleRun } from "./sweep/assemble.ts";
import { buildVariant, gridPoint, gridSize, parseParams } from "./sweep/grid.ts";
import { sweepMetrics } from "./sweep/metrics.ts";
import { parseRequirement, resolveObjective } from "./sweep/recommend.ts";
import type { SweepResult } from "./sweep/types.ts";

export { InputError, InvariantError };
export type { Explanation, ScenarioInput, Summary, SweepResult, TimeSeries };
export type { QueueExplanation, ExplainedInterval, ReasonCode, SettingAdvice } from "./explain/types.ts";
export type { MetricStats, Recommendation, SweepPoint } from "./sweep/types.ts";

/** A scenario as its JSON file holds it (the README's "Writing a scenario"); `loadScenario` reads one. */
export type Scenario = ScenarioInput;

/**
 * What the functions take as a scenario: a `Scenario` (typed, with completion in an editor), or any
 * parsed JSON object — a `loadScenario` result, a JSON module import — which they validate.
 */
export type ScenarioSource = Scenario | object;

/** One expectation of the scenario's `expect` list, evaluated on the run. */
export type ExpectationResult = Summary["expectations"][number];

/** What every function takes to vary a scenario without editing its file. */
export interface ScenarioOptions {
  /** Replaces the scenario's `seed` (a whole number 0 to 2³² − 1), as `--seed` does. */
  seed?: number;
  /** Replaces the scenario's `duration`: a duration string ("30s", "10m") or milliseconds, as `--duration`. */
  duration?: string | number;
  /**
   * Settings to override, dot path → value, applied in order as `--set path=value` would be:
   * `{ "groups.0.config.pullThresholdForQueue": 200, "topics.0.produce.rate": 4000 }`. Objects missing
   * on the way are created; list indexes must exist. The result is validated like a scenario file.
   */
  set?: Readonly<Record<string, unknown>>;
}

/**
 * Reads a scenario file (JSON, as `rmqsim run` reads it) and returns it unvalidated, so it can be
 * changed before a run; `simulate` and the others validate it. Throws InputError naming the file (and
 * line and column for malformed JSON) when it is missing, unreadable or not JSON.
 */
export function loadScenario(path: string): Scenario {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw asInputError(fileError(path, error));
  }
  try {
    return parseJsonText(text, path) as Scenario;
  } catch (error) {
    throw asInputError(error);
  }
}

/**
 * The scenario with `options` applied — each `set` entry, then seed and duration, in the order the
 * CLI applies --set, --seed and --duration — not yet validated. The input is never changed. Throws
 * InputError for a bad path or option.
 */
export function withOptions(scenario: ScenarioSource, options: ScenarioOptions = {}): Scenario {
  const sets = Object.entries(options.set ?? {}).map(([path, value]) => {
    if (value === undefined || (typeof value === "number" && !Number.isFinite(value))) {
      throw new InputError(`set ${path}`, `${describeValue(value)} is not a JSON value`);
    }
    return parseSet(`${path}=${JSON.stringify(value)}`);
  });
  if (options.seed !== undefined && !(Number.isSafeInteger(options.seed) && options.seed >= 0 && options.seed < 2 ** 32)) {
    throw new InputError("seed", `${describeValue(options.seed)} is not a whole number from 0 to 4294967295`);
  }
  if (options.duration !== undefined && parseDurationUs(options.duration, "duration") <= 0) {
    throw new InputError("duration", "must be greater than 0");
  }
  const own = [
    ...(options.seed !== undefined ? [parseSet(`seed=${options.seed}`)] : []),
    ...(options.duration !== undefined ? [parseSet(`duration=${JSON.stringify(options.duration)}`)] : []),
  ];
  return applySets(applySets(scenario, sets), own) as Scenario;
}

/** One run's results. */
export interface Simulation {
  /** Exactly what `rmqsim run` writes to summary.json (figures, per-queue rows, expectations, traceHash). */
  summary: Summary;
  /** The sampled time series (the columns of timeseries.csv), one value per `sampleEvery`. */
  series: TimeSeries;
  /** Hash of every trace record: equal hashes mean the same run, event by event. */
  traceHash: string;
  /** Whether every expectation of the scenario's `expect` list held (true when it has none). */
  passed: boolean;
}

/**
 * Runs a scenario to its end (or to `options.duration`) and returns its summary. Throws InputError
 * for an invalid scenario or option, and InvariantError if a conservation or invariant check fails
 * at the end of the run (a bug in the model: please report it with the scenario and seed).
 */
export function simulate(scenario: ScenarioSource, options: ScenarioOptions = {}): Simulation {
  const run = simulateModel(normalizeScenario(withOptions(scenario, options)));
  return { summary: run.summary, series: run.series, traceHash: run.traceHash, passed: run.summary.expectations.every((e) => e.ok) };
}

/** `check`'s options: those of every run, plus what to check. */
export interface CheckOptions extends ScenarioOptions {
  /** Expectations added to the scenario's own `expect` list, in the same grammar ("messages.lost == 0"). */
  expect?: readonly string[];
  /**
   * Run the invariant and conservation checks every this much virtual time, as `rmqsim check
   * --check-every` (default 10 s, or duration / 2000 if longer; 0: at the end only).
   */
  checkEvery?: string | number;
}

/** `check`'s verdict on one run. */
export interface CheckResult {
  /** No expectation failed, no invariant broke and the run was complete. */
  passed: boolean;
  seed: number;
  /** Every expectation (the scenario's, then `options.expect`), with the figures its verdict rests on. */
  expectations: ExpectationResult[];
  /** One sentence per failure: "expect: <expression>  actual: <figures>", "invariant: …", "incomplete: …". */
  failures: string[];
  /** The run's summary; null when an invariant check stopped the run. */
  summary: Summary | null;
}

/**
 * What `rmqsim check <file>` does for one seed, without workers or files: runs the scenario with the
 * invariant checks switched on during the run and evaluates its expectations. A failed expectation or
 * invariant is a result (`passed: false`), not an exception; bad input throws InputError.
 */
export function check(scenario: ScenarioSource, options: CheckOptions = {}): CheckResult {
  let raw = withOptions(scenario, options);
  if (options.expect !== undefined && options.expect.length > 0) {
    const own = (raw as { expect?: unknown }).expect;
    raw = applySets(raw, [{ path: "expect", keys: ["expect"], value: [...(Array.isArray(own) ? own : []), ...options.expect] }]) as Scenario;
  }
  const model = normalizeScenario(raw);
  const checkEveryUs = options.checkEvery === undefined
    ? Math.max(parseDurationUs(CHECK_EVERY_DEFAULT, "checkEvery"), Math.ceil(model.durationUs / MAX_DEFAULT_CHECKS))
    : options.checkEvery === 0 || options.checkEvery === "0" ? 0 : parseDurationUs(options.checkEvery, "checkEvery");
  let summary: Summary;
  try {
    summary = simulateModel(model, checkEveryUs > 0 ? { checkEveryUs } : {}).summary;
  } catch (error) {
    if (!(error instanceof InvariantError)) throw error;
    return { passed: false, seed: model.seed, expectations: [], failures: [`invariant: ${error.message}`], summary: null };
  }
  const failures = summary.expectations.filter((e) => !e.ok).map((e) => `expect: ${e.expression}  actual: ${e.actual}`);
  if (!summary.complete) failures.push(`incomplete: ${summary.stopReason}: ${summary.stopDetail ?? ""}`);
  return { passed: failures.length === 0, seed: model.seed, expectations: summary.expectations, failures, summary };
}

/** `explain`'s options: those of every run, plus which queues and when. */
export interface ExplainOptions extends ScenarioOptions {
  /** Explain this queue only, "Topic@broker#queueId" (default: the `top` queues held back longest). */
  queue?: string;
  /** Explain this consumer group only. */
  group?: string;
  /** Keep the intervals overlapping [at, at + window] (durations as in scenario files). */
  at?: string | number;
  window?: string | number;
  /** Without `queue`: how many queues to explain (default 5). */
  top?: number;
}

/**
 * What `rmqsim explain --json` prints: re-runs the scenario and says, from its trace, why each queue
 * stopped or slowed — intervals with a reason code, a sentence, figures and setting advice.
 * Throws InputError for bad input, an unknown queue or group.
 */
export function explain(scenario: ScenarioSource, options: ExplainOptions = {}): Explanation {
  const model = normalizeScenario(withOptions(scenario, options));
  try {
    return explainRun(model, {
      ...(options.queue !== undefined ? { queue: options.queue } : {}),
      ...(options.group !== undefined ? { group: options.group } : {}),
      ...(options.at !== undefined ? { atUs: parseDurationUs(options.at, "at") } : {}),
      ...(options.window !== undefined ? { windowUs: parseDurationUs(options.window, "window") } : {}),
      ...(options.top !== undefined ? { top: options.top } : {}),
    });
  } catch (error) {
    const option = (error as { option?: unknown }).option;
    if (error instanceof Error && error.name === "ExplainInputError" && typeof option === "string") {
      throw new InputError(option.replace(/^--/, ""), error.message);
    }
    throw error;
  }
}

/** `sweep`'s options: the grid, the seeds and the objective, as `rmqsim sweep` takes them. */
export interface SweepOptions {
  /** One entry per parameter, as `--param`: "groups.0.config.pullThresholdForQueue=8..1024*2", "a=1,2,5". */
  params: readonly string[];
  /** Seeds per point: the scenario's seed, then +1, … (default 1). */
  seeds?: number;
  /** Dropped from the start of each run's time-series metrics (default "0s"). */
  warmup?: string | number;
  /** The objective (default: the smallest value of the first parameter meeting the default requirement). */
  minimize?: string;
  maximize?: string;
  /** Requirements on the metrics' means, as `--require` ("latency.endToEnd.p99Ms <= 20000"). */
  require?: readonly string[];
}

/**
 * What `rmqsim sweep` computes (its sweep.json), run point by point on the caller's thread: every grid
 * point under every seed, each metric's mean and 95 % interval, and the recommended point. For large
 * grids use the CLI, which runs the points on worker threads with the same result.
 */
export function sweep(scenario: ScenarioSource, options: SweepOptions): SweepResult {
  const base = normalizeScenario(scenario);
  const seeds = options.seeds ?? 1;
  if (!Number.isInteger(seeds) || seeds < 1 || seeds > 1000) throw new InputError("seeds", `must be a whole number from 1 to 1000, got ${describeValue(seeds)}`);
  if (options.params.length === 0) throw new InputError("params", "give at least one, e.g. groups.0.config.pullThresholdForQueue=100,200,500");
  const params = parseParams(options.params);
  const warmupUs = parseDurationUs(options.warmup ?? "0s", "warmup");
  if (warmupUs >= base.durationUs) throw new InputError("warmup", `must be shorter than the run (${base.durationUs / 1e6} s)`);
  const { objective, requires } = resolveObjective(params, {
    ...(options.minimize !== undefined ? { minimize: options.minimize } : {}),
    ...(options.maximize !== undefined ? { maximize: options.maximize } : {}),
  }, options.require ?? []);
  for (const r of requires) parseRequirement(r);
  const runs: AssembleRun[] = [];
  const total = gridSize(params);
  for (let point = 0; point < total; point++) {
    const variant = normalizeScenario(buildVariant(scenario, gridPoint(params, point)));
    for (let seedIndex = 0; seedIndex < seeds; seedIndex++) {
      const run = simulateModel({ ...variant, seed: (base.seed + seedIndex) % 2 ** 32 });
      if (run.summary.complete) runs.push({ point, seedIndex, metrics: sweepMetrics(run.summary, run.series, warmupUs), complete: true });
    }
  }
  return assemble({
    scenario: base.name, baseSeed: base.seed, seeds, warmupMs: warmupUs / 1000, params, requires, objective,
    runs, shard: null, complete: runs.length === total * seeds,
  });
}

/** The CLI's file errors (BadInputError) as the API's one input error class. */
function asInputError(error: unknown): unknown {
  return error instanceof BadInputError ? new InputError(error.where, error.reason) : error;
}
