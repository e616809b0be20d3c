// `rmqsim run`: read the scenario → apply overrides and validate (pure) → simulate and render (in
// the engine) → write the report atomically → print the table or summary.json. Returns the exit code.
import { isAbsolute, relative, resolve, sep } from "node:path";
import { normalizeScenario } from "../scenario/normalize.ts";
import { applySets, parseSet, type SetOverride } from "../scenario/overrides.ts";
import { InputError } from "../scenario/errors.ts";
import type { Model } from "../scenario/types.ts";
import type { RunOutput, RunRequest } from "./computeRun.ts";
import type { CliEnv } from "./env.ts";
import { BadInputError, EXIT, inFile } from "./errors.ts";
import { parseCheckEvery, parseDurationOption, parseSeed } from "./overrides.ts";
import { progressMode, progressView } from "./progress.ts";
import { readJsonFile } from "./readJson.ts";
import { guardScenario, runLimits } from "./resourceGuards.ts";
import { formatRunTable } from "./summaryTable.ts";
import { checkReportTarget, replacedReportNotice, writeReportDir } from "./writeReport.ts";

export const DEFAULT_SCENARIO = "scenarios/default.json";

/** The run command's options as they come from the command line (strings unparsed). */
export interface RunOptions {
  scenario: string;
  seed?: string;
  out?: string;
  duration?: string;
  set: string[];
  json: boolean;
  quiet: boolean;
  charts: boolean;
  trace: boolean;
  /** Print progress lines even when stderr is not a terminal. */
  progress: boolean;
  /** --check-every: invariant and conservation checks during the run (default: at the end only). */
  checkEvery?: string;
  /** --max-memory: stop with a partial report (exit 3) past this size (default: resourceGuards.ts). */
  maxMemory?: string;
  /** --max-events: stop with a partial report (exit 3) after this many events. */
  maxEvents?: string;
}

/** A validated run: what the engine gets and where its report goes. */
export interface RunPlan {
  request: RunRequest;
  scenarioName: string;
  outDir: string;
  /** Printed on stderr before the run (unless --quiet): e.g. the producers may outgrow --max-memory. */
  warnings: string[];
}

/**
 * The pure step: overrides applied to the parsed scenario, the result validated, the output
 * directory chosen. Errors name the file, the option or the --set path at fault.
 */
export function planRun(options: RunOptions, raw: unknown, cwd: string, startedAt: string): RunPlan {
  const sets: SetOverride[] = options.set.map(parseSet);
  const seed = options.seed === undefined ? undefined : parseSeed(options.seed);
  const duration = options.duration === undefined ? undefined : parseDurationOption(options.duration);
  let scenario = applySets(raw, sets);
  // --seed and --duration are written into the scenario itself, so the report's copy of the input
  // says what actually ran and re-running it reproduces the result.
  const extra: SetOverride[] = [];
  if (seed !== undefined) extra.push({ path: "seed", keys: ["seed"], value: seed });
  if (duration !== undefined) extra.push({ path: "duration", keys: ["duration"], value: duration });
  scenario = applySets(scenario, extra);
  let model: Model;
  try {
    model = normalizeScenario(scenario);
  } catch (error) {
    throw inFile(options.scenario, blameSet(error, sets));
  }
  const name = model.name;
  const limits = runLimits(options);
  const warning = guardScenario(model, limits.maxMemoryBytes, options.scenario);
  if (options.out !== undefined && options.out.trim() === "") throw new BadInputError("--out", "must name a directory (it is empty)");
  const outDir = resolve(cwd, options.out ?? `reports/${name}`);
  const checkEveryUs = options.checkEvery === undefined ? 0 : parseCheckEvery(options.checkEvery);
  const request: RunRequest = { scenario, trace: options.trace, charts: options.charts, startedAt, ...limits, ...(checkEveryUs > 0 ? { checkEveryUs } : {}) };
  return { request, scenarioName: name, outDir, warnings: warning === null ? [] : [warning] };
}

