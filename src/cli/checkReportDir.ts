// `rmqsim check --report-dir <dir>`: the failing runs' reports — the same files `rmqsim run` writes
// (report.html, summary.json, charts, timeseries.csv…) — in <dir>/<scenario>.seed-<seed>/, so CI can
// upload them and a failure can be opened. Passing runs write nothing unless --report-dir-all.
import { join, resolve } from "node:path";
import type { CheckOptions, Job, JobResult, RunOutcome } from "./checkTypes.ts";
import { passed } from "./checkOutput.ts";
import type { CliEnv } from "./env.ts";
import { writeReportDir } from "./writeReport.ts";

/** A run's folder under --report-dir: `<scenario>.seed-<seed>`, as baselines are named. */
export function reportFolderName(job: Pick<Job, "name" | "seed">): string {
  return `${job.name}.seed-${job.seed}`;
}

/**
 * Writes the reports of the failing runs (every run's with --report-dir-all) and sets `r.reportDir`.
 * `filesOf(i)` gives the files a first pass already rendered (--report-dir-all); otherwise the run is
 * done again with a report by `rerun` — the same scenario and seed, so the same run. A run a resource
 * guard refused has nothing to show and is skipped.
 */
export async function writeRunReports(
  results: JobResult[],
  options: Pick<CheckOptions, "reportDir" | "reportDirAll" | "updateBaseline">,
  env: CliEnv,
  rerun: (jobs: Job[]) => Promise<RunOutcome[]>,
  filesOf?: (index: number) => Map<string, Uint8Array | string> | undefined,
): Promise<void> {
  const root = resolve(env.cwd, options.reportDir!);
  const wanted = results.filter((r) => (options.reportDirAll === true || !passed(r, options)) && r.job.refused === null);
  const given = wanted.map((r) => filesOf?.(results.indexOf(r)));
  // The runs without files yet, again with a report, in parallel on the pool.
  const missing = wanted.filter((_, k) => given[k] === undefined);
  const again = missing.length > 0 ? await rerun(missing.map((r) => r.job)) : [];
  for (let k = 0; k < wanted.length; k++) {
    const r = wanted[k]!;
    let files = given[k];
    if (files === undefined) {
      const outcome = again[missing.indexOf(r)]!;
      if (outcome.files === undefined) {
        env.stderr.write(`rmqsim: warning: no report for ${r.job.name} (seed ${r.job.seed}): ${outcome.error ?? "the run gave none"}\n`);
        continue;
      }
      files = outcome.files;
    }
    await env.fs.mkdir(root);
    const name = reportFolderName(r.job);
    await writeReportDir(env.fs, join(root, name), files, env.pid, env.pidAlive ? { pidAlive: env.pidAlive } : {});
    r.reportDir = join(options.reportDir!, name);
  }
}
