// `rmqsim check --baseline <dir>`: compare each run's summary with <dir>/<name>.seed-<seed>.summary.json
// (direction-aware: src/checks/baselineCompare.ts), or with --update-baseline write them — refusing
// when a run fails unless --force. Split from checkCommand.ts.
import { join, resolve } from "node:path";
import { DEFAULT_IGNORES, leafPairs, parseTolerance, type Tolerance } from "../checks/baseline.ts";
import { compareBaseline, formatBaseline, type BaselineOptions } from "../checks/baselineCompare.ts";
import type { CheckOptions, JobResult } from "./checkTypes.ts";
import { passedRun } from "./checkOutput.ts";
import { toleranceOptions } from "./compareCommand.ts";
import type { CliEnv } from "./env.ts";
import { BadInputError } from "./errors.ts";
import { readJsonFile } from "./readJson.ts";

export function baselineName(job: { name: string; seed: number }): string {
  return `${job.name}.seed-${job.seed}.summary.json`;
}

/**
 * --tolerance (both directions), --tolerance-worse / --tolerance-better (one each, default --tolerance),
 * --tolerance-for (per path, both directions) and --strict-baseline, parsed; bad text is exit 2.
 */
export function baselineTolerances(options: Pick<CheckOptions, "tolerance" | "toleranceWorse" | "toleranceBetter" | "toleranceFor" | "strictBaseline">): BaselineOptions {
  const { tolerance, overrides } = toleranceOptions(options.tolerance, options.toleranceFor);
  const one = (text: string | undefined, flag: string): Tolerance => {
    if (text === undefined) return tolerance;
    try {
      return parseTolerance(text);
    } catch (error) {
      throw new BadInputError(flag, (error as Error).message);
    }
  };
  return { worse: one(options.toleranceWorse, "--tolerance-worse"), better: one(options.toleranceBetter, "--tolerance-better"), overrides, strict: options.strictBaseline === true };
}

/**
 * --update-baseline records what the runs do now; a run that fails its expectations (or errs, or is not
 * deterministic) would record a broken behaviour as the reference. Unless --force, nothing is written:
 * says why on stderr and returns true (the check exits 1).
 */
export function refuseUpdate(results: readonly JobResult[], options: Pick<CheckOptions, "force">, env: Pick<CliEnv, "stderr">): boolean {
  if (options.force === true) return false;
  // A run a guard stopped (exit 3) writes no baseline anyway and has no verdict: it does not refuse the others.
  const failing = results.filter((r) => !passedRun(r) && !r.limited);
  if (failing.length === 0) return false;
  const names = failing.slice(0, 5).map((r) => `${r.job.name} (seed ${r.job.seed})`).join(", ");
  env.stderr.write(
    `rmqsim: not updating the baselines: ${failing.length} run${failing.length === 1 ? "" : "s"} fail${failing.length === 1 ? "s" : ""} ${failing.length > 5 ? `(${names}, …)` : `(${names})`}; ` +
      "a baseline records the behaviour to keep. Fix the failures, or pass --force to record them anyway.\n",
  );
  return true;
}

/** Compares (or with --update-baseline writes) each complete run's baseline; sets `r.baseline`. */
export async function checkBaselines(results: JobResult[], options: CheckOptions, tolerances: BaselineOptions, env: CliEnv): Promise<void> {
  const dir = resolve(env.cwd, options.baseline!);
  if (options.updateBaseline) await env.fs.mkdir(dir);
  for (const r of results) {
    // A partial run is neither a baseline nor comparable with one (its error already fails it).
    if (r.summary === null || !r.summary.complete) continue;
    const file = join(dir, baselineName(r.job));
    const shown = join(options.baseline!, baselineName(r.job));
    if (options.updateBaseline) {
      const existed = (await env.fs.kind(file)) === "file";
      await env.fs.writeFile(`${file}.tmp-${env.pid}`, `${JSON.stringify(r.summary, null, 2)}\n`);
      await env.fs.rename(`${file}.tmp-${env.pid}`, file);
      const figures = leafPairs(r.summary, r.summary, DEFAULT_IGNORES).length;
      const forced = passedRun(r) ? "" : " (--force: this run fails, and was recorded anyway)";
      r.baseline = { ok: true, text: `baseline ${existed ? "replaced" : "written"}: ${shown} (${figures} figures)${forced}` };
      continue;
    }
    if ((await env.fs.kind(file)) !== "file") {
      r.baseline = { ok: false, text: `no baseline at ${shown} (create it with --update-baseline)` };
      continue;
    }
    const base = await readJsonFile(env.fs, file, shown);
    const comparison = compareBaseline(base, r.summary, tolerances);
    r.baseline = { ok: comparison.failures.length === 0, text: formatBaseline(comparison, shown, tolerances.strict), comparison };
  }
}
