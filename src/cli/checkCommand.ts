// `rmqsim check <files|dirs…>`: runs scenarios (in parallel worker threads; results are the same as a
// serial run because every run is deterministic), prints one line per expectation, and optionally
// checks determinism (each run twice), drift against stored baselines, and writes JUnit XML.
import { formatSeedSpread } from "./seedSpread.ts";
import { basename, join, resolve } from "node:path";
import { availableParallelism } from "node:os";
import { normalizeScenario } from "../scenario/normalize.ts";
import type { Summary } from "../metrics/summary.ts";
import { compareSummaries, formatDrift, type Tolerance } from "../checks/baseline.ts";
import { toleranceOptions } from "./compareCommand.ts";
import { toJUnitXml, type CheckSuite } from "../checks/junit.ts";
import type { CliEnv } from "./env.ts";
import { BadInputError, EXIT, inFile, ResourceLimitError } from "./errors.ts";
import { guardScenario, runLimits, type RunLimits } from "./resourceGuards.ts";
import { readJsonFile } from "./readJson.ts";
import { parseCheckEvery } from "./overrides.ts";
import type { RunOutput } from "./computeRun.ts";

export interface CheckOptions {
  targets: string[];
  /** Seeds per scenario: the scenario's seed, then seed + 1, … */
  seeds: number;
  junit?: string;
  baseline?: string;
  updateBaseline: boolean;
  tolerance: string;
  /** Per-key tolerances, "path=5%". */
  toleranceFor: string[];
  determinism: boolean;
  workers?: number;
  json: boolean;
  /** --check-every: invariant and conservation checks during each run (default: every 10 s of virtual
   * time, or every duration / MAX_DEFAULT_CHECKS if that is longer). */
  checkEvery?: string;
  /** --max-memory / --max-events: a run past them stops early and fails the check (exit 3). */
  maxMemory?: string;
  maxEvents?: string;
}

/** How often `check` runs the invariant and conservation checks unless told otherwise. */
export const CHECK_EVERY_DEFAULT = "10s";
/** Without --check-every a run is checked at most this many times (a 96-hour scenario every 173 s). */
export const MAX_DEFAULT_CHECKS = 2000;

/** One run to do: a scenario file under one seed (twice with --determinism). */
interface Job {
  file: string;
  name: string;
  raw: Record<string, unknown>;
  seed: number;
  /** Checks during the run every this many µs of virtual time; 0 = only at the end. */
  checkEveryUs: number;
  /** Why a resource guard refuses to run it at all (a backlog beyond --max-memory), or null. */
  refused: string | null;
}

/** What one run gave: its summary, or the error that ended it. */
interface RunOutcome {
  summary: Summary | null;
  error: string | null;
  wallMs: number;
  /** A resource guard stopped or refused it (exit 3 unless something else failed). */
  limited: boolean;
}

export interface JobResult {
  job: Job;
  summary: Summary | null;
  /** The run's own failure (conservation, invariant, internal, or a resource guard's stop). */
  error: string | null;
  limited: boolean;
  wallMs: number;
  /** With --determinism: the second run's trace hash and whether the summaries were identical. */
  second?: { traceHash: string; sameSummary: boolean };
  drift?: string;
}

