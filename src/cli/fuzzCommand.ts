// `rmqsim fuzz <scenarios…>`: VOPR for consumer pipelines. Run i of root seed S draws its fault
// schedule and seeds its simulation from S + i (src/fuzz/runner.ts), so its verdict is the same on any
// thread; runs are dispatched in index order and every dispatched run completes, so the runs done are
// always runs 0…n−1, and the failure reported and shrunk is the lowest-index one among them. With
// --runs N that makes the whole result independent of the worker count; with --time-budget only n
// (how many runs fit) depends on the machine. Wall clock and files live here; src/fuzz is pure.
import { randomInt } from "node:crypto";
import { availableParallelism } from "node:os";
import { join, resolve } from "node:path";
import { FAULT_KINDS } from "../scenario/faultTypes.ts";
import { normalizeScenario } from "../scenario/normalize.ts";
import { parseDurationUs } from "../scenario/units.ts";
import { CHECK_EVERY_US, DURATION_CAP_US, FAULT_PHASE_SHARE, formatUs, prepareBase, runScenario, runSeedOf, type FuzzConfig, type RunVerdict } from "../fuzz/runner.ts";
import { SHRINK_RUNS_MAX, type ShrinkResult } from "../fuzz/shrink.ts";
import { collectScenarioFiles } from "./checkCommand.ts";
import type { CliEnv } from "./env.ts";
import { BadInputError, EXIT, inFile, ReportWriteError } from "./errors.ts";
import { inlineExecutor, threadExecutor, type FuzzExecutor } from "./fuzzExecutor.ts";
import { formatHeader, formatScenario, formatSummary, reproduceCommands, type FuzzResult, type ScenarioResult, type FuzzOptions } from "./fuzzOutput.ts";
export type { FuzzOptions } from "./fuzzOutput.ts";
import { readJsonFile } from "./readJson.ts";

export interface FuzzDeps {
  /** Where jobs run (default: worker threads when the environment has a pool, as `check` does; else inline). */
  executor?: (size: number) => FuzzExecutor;
  /** Monotonic wall clock, ms (default: performance.now). */
  nowMs?: () => number;
  /** The root seed when --seed is not given (default: a random one, printed so the run can be repeated). */
  randomSeed?: () => number;
}

/** Runs per scenario when neither --runs nor --time-budget is given. */
export const RUNS_DEFAULT = 100;
const RUNS_MAX = 10_000_000;
export const OUT_DEFAULT = "reports/fuzz";