/** Points a validation error at the --set that supplied the bad value, if one did. */
function blameSet(error: unknown, sets: readonly SetOverride[]): unknown {
  if (!(error instanceof InputError)) return error;
  const set = [...sets].reverse().find((s) => error.path === s.path || error.path.startsWith(`${s.path}.`) || s.path.startsWith(`${error.path}.`));
  return set === undefined ? error : new InputError(error.path, `${error.reason} (value from --set ${set.path})`);
}

export async function runCommand(options: RunOptions, env: CliEnv): Promise<number> {
  const raw = await readJsonFile(env.fs, resolve(env.cwd, options.scenario), options.scenario);
  const plan = planRun(options, raw, env.cwd, env.now().toISOString());
  const shownOut = displayPath(env.cwd, plan.outDir);
  // Checked before the run as well as at the end, so a bad --out costs no simulation time.
  await checkReportTarget(env.fs, plan.outDir, shownOut);
  if (!options.quiet) for (const warning of plan.warnings) env.stderr.write(`rmqsim: warning: ${warning}\n`);

  const view = progressView(env.stderr, progressMode(env.stderr, options.quiet, options.progress));
  const handle = env.engine(plan.request, (p) => view.update(p));
  let interrupts = 0;
  let temp: string | null = null;
  const dispose = env.onInterrupt(() => {
    interrupts++;
    if (interrupts === 1) {
      handle.stop();
      view.done();
      env.stderr.write("rmqsim: interrupted; stopping and writing a partial report (Ctrl-C again to quit at once)\n");
      return;
    }
    if (temp !== null) env.fs.removeSync(temp);
    env.stderr.write("rmqsim: interrupted again; quitting without a report\n");
    env.exitNow(EXIT.interrupted);
  });
  let output: RunOutput;
  let replaced: string | null = null;
  try {
    output = await handle.done;
    view.done();
    await checkReportTarget(env.fs, plan.outDir, shownOut);
    // Read before the write replaces it; printed even with --quiet: another scenario's report is gone.
    replaced = await replacedReportNotice(env.fs, plan.outDir, shownOut, plan.scenarioName);
    await writeReportDir(env.fs, plan.outDir, output.files, env.pid, { onTemp: (dir) => void (temp = dir), ...(env.pidAlive ? { pidAlive: env.pidAlive } : {}) });
  } finally {
    view.done();
    dispose();
  }
  for (const warning of output.warnings) env.stderr.write(`rmqsim: warning: ${warning}\n`);
  if (replaced !== null) env.stderr.write(`rmqsim: note: ${replaced}\n`);
  printResult(options, output, shownOut, env);
  return exitCodeOf(output);
}

function printResult(options: RunOptions, output: RunOutput, shownOut: string, env: CliEnv): void {
  const s = output.summary;
  // A guard's stop is printed even with --quiet: the run did not do what was asked (Ctrl-C was the user's own doing).
  if (!s.complete && (!options.quiet || s.stopReason !== "interrupted")) {
    const why = s.stopDetail ? `${s.stopReason}: ${s.stopDetail}` : s.stopReason;
    env.stderr.write(`rmqsim: the run stopped early (${why}); the report covers the first ${s.simulatedMs} ms${s.stopReason === "interrupted" ? "" : " (exit 3)"}\n`);
  }
  if (options.json) {
    const file = output.files.get("summary.json");
    env.stdout.write(typeof file === "string" ? file : new TextDecoder().decode(file));
  } else if (!options.quiet) {
    env.stdout.write(formatRunTable(output.summary, output.run, shownOut));
  }
}

/** Interrupted, then a guard's stop, beat failed expectations: a partial run's expectations mean little. */
export function exitCodeOf(output: RunOutput): number {
  if (!output.summary.complete) return output.summary.stopReason === "interrupted" ? EXIT.interrupted : EXIT.resourceLimit;
  if (output.summary.expectations.some((e) => !e.ok)) return EXIT.expectationsFailed;
  return EXIT.ok;
}

/** `dir` relative to cwd when inside it (with a trailing slash), else absolute. */
export function displayPath(cwd: string, dir: string): string {
  const rel = relative(cwd, dir);
  const shown = rel === "" ? "." : rel.startsWith("..") || isAbsolute(rel) ? dir : rel;
  return shown.endsWith(sep) ? shown : `${shown}${sep}`;
}