export async function checkCommand(options: CheckOptions, env: CliEnv): Promise<number> {
  const files = await collectScenarioFiles(options.targets, env);
  if (files.length === 0) throw new BadInputError("check", "no scenario files found in the given paths");
  if (!Number.isInteger(options.seeds) || options.seeds < 1 || options.seeds > 1000) {
    throw new BadInputError("--seeds", `must be a whole number from 1 to 1000, got ${options.seeds}`);
  }
  const { tolerance, overrides } = toleranceOptions(options.tolerance, options.toleranceFor);
  const givenUs = options.checkEvery === undefined ? null : parseCheckEvery(options.checkEvery);
  const defaultUs = parseCheckEvery(CHECK_EVERY_DEFAULT);
  const limits = runLimits(options);
  const workers = Math.max(1, Math.min(options.workers ?? availableParallelism(), 64));
  // Read and validate everything first: bad input stops the check before any run.
  const jobs: Job[] = [];
  for (const file of files) {
    const raw = (await readJsonFile(env.fs, resolve(env.cwd, file), file)) as Record<string, unknown>;
    let model;
    try {
      model = normalizeScenario(raw);
    } catch (error) {
      throw inFile(file, error);
    }
    const checkEveryUs = givenUs ?? Math.max(defaultUs, Math.ceil(model.durationUs / MAX_DEFAULT_CHECKS));
    let refused: string | null = null;
    try {
      const warning = guardScenario(model, limits.maxMemoryBytes, file, workers);
      if (warning !== null) env.stderr.write(`rmqsim: warning: ${warning}\n`);
    } catch (error) {
      if (!(error instanceof ResourceLimitError)) throw error;
      refused = error.message;
    }
    for (let k = 0; k < options.seeds; k++) jobs.push({ file, name: model.name, raw, seed: (model.seed + k) % 2 ** 32, checkEveryUs, refused });
  }
  const runs = options.determinism ? jobs.flatMap((j) => [j, j]) : jobs;
  const pool = env.pool?.(workers);
  let outputs;
  try {
    outputs = await runPool(runs, workers, limits, { ...env, engine: pool?.engine ?? env.engine });
  } finally {
    await pool?.close();
  }
  const results: JobResult[] = jobs.map((job, i) => {
    const first = outputs[options.determinism ? 2 * i : i]!;
    const r: JobResult = { job, summary: first.summary, error: first.error, wallMs: first.wallMs, limited: first.limited };
    const second = options.determinism ? outputs[2 * i + 1]! : null;
    // A run a guard stopped has no determinism verdict (two such runs need not stop at the same event).
    if (second !== null && second.limited && !first.limited) {
      r.error = `second run (--determinism): ${second.error}`;
      r.limited = true;
    } else if (second !== null && !first.limited) {
      r.second = {
        traceHash: second.summary?.traceHash ?? "",
        sameSummary: JSON.stringify(second.summary) === JSON.stringify(first.summary),
      };
    }
    return r;
  });
  if (options.baseline !== undefined) await baselines(results, options, tolerance, overrides, env);
  // A definite failure (exit 1) outranks a run a guard stopped, whose verdict is unknown (exit 3).
  let failed = false;
  let limited = false;
  for (const r of results) {
    if (passed(r, options)) continue;
    if (r.limited && r.drift === undefined) limited = true;
    else failed = true;
  }
  if (options.json) env.stdout.write(`${JSON.stringify(results.map(toJson), null, 2)}\n`);
  else env.stdout.write(formatResults(results, options));
  if (options.junit !== undefined) {
    const xml = toJUnitXml(results.map((r) => toSuite(r, options)));
    const target = resolve(env.cwd, options.junit);
    await env.fs.writeFile(`${target}.tmp-${env.pid}`, xml);
    await env.fs.rename(`${target}.tmp-${env.pid}`, target);
  }
  return failed ? EXIT.expectationsFailed : limited ? EXIT.resourceLimit : EXIT.ok;
}

/** Files given, and the .json scenarios (not JSON Schemas) inside directories given, sorted. */
export async function collectScenarioFiles(targets: readonly string[], env: Pick<CliEnv, "fs" | "cwd">): Promise<string[]> {
  const out: string[] = [];
  for (const t of targets) {
    const kind = await env.fs.kind(resolve(env.cwd, t));
    if (kind === "missing") throw new BadInputError(t, "no such file or directory");
    if (kind === "dir") {
      const names = (await env.fs.readDir(resolve(env.cwd, t))).filter((n) => n.endsWith(".json") && n !== "schema.json").sort();
      out.push(...names.map((n) => join(t, n)));
    } else {
      out.push(t);
    }
  }
  return out;
}

/** Runs jobs on up to `workers` engines at once; results come back in job order. */
async function runPool(jobs: readonly Job[], workers: number, limits: RunLimits, env: CliEnv): Promise<RunOutcome[]> {
  const results: RunOutcome[] = new Array(jobs.length);
  let next = 0;
  const startedAt = env.now().toISOString();
  const worker = async () => {
    for (;;) {
      const i = next++;
      if (i >= jobs.length) return;
      const job = jobs[i]!;
      if (job.refused !== null) {
        results[i] = { summary: null, error: `refused: ${job.refused}`, wallMs: 0, limited: true };
        continue;
      }
      const scenario = { ...job.raw, seed: job.seed };
      try {
        const out: RunOutput = await env.engine({ scenario, trace: false, charts: false, report: false, startedAt, ...limits, ...(job.checkEveryUs > 0 ? { checkEveryUs: job.checkEveryUs } : {}) }, () => {}).done;
        const s = out.summary;
        const error = s.complete ? null : `stopped early (${s.stopReason}): ${s.stopDetail ?? ""}`;
        results[i] = { summary: s, error, wallMs: out.run.wallMs, limited: !s.complete };
      } catch (error) {
        results[i] = { summary: null, error: error instanceof Error ? error.message : String(error), wallMs: 0, limited: error instanceof ResourceLimitError };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(workers, jobs.length) }, worker));
  return results;
}