export async function fuzzCommand(options: FuzzOptions, env: CliEnv, deps: FuzzDeps = {}): Promise<number> {
  const nowMs = deps.nowMs ?? (() => performance.now());
  const started = nowMs();
  const parsed = parseOptions(options, deps);
  const files = await collectScenarioFiles(options.targets, env);
  if (files.length === 0) throw new BadInputError("fuzz", "no scenario files found in the given paths");
  // Read and validate everything first: bad input stops the fuzz before any run.
  const bases: { file: string; name: string; base: Record<string, unknown> }[] = [];
  for (const file of files) {
    const raw = await readJsonFile(env.fs, resolve(env.cwd, file), file);
    try {
      const base = prepareBase(raw as Record<string, unknown>, parsed.config);
      bases.push({ file, name: normalizeScenario(base).name, base });
    } catch (error) {
      throw inFile(file, error);
    }
  }
  const workers = Math.max(1, Math.min(options.workers ?? availableParallelism(), 64));
  const executor = (deps.executor ?? (env.pool ? threadExecutor : inlineExecutor))(workers);
  const scenarios: ScenarioResult[] = [];
  // Human output goes out scenario by scenario, as each finishes; --json prints the whole result at the end.
  const say = (text: string) => {
    if (!options.json) env.stdout.write(text);
  };
  say(formatHeader(parsed.rootSeed, parsed.config));
  try {
    for (let k = 0; k < bases.length; k++) {
      // Each scenario's share of the budget ends at its own deadline; time a fast one leaves over passes on.
      const deadlineMs = parsed.budgetMs === null ? Infinity : started + (parsed.budgetMs * (k + 1)) / bases.length;
      const { file, name, base } = bases[k]!;
      const verdicts = await fuzzScenario(base, parsed, executor, deadlineMs, nowMs);
      const result: ScenarioResult = {
        file, name, runs: verdicts.length,
        failures: verdicts.flatMap((v, run) => (v.failure === null ? [] : [{ run, seed: v.runSeed, key: v.failure.key, message: v.failure.message, faults: v.faults }])),
        shrunk: null,
      };
      const first = result.failures[0];
      if (first !== undefined) {
        const failing = runScenario(base, first.seed, parsed.config).scenario;
        const reply = await executor.submit({ type: "shrink", scenario: failing, failure: { key: first.key, message: first.message }, config: parsed.config, runsMax: parsed.shrinkRuns });
        if (reply.type !== "shrink") throw new Error("fuzz worker: expected a shrink reply");
        const fileName = bases.length === 1 ? `fuzz-failure-${first.seed}.json` : `fuzz-failure-${name}-${first.seed}.json`;
        const written = join(parsed.out, fileName);
        await writeReproducer(resolve(env.cwd, written), reproducer(reply.result, name, file, first.seed, parsed), env);
        result.shrunk = {
          file: written, run: first.run, seed: first.seed, key: reply.result.failure.key, message: reply.result.failure.message,
          faultsBefore: (failing.faults as unknown[]).length, faultsAfter: ((reply.result.scenario.faults as unknown[] | undefined) ?? []).length,
          runs: reply.result.runs, steps: reply.result.steps,
          reproduce: reproduceCommands(written, file, first.seed, options, parsed.config),
        };
      }
      scenarios.push(result);
      say(formatScenario(result));
    }
  } finally {
    await executor.close();
  }
  const runs = scenarios.reduce((a, s) => a + s.runs, 0);
  const failures = scenarios.reduce((a, s) => a + s.failures.length, 0);
  const wallMs = nowMs() - started;
  const result: FuzzResult = {
    rootSeed: parsed.rootSeed, scenarios, runs, failures,
    wall: { ms: Math.round(wallMs), runsPerSec: Math.round((runs / Math.max(wallMs, 1)) * 10_000) / 10, workers },
  };
  env.stdout.write(options.json ? `${JSON.stringify(result, null, 2)}\n` : formatSummary(result));
  return failures > 0 ? EXIT.expectationsFailed : EXIT.ok;
}

interface Parsed {
  config: FuzzConfig;
  rootSeed: number;
  /** Runs per scenario (Infinity: until the budget is spent). */
  runs: number;
  budgetMs: number | null;
  shrinkRuns: number;
  out: string;
}

function parseOptions(o: FuzzOptions, deps: FuzzDeps): Parsed {
  const runs = o.runs === undefined ? (o.timeBudget === undefined ? RUNS_DEFAULT : Infinity) : wholeNumber("--runs", o.runs, 1, RUNS_MAX);
  const budgetMs = o.timeBudget === undefined ? null : durationUs("--time-budget", o.timeBudget) / 1000;
  if (budgetMs !== null && budgetMs <= 0) throw new BadInputError("--time-budget", "must be greater than 0");
  const kinds = o.faults === undefined ? undefined : o.faults.split(",").map((k) => k.trim()).filter((k) => k !== "");
  for (const k of kinds ?? []) {
    if (!(FAULT_KINDS as readonly string[]).includes(k)) throw new BadInputError("--faults", `unknown fault kind "${k}"; kinds are: ${FAULT_KINDS.join(", ")}`);
  }
  if (kinds !== undefined && kinds.length === 0) throw new BadInputError("--faults", "names no fault kind");
  const durationCapUs = o.duration === undefined ? DURATION_CAP_US : durationUs("--duration", o.duration);
  if (durationCapUs < 1000) throw new BadInputError("--duration", "must be at least 1ms");
  const checkEveryUs = o.checkEvery === undefined ? CHECK_EVERY_US : durationUs("--check-every", o.checkEvery);
  if (checkEveryUs <= 0) throw new BadInputError("--check-every", "must be greater than 0 (fuzz always checks during the run)");
  const rootSeed = o.seed === undefined ? (deps.randomSeed ?? (() => randomInt(2 ** 32)))() : wholeNumber("--seed", o.seed, 0, 2 ** 32 - 1);
  if (o.out === "") throw new BadInputError("--out", "must not be empty");
  return {
    config: { durationCapUs, faultPhaseShare: FAULT_PHASE_SHARE, ...(kinds ? { kinds } : {}), expects: o.expects, scenarioExpectations: o.scenarioExpectations, checkEveryUs },
    rootSeed, runs, budgetMs,
    shrinkRuns: o.shrinkRuns === undefined ? SHRINK_RUNS_MAX : wholeNumber("--shrink-runs", o.shrinkRuns, 0, 100_000),
    out: o.out ?? OUT_DEFAULT,
  };
}

