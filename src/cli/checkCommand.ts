// `rmqsim check <files|dirs…>`: runs scenarios (in parallel worker threads; results are the same as a
// serial run because every run is deterministic), prints one line per expectation, and optionally
// checks determinism (each run twice), drift against stored baselines, and writes JUnit XML.
import { dirname, join, resolve } from "node:path";
import { availableParallelism } from "node:os";
import { normalizeScenario } from "../scenario/normalize.ts";
import { toJUnitXml } from "../checks/junit.ts";
import type { CliEnv } from "./env.ts";
import { BadInputError, EXIT, inFile, ResourceLimitError } from "./errors.ts";
import { guardScenario, runLimits, type RunLimits } from "./resourceGuards.ts";
import { readJsonFile } from "./readJson.ts";
import { parseCheckEvery } from "./overrides.ts";
import type { RunOutput } from "./computeRun.ts";
import { baselineTolerances, checkBaselines, refuseUpdate } from "./checkBaseline.ts";
export { baselineName } from "./checkBaseline.ts";
import { formatResults, passed, toJson, toSuite } from "./checkOutput.ts";
import { writeRunReports } from "./checkReportDir.ts";

export type { CheckOptions, Job, JobResult, RunOutcome } from "./checkTypes.ts";
import type { CheckOptions, Job, JobResult, RunOutcome } from "./checkTypes.ts";

/** How often `check` runs the invariant and conservation checks unless told otherwise. */
export const CHECK_EVERY_DEFAULT = "10s";
/** Without --check-every a run is checked at most this many times (a 96-hour scenario every 173 s). */
export const MAX_DEFAULT_CHECKS = 2000;

export async function checkCommand(options: CheckOptions, env: CliEnv): Promise<number> {
  const files = await collectScenarioFiles(options.targets, env);
  if (files.length === 0) throw new BadInputError("check", "no scenario files found in the given paths");
  if (!Number.isInteger(options.seeds) || options.seeds < 1 || options.seeds > 1000) {
    throw new BadInputError("--seeds", `must be a whole number from 1 to 1000, got ${options.seeds}`);
  }
  const tolerances = baselineTolerances(options);
  if (options.reportDirAll && options.reportDir === undefined) throw new BadInputError("--report-dir-all", "needs --report-dir <dir>: where to write the reports");
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
  const runEnv = { ...env, engine: pool?.engine ?? env.engine };
  // --report-dir-all renders every report in the first pass; --report-dir re-runs only the failing
  // runs with a report (runs are deterministic, so the re-run is the same run).
  const reportAll = options.reportDir !== undefined && options.reportDirAll === true;
  try {
    // With --determinism the second run of each pair (odd indices) needs no report.
    const outputs = await runPool(runs, workers, limits, runEnv, (i) => reportAll && (!options.determinism || i % 2 === 0));
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
    let refused = false;
    if (options.baseline !== undefined) {
      refused = options.updateBaseline && refuseUpdate(results, options, env);
      if (!refused) await checkBaselines(results, options, tolerances, env);
    }
    if (options.reportDir !== undefined) {
      await writeRunReports(results, options, env, (again) => runPool(again, workers, limits, runEnv, () => true), reportAll ? (i) => outputs[options.determinism ? 2 * i : i]!.files : undefined);
    }
    // A definite failure (exit 1) outranks a run a guard stopped, whose verdict is unknown (exit 3).
    let failed = refused;
    let limited = false;
    for (const r of results) {
      if (passed(r, options)) continue;
      if (r.limited && r.baseline === undefined) limited = true;
      else failed = true;
    }
    if (options.json) env.stdout.write(`${JSON.stringify(results.map(toJson), null, 2)}\n`);
    else env.stdout.write(formatResults(results, options));
    if (options.junit !== undefined) {
      const xml = toJUnitXml(results.map((r) => toSuite(r, options)));
      const target = resolve(env.cwd, options.junit);
      await env.fs.mkdir(dirname(target));
      await env.fs.writeFile(`${target}.tmp-${env.pid}`, xml);
      await env.fs.rename(`${target}.tmp-${env.pid}`, target);
    }
    return failed ? EXIT.expectationsFailed : limited ? EXIT.resourceLimit : EXIT.ok;
  } finally {
    await pool?.close();
  }
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

/** Runs jobs on up to `workers` engines at once, job i with a rendered report when reportOf(i); results come back in job order. */
async function runPool(jobs: readonly Job[], workers: number, limits: RunLimits, env: CliEnv, reportOf: (index: number) => boolean): Promise<RunOutcome[]> {
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
      const report = reportOf(i);
      try {
        const out: RunOutput = await env.engine({ scenario, trace: false, charts: report, report, startedAt, ...limits, ...(job.checkEveryUs > 0 ? { checkEveryUs: job.checkEveryUs } : {}) }, () => {}).done;
        const s = out.summary;
        const error = s.complete ? null : `stopped early (${s.stopReason}): ${s.stopDetail ?? ""}`;
        results[i] = { summary: s, error, wallMs: out.run.wallMs, limited: !s.complete, ...(report ? { files: out.files } : {}) };
      } catch (error) {
        results[i] = { summary: null, error: error instanceof Error ? error.message : String(error), wallMs: 0, limited: error instanceof ResourceLimitError };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(workers, jobs.length) }, worker));
  return results;
}