async function baselines(results: JobResult[], options: CheckOptions, tolerance: Tolerance, overrides: Record<string, Tolerance>, env: CliEnv): Promise<void> {
  const dir = resolve(env.cwd, options.baseline!);
  if (options.updateBaseline) await env.fs.mkdir(dir);
  for (const r of results) {
    // A partial run is neither a baseline nor comparable with one (its error already fails it).
    if (r.summary === null || !r.summary.complete) continue;
    const file = join(dir, baselineName(r.job));
    if (options.updateBaseline) {
      await env.fs.writeFile(`${file}.tmp-${env.pid}`, `${JSON.stringify(r.summary, null, 2)}\n`);
      await env.fs.rename(`${file}.tmp-${env.pid}`, file);
      continue;
    }
    if ((await env.fs.kind(file)) !== "file") {
      r.drift = `no baseline at ${join(options.baseline!, baselineName(r.job))} (create it with --update-baseline)`;
      continue;
    }
    const base = await readJsonFile(env.fs, file, join(options.baseline!, baselineName(r.job)));
    const drifts = compareSummaries(base, r.summary, { tolerance, overrides });
    if (drifts.length > 0) r.drift = formatDrift(drifts);
  }
}

export function baselineName(job: { name: string; seed: number }): string {
  return `${job.name}.seed-${job.seed}.summary.json`;
}

function passed(r: JobResult, options: CheckOptions): boolean {
  if (r.error !== null || r.summary === null) return false;
  if (r.summary.expectations.some((e) => !e.ok)) return false;
  if (r.second && (r.second.traceHash !== r.summary.traceHash || !r.second.sameSummary)) return false;
  if (r.drift !== undefined && !options.updateBaseline) return false;
  return true;
}

function formatResults(results: readonly JobResult[], options: CheckOptions): string {
  let out = "";
  let failures = 0;
  for (const r of results) {
    const ok = passed(r, options);
    if (!ok) failures++;
    const head = `${ok ? "PASS" : "FAIL"}  ${r.job.name} (seed ${r.job.seed})  ${r.job.file}  ${(r.wallMs / 1000).toFixed(1)} s`;
    out += `${head}\n`;
    if (r.error !== null) out += `      error: ${r.error}\n`;
    if (r.summary !== null && !r.summary.complete) out += "      expectations not judged: the run is incomplete\n";
    else for (const e of r.summary?.expectations ?? []) out += `  ${e.ok ? "✓" : "✗"} ${e.expression}   [${e.actual}]\n`;
    if (r.second) {
      const same = r.second.traceHash === r.summary?.traceHash && r.second.sameSummary;
      out += same
        ? `  ✓ deterministic: trace ${r.second.traceHash} twice\n`
        : `  ✗ not deterministic: trace ${r.summary?.traceHash} then ${r.second.traceHash}${r.second.sameSummary ? "" : ", summaries differ"}\n`;
    }
    if (r.drift !== undefined) out += r.drift.split("\n").map((l) => `  ${l}\n`).join("");
    if (!ok) out += `  reproduce: rmqsim run ${r.job.file} --seed ${r.job.seed}\n`;
  }
  if (options.seeds > 1) out += formatSeedSpread(results.map((r) => ({ name: r.job.name, summary: r.summary })));
  out += `${results.length - failures} passed, ${failures} failed\n`;
  return out;
}

function toJson(r: JobResult) {
  return {
    file: r.job.file, scenario: r.job.name, seed: r.job.seed, error: r.error, complete: r.summary?.complete ?? false,
    expectations: r.summary?.expectations ?? [], traceHash: r.summary?.traceHash ?? null,
    ...(r.second ? { deterministic: r.second.traceHash === r.summary?.traceHash && r.second.sameSummary } : {}),
    ...(r.drift !== undefined ? { drift: r.drift } : {}),
  };
}

function toSuite(r: JobResult, options: CheckOptions): CheckSuite {
  const cases: CheckSuite["cases"] = (r.summary?.expectations ?? []).map((e) => ({
    name: e.expression, ok: e.ok, actual: e.actual, ...(e.ok ? {} : { message: `actual: ${e.actual}` }),
  }));
  if (r.second) {
    const same = r.second.traceHash === r.summary?.traceHash && r.second.sameSummary;
    cases.push({ name: "determinism", ok: same, actual: `trace ${r.summary?.traceHash} / ${r.second.traceHash}` });
  }
  if (options.baseline !== undefined && !options.updateBaseline) {
    cases.push({ name: "baseline", ok: r.drift === undefined, actual: r.drift ?? "within tolerance", ...(r.drift ? { message: r.drift } : {}) });
  }
  return {
    name: r.job.name, file: basename(r.job.file), seed: r.job.seed, timeMs: r.wallMs, cases,
    ...(r.error !== null ? { error: r.error } : {}),
  };
}