/** Runs 0, 1, … of one scenario on the executor until --runs or the deadline; verdicts in run order. */
async function fuzzScenario(base: Record<string, unknown>, p: Parsed, executor: FuzzExecutor, deadlineMs: number, nowMs: () => number): Promise<RunVerdict[]> {
  const verdicts: RunVerdict[] = [];
  let next = 0;
  const lane = async () => {
    // Stop dispatching at the limit; a run already dispatched always completes, so the runs done are a
    // prefix. The first run of each lane goes out whatever the clock says: a scenario whose share of the
    // budget the one before it used up still gets runs.
    while (next < p.runs && (next < executor.size || nowMs() < deadlineMs)) {
      const i = next++;
      const reply = await executor.submit({ type: "run", base, runSeed: runSeedOf(p.rootSeed, i), config: p.config });
      if (reply.type !== "run") throw new Error("fuzz worker: expected a run reply");
      verdicts[i] = reply.verdict;
    }
  };
  await Promise.all(Array.from({ length: executor.size }, lane));
  return verdicts;
}

/** The shrunk scenario as a file `rmqsim check` runs: named, described, expecting what failed. */
function reproducer(r: ShrinkResult, name: string, file: string, seed: number, p: Parsed): Record<string, unknown> {
  const { $schema: _schema, name: _name, description: _description, expect: _expect, ...rest } = r.scenario;
  const expect = r.failure.key.startsWith("expect: ") ? [r.failure.key.slice("expect: ".length)] : [];
  return {
    name: `${name}-fuzz-${seed}`.slice(0, 127),
    description: `Found by rmqsim fuzz (${file}, run seed ${seed}) and shrunk: fails with "${r.failure.key}" (${r.failure.message}). ` +
      `Reproduce with rmqsim check <this file> --check-every ${formatUs(p.config.checkEveryUs)}.`,
    ...rest,
    expect,
  };
}

async function writeReproducer(target: string, scenario: Record<string, unknown>, env: CliEnv): Promise<void> {
  const dir = resolve(target, "..");
  try {
    await env.fs.mkdir(dir);
    await env.fs.writeFile(`${target}.tmp-${env.pid}`, `${JSON.stringify(scenario, null, 2)}\n`);
    await env.fs.rename(`${target}.tmp-${env.pid}`, target);
  } catch (error) {
    throw new ReportWriteError(dir, error);
  }
}

function wholeNumber(flag: string, text: string, min: number, max: number): number {
  const n = Number(text);
  if (text.trim() === "" || !Number.isInteger(n) || n < min || n > max) throw new BadInputError(flag, `must be a whole number from ${min} to ${max}, got "${text}"`);
  return n;
}

function durationUs(flag: string, text: string): number {
  try {
    return parseDurationUs(text, flag);
  } catch {
    throw new BadInputError(flag, `"${text}" is not a duration such as 30s, 10m or 2h`);
  }
}
