// The argv layer: commander turns the command line into calls of the command functions, and this is
// the one exit point where errors become exit codes. The only code that touches process globals is
// realEnv() and main() below.
import { Command, CommanderError } from "commander";
import pkg from "../../package.json" with { type: "json" };
import { SCENARIO_DEFAULTS } from "../scenario/defaults.ts";
import { realEnv, type CliEnv } from "./env.ts";
import { BadInputError, EXIT, reportError } from "./errors.ts";
import { DEFAULT_SCENARIO_DIR, listCommand } from "./listCommand.ts";
import { DEFAULT_SCENARIO, runCommand, type RunOptions } from "./runCommand.ts";
import { validateCommand } from "./validateCommand.ts";
import { initCommand } from "./initCommand.ts";
import { CHECK_EVERY_DEFAULT, checkCommand, MAX_DEFAULT_CHECKS } from "./checkCommand.ts";
import { compareCommand } from "./compareCommand.ts";
import { mergeCommand, sweepCommand } from "./sweepCommand.ts";
import { fuzzCommand } from "./fuzzCommand.ts";
import { explainCommand } from "./explainCommand.ts";

const EXIT_HELP = `
Exit codes:
  0   success
  1   the run finished but an "expect" entry of the scenario failed (check: also a baseline drift, or
      --update-baseline refused because a run fails)
  2   bad input: command line, unreadable file, malformed JSON or invalid scenario (an expectation
      whose window or at(…) time lies beyond the run, after --duration / --set, included)
  3   a resource guard stopped a run (--max-memory, --max-events, too many pending events): a partial
      report with "complete": false and the reason was written (or the run was refused before it began)
  70  internal error (a bug in rmqsim)
  74  the report could not be written (the previous report is left untouched)
  130 run interrupted by Ctrl-C (a partial report with "complete": false was written)`;

const MAX_MEMORY_HELP = "stop a run cleanly (partial report, exit 3) once its memory passes <size>, e.g. 2GiB, 512MiB (default: 75% of the machine's memory; check and sweep give each worker thread its share)";
const MAX_EVENTS_HELP = `stop a run cleanly (partial report, exit 3) after <n> events (default: ${SCENARIO_DEFAULTS.maxEvents})`;

const RUN_HELP = `
Writes summary.json, why.json (rmqsim explain --json for this run), run.json, timeseries.csv, the
charts (*.png) and report.html into the output directory (and trace.jsonl with --trace). Files are written to <out>.tmp-<pid> first and renamed over
the previous report only when all are written.

--set takes a dot path into the scenario JSON; list entries are numbered from 0. The value is parsed
as JSON if it can be, else taken as a string. The result is validated like the file itself.

Ctrl-C stops the simulation at the next slice of virtual time and writes a partial report
("complete": false, exit code 130); a second Ctrl-C quits at once without a report. --max-memory and
--max-events stop it the same way (stopReason "maxMemory" / "maxEvents", exit code 3); a backlog that
cannot fit in --max-memory is refused before anything is built.

Objects missing on the way are created (groups.0.config.pullThresholdForQueue=200 works on a group
without a config); a whole object can be set too: --set 'groups.0.listener={"consumeTime":"20ms"}'

Examples:
  $ rmqsim run scenarios/hung-message.json --duration 2m
  $ rmqsim run scenarios/count-flow-control.json --set groups.0.config.pullThresholdForQueue=200
  $ rmqsim run --set topics.0.produce.rate=5000 --seed 7 --json > summary.json`;

const CHECK_HELP = `
Each expectation prints as ✓ or ✗ with the figures it rests on; a failed one also prints its threshold
and actual value and, for a time series, when (the deciding sample, the window) and where (the worst
queue or instance); a failing run prints the exact command that reproduces it. Runs go to worker
threads; results are identical to a serial run.

Baselines are direction-aware: lag, latency, memory and losses are better lower, consumption throughput
higher, counts neither. A change the bad way beyond --tolerance-worse fails; one the good way beyond
--tolerance-better is reported as "improved" (a failure only with --strict-baseline). End-of-run
snapshots (per-queue cached counts, offsets, in-flight messages) are skipped, final lags compared within
the tolerance of the run's peak; figures new in the run are "new, not compared".

Examples:
  $ rmqsim check scenarios/ --determinism
  $ rmqsim check scenarios/count-flow-control.json --seeds 5 --junit reports/junit.xml
  $ rmqsim check scenarios/ --report-dir reports/check
  $ rmqsim check scenarios/ --baseline ci/baselines --update-baseline
  $ rmqsim check scenarios/ --baseline ci/baselines --tolerance-worse 5% --tolerance-better 50% --tolerance-for latency=20%`;

const SWEEP_HELP = `
Every point runs under --seeds seeds; metrics are means with 95 % confidence intervals (Student t).
Without --minimize/--maximize the recommendation is the smallest value of the first parameter that is
as good as the best on throughput (within 1 %: a requirement), then on p99 end-to-end latency, then on
peak committed lag (tie-breakers: no worse than the best feasible point's by more than 5 % plus both
points' 95 % half-widths).
A burst that drains before the run ends leaves throughput flat, so the tie-breakers decide. A warning
is printed when the objective's metric does not vary across the grid (within 1 % or its CI).
In --require, "best" is the best mean of the first metric named.
--param a,b=values ties paths: both take each value together (no grid between them), e.g.
groups.0.config.consumeThreadMin,groups.0.config.consumeThreadMax=10,20,40 (min must not exceed max;
the model's concurrency is consumeThreadMin, and it has no CPU contention: threads cost nothing here).
Metrics: throughput.consumedPerSec.mean|min, lag.committed.mean|max, lag.unpulled.max,
cache.countPerQueueMax, cache.bytesPerQueueMax, cache.bytesPerConsumerMax, memoryPerConsumerMiB,
heapEstimateMiB, latency.endToEnd.p99Ms|p50Ms, flowControl.perSec, messages.lost, messages.duplicates.

Writes sweep.json, sweep.csv, sweep-*.png (heatmap-*.png for 2-D grids), sweep.html and
recommendation.md. Results are identical whatever --workers; shards merged equal a single run.

Examples:
  $ rmqsim sweep scenarios/tune-pull-threshold.json --param groups.0.config.pullThresholdForQueue=8..1024*2 --seeds 3 --warmup 20s
  $ rmqsim sweep s.json --param groups.0.config.pullThresholdForQueue=100,500,1000 \\
      --param groups.0.config.consumeThreadMin,groups.0.config.consumeThreadMax=10,20,40 \\
      --minimize cache.bytesPerConsumerMax --require "throughput.consumedPerSec.mean >= 0.99 * best"
  $ rmqsim sweep s.json --param groups.0.config.pullThresholdForQueue=50..5000*2 --shard 2/4 --out shard-2`;

function parseWorkers(text: string): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1 || n > 64) throw new BadInputError("--workers", `must be a whole number from 1 to 64, got "${text}"`);
  return n;
}

function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

/** Builds the command tree; each action stores its command's exit code in `result.code`. */
function buildProgram(env: CliEnv, result: { code: number }): Command {
  const program = new Command();
  program
    .name("rmqsim")
    .description("Deterministic discrete-event simulator of the Apache RocketMQ push-consumer pipeline")
    .version(pkg.version, "-V, --version", "print the version")
    .helpOption("-h, --help", "show help")
    .helpCommand("help [command]", "show help for a command")
    .exitOverride()
    .configureOutput({
      writeOut: (text) => env.stdout.write(text),
      writeErr: (text) => env.stderr.write(text),
      // One line, in the same "rmqsim: ..." form as every other error.
      outputError: (text, write) => write(`rmqsim: ${text.replace(/^error: /, "").trim().replace(/\n+/g, " ")}\n`),
    })
    .addHelpText("after", EXIT_HELP);

  program
    .command("run")
    .description("simulate a scenario and write its report")
    .argument("[scenario]", "scenario file", DEFAULT_SCENARIO)
    .option("--seed <n>", "root seed, a whole number from 0 to 4294967295 (overrides the scenario's seed)")
    .option("--out <dir>", "report directory (default: reports/<scenario name>)")
    .option("--duration <d>", "virtual time to simulate, e.g. 30s, 10m, 1h30m (overrides the scenario's duration)")
    .option("--set <path=value>", "override one scenario field, e.g. groups.0.config.pullBatchSize=64 (repeatable)", collect)
    .option("--json", "print summary.json to stdout instead of the summary table")
    .option("-q, --quiet", "print nothing but errors (no table, no progress)")
    .option("--no-charts", "skip the PNG charts (faster; report.html then has no images)")
    .option("--trace", "also write trace.jsonl: every trace record, one JSON object per line")
    .option("--progress", "show progress on stderr even when stderr is not a terminal (one line every 5 s)")
    .option("--check-every <d>", "also run the invariant and conservation checks every <d> of virtual time, e.g. 10s (default: only at the end)")
    .option("--max-memory <size>", MAX_MEMORY_HELP)
    .option("--max-events <n>", MAX_EVENTS_HELP)
    .addHelpText("after", RUN_HELP + "\n" + EXIT_HELP)
    .action(async (scenario: string, opts: Partial<Omit<RunOptions, "scenario">>) => {
      const options: RunOptions = {
        scenario,
        set: opts.set ?? [],
        json: opts.json === true,
        quiet: opts.quiet === true,
        charts: opts.charts !== false,
        trace: opts.trace === true,
        progress: opts.progress === true,
        ...(opts.seed !== undefined ? { seed: opts.seed } : {}),
        ...(opts.out !== undefined ? { out: opts.out } : {}),
        ...(opts.duration !== undefined ? { duration: opts.duration } : {}),
        ...(opts.checkEvery !== undefined ? { checkEvery: opts.checkEvery } : {}),
        ...(opts.maxMemory !== undefined ? { maxMemory: opts.maxMemory } : {}),
        ...(opts.maxEvents !== undefined ? { maxEvents: opts.maxEvents } : {}),
      };
      result.code = await runCommand(options, env);
    });

  program
    .command("check")
    .description("run scenarios and check their expectations (exit 1 if any fails)")
    .argument("<paths...>", "scenario files or directories of them")
    .option("--seeds <n>", "check each scenario under n seeds: its own, then seed+1, … (all must pass)", "1")
    .option("--junit <file>", "also write JUnit XML, one testcase per expectation")
    .option("--baseline <dir>", "compare each run's summary with <dir>/<name>.seed-<seed>.summary.json")
    .option("--update-baseline", "write the baselines instead of comparing (refused, exit 1, when a run fails, unless --force)")
    .option("--force", "with --update-baseline: write the baselines even though runs fail")
    .option("--tolerance <t>", "allowed drift from the baseline, both directions: 5% (relative) or 10 (absolute)", "5%")
    .option("--tolerance-worse <t>", "allowed drift the bad way (default: --tolerance); neutral figures use it both ways")
    .option("--tolerance-better <t>", "drift the good way before a figure is reported as improved (default: --tolerance)")
    .option("--tolerance-for <path=t>", "tolerance for one summary key or prefix, both directions, e.g. latency=20% (repeatable)", collect)
    .option("--strict-baseline", "an improvement beyond --tolerance-better fails too")
    .option("--report-dir <dir>", "write each failing run's report (report.html, charts, summary.json…) to <dir>/<scenario>.seed-<seed>/")
    .option("--report-dir-all", "with --report-dir: every run's report, passing ones too")
    .option("--determinism", "run each scenario twice and fail if the trace hashes or summaries differ")
    .option("--workers <n>", "worker threads (default: the number of cores)")
    .option("--json", "print the results as JSON")
    .option("--check-every <d>", `run the invariant and conservation checks every <d> of virtual time during each run; 0: only at the end (default: ${CHECK_EVERY_DEFAULT}, or the run's duration / ${MAX_DEFAULT_CHECKS} if longer)`)
    .option("--max-memory <size>", MAX_MEMORY_HELP)
    .option("--max-events <n>", MAX_EVENTS_HELP)
    .addHelpText("after", CHECK_HELP + "\n" + EXIT_HELP)
    .action(async (paths: string[], opts: Record<string, unknown>) => {
      result.code = await checkCommand({
        targets: paths,
        seeds: Number(opts.seeds),
        tolerance: String(opts.tolerance),
        toleranceFor: (opts.toleranceFor as string[] | undefined) ?? [],
        updateBaseline: opts.updateBaseline === true,
        force: opts.force === true,
        strictBaseline: opts.strictBaseline === true,
        reportDirAll: opts.reportDirAll === true,
        ...(opts.toleranceWorse !== undefined ? { toleranceWorse: String(opts.toleranceWorse) } : {}),
        ...(opts.toleranceBetter !== undefined ? { toleranceBetter: String(opts.toleranceBetter) } : {}),
        ...(opts.reportDir !== undefined ? { reportDir: String(opts.reportDir) } : {}),
        determinism: opts.determinism === true,
        json: opts.json === true,
        ...(opts.checkEvery !== undefined ? { checkEvery: String(opts.checkEvery) } : {}),
        ...(opts.maxMemory !== undefined ? { maxMemory: String(opts.maxMemory) } : {}),
        ...(opts.maxEvents !== undefined ? { maxEvents: String(opts.maxEvents) } : {}),
        ...(opts.junit !== undefined ? { junit: String(opts.junit) } : {}),
        ...(opts.baseline !== undefined ? { baseline: String(opts.baseline) } : {}),
        ...(opts.workers !== undefined ? { workers: parseWorkers(String(opts.workers)) } : {}),
      }, env);
    });

  program
    .command("compare")
    .description("compare two reports' summaries within a tolerance (exit 1 on drift)")
    .argument("<a>", "report directory or summary.json (the reference)")
    .argument("<b>", "report directory or summary.json")
    .option("--tolerance <t>", "allowed drift: 5% (relative) or 10 (absolute)", "5%")
    .option("--tolerance-for <path=t>", "tolerance for one summary key or prefix (repeatable)", collect)
    .action(async (a: string, b: string, opts: Record<string, unknown>) => {
      result.code = await compareCommand(a, b, { tolerance: String(opts.tolerance), toleranceFor: (opts.toleranceFor as string[] | undefined) ?? [] }, env);
    });

  program
    .command("sweep")
    .description("run a grid of scenario variants under several seeds and recommend a setting")
    .argument("<scenario>", "scenario file")
    .option("--param <path=values>", "a parameter and its values: 100,200,500 | 100..2000:100 | 50..5000*2 (repeatable; several form a grid; a,b=… ties two paths)", collect)
    .option("--seeds <n>", "runs per point: the scenario's seed, then seed+1, …", "1")
    .option("--warmup <d>", "discard this much of the start of each run from time-series metrics", "0s")
    .option("--minimize <metric>", "objective to minimise, e.g. cache.bytesPerConsumerMax")
    .option("--maximize <metric>", "objective to maximise, e.g. throughput.consumedPerSec.mean")
    .option("--require <expr>", 'constraint on a point\'s means, e.g. "throughput.consumedPerSec.mean >= 0.99 * best" (repeatable)', collect)
    .option("--shard <i/n>", "run only shard i of n of the (point, seed) pairs; combine with rmqsim merge")
    .option("--workers <n>", "worker threads (default: the number of cores)")
    .option("--out <dir>", "output directory (default: reports/<scenario>-sweep)")
    .option("--max-memory <size>", MAX_MEMORY_HELP)
    .option("--max-events <n>", MAX_EVENTS_HELP)
    .option("--no-charts", "skip the PNG charts")
    .option("-q, --quiet", "print nothing but errors")
    .addHelpText("after", SWEEP_HELP + "\n" + EXIT_HELP)
    .action(async (scenario: string, opts: Record<string, unknown>) => {
      result.code = await sweepCommand({
        scenario,
        params: (opts.param as string[] | undefined) ?? [],
        seeds: Number(opts.seeds),
        warmup: String(opts.warmup),
        requires: (opts.require as string[] | undefined) ?? [],
        charts: opts.charts !== false,
        quiet: opts.quiet === true,
        ...(opts.minimize !== undefined ? { minimize: String(opts.minimize) } : {}),
        ...(opts.maximize !== undefined ? { maximize: String(opts.maximize) } : {}),
        ...(opts.shard !== undefined ? { shard: String(opts.shard) } : {}),
        ...(opts.workers !== undefined ? { workers: parseWorkers(String(opts.workers)) } : {}),
        ...(opts.out !== undefined ? { out: String(opts.out) } : {}),
        ...(opts.maxMemory !== undefined ? { maxMemory: String(opts.maxMemory) } : {}),
        ...(opts.maxEvents !== undefined ? { maxEvents: String(opts.maxEvents) } : {}),
      }, env);
    });

  program
    .command("merge")
    .description("combine the sweep.json of shards (--shard i/n) into the result a single sweep gives")
    .argument("<dirs...>", "shard output directories (or their sweep.json files)")
    .option("--out <dir>", "output directory", "reports/merged-sweep")
    .option("--no-charts", "skip the PNG charts")
    .option("-q, --quiet", "print nothing but errors")
    .action(async (dirs: string[], opts: Record<string, unknown>) => {
      result.code = await mergeCommand({ dirs, out: String(opts.out), charts: opts.charts !== false, quiet: opts.quiet === true }, env);
    });

  program
    .command("fuzz")
    .description("run scenarios under random fault schedules, check invariants during each run, shrink the first failure (exit 1)")
    .argument("<paths...>", "scenario files or directories of them")
    .option("--runs <n>", "runs per scenario (default: 100, or as many as --time-budget allows)")
    .option("--time-budget <d>", "wall time for all runs, split among the scenarios, e.g. 30s, 10m")
    .option("--faults <kinds>", "comma-separated fault kinds to draw from (default: every kind; kinds a scenario cannot take are skipped)")
    .option("--expect <expr>", 'an expectation every run must meet, e.g. "messages.lost == 0" (repeatable)', collect)
    .option("--scenario-expectations", "also check each scenario's own expect list (written for its own faults: random ones may break it)")
    .option("--seed <n>", "root seed, 0 to 4294967295: run i uses seed + i (default: a random one, printed)")
    .option("--duration <d>", "cap on each run's virtual time (default: 60s, or the scenario's duration if shorter)")
    .option("--check-every <d>", "invariant and conservation checks every <d> of virtual time in each run", "1s")
    .option("--shrink-runs <n>", "most candidate runs spent shrinking a failure", "150")
    .option("--workers <n>", "worker threads (default: the number of cores)")
    .option("--out <dir>", "where the shrunk failing scenario is written", "reports/fuzz")
    .option("--json", "print the result as JSON")
    .addHelpText("after", `
Each run takes the scenario (its duration capped by --duration, its own faults kept), draws a random
fault schedule from its seed — kinds, targets, times, lengths — inside the first half of the run (the
fault phase; whatever a fault breaks is undone by its end), then lets the run heal for the second half.
Invariants and message conservation are checked every --check-every during the run, and at the end the
--expect entries. The scenario's own expect list is NOT checked unless --scenario-expectations: it was
written for the scenario's own faults and full duration, so random faults or a shorter run may break it
without any bug.

The first failure (the lowest run number) is shrunk — faults dropped, shortened and moved earlier,
fewer instances and queues, a shorter run — keeping each step only if the run still fails the same way
(the same expectation or the same invariant), and written to <out>/fuzz-failure-<seed>.json, a normal
scenario that "rmqsim check" reproduces; both reproduce commands are printed.

Run i of --seed S is run 0 of --seed S+i. With --runs the result is the same whatever --workers; with
--time-budget how many runs fit depends on the machine, but each run's outcome does not.

Exit codes: 0 no failure, 1 a failure found (the shrunk scenario written), 2 bad input.

Examples:
  $ rmqsim fuzz scenarios/ --time-budget 30s --seed 1
  $ rmqsim fuzz scenarios/consumer-crash.json --faults consumerCrash,brokerCrash --expect "messages.lost == 0" --runs 200`)
    .action(async (paths: string[], opts: Record<string, unknown>) => {
      result.code = await fuzzCommand({
        targets: paths,
        expects: (opts.expect as string[] | undefined) ?? [],
        scenarioExpectations: opts.scenarioExpectations === true,
        json: opts.json === true,
        checkEvery: String(opts.checkEvery),
        shrinkRuns: String(opts.shrinkRuns),
        out: String(opts.out),
        ...(opts.runs !== undefined ? { runs: String(opts.runs) } : {}),
        ...(opts.timeBudget !== undefined ? { timeBudget: String(opts.timeBudget) } : {}),
        ...(opts.faults !== undefined ? { faults: String(opts.faults) } : {}),
        ...(opts.seed !== undefined ? { seed: String(opts.seed) } : {}),
        ...(opts.duration !== undefined ? { duration: String(opts.duration) } : {}),
        ...(opts.workers !== undefined ? { workers: parseWorkers(String(opts.workers)) } : {}),
      }, env);
    });

  program
    .command("explain")
    .description("re-run a scenario and say why its queues stopped or slowed: each interval with its reason, figures and the settings that change it")
    .argument("<scenario>", "scenario file")
    .option("--queue <queue>", "explain this queue only, named Topic@broker#queueId, or a group's %RETRY%Group@broker#queueId (default: the top queues by time not progressing)")
    .option("--group <group>", "explain this consumer group only")
    .option("--at <time>", "keep the intervals overlapping this virtual time (with --window: [at, at + window])")
    .option("--window <duration>", "keep the intervals overlapping [--at, --at + window] (--at defaults to 0)")
    .option("--seed <n>", "override the scenario's seed")
    .option("--duration <duration>", "override the scenario's duration (a shorter run is quicker to explain)")
    .option("--top <n>", "without --queue: how many queues to explain (default 5)")
    .option("--json", "print the explanation as JSON on stdout")
    .action(async (scenario: string, opts: Record<string, string | boolean | undefined>) => {
      const text = (key: string) => (typeof opts[key] === "string" ? { [key]: opts[key] as string } : {});
      result.code = await explainCommand({
        scenario, json: opts.json === true,
        ...text("queue"), ...text("group"), ...text("at"), ...text("window"), ...text("seed"), ...text("duration"), ...text("top"),
      }, env);
    });

  program
    .command("init")
    .description("write a commented starter scenario (JSONC) to <name>.json and validate it")
    .argument("[name]", "scenario name or path (.json is added if missing)", "scenario")
    .option("--force", "overwrite the file if it exists (otherwise: exit 2)")
    .action(async (name: string, opts: { force?: boolean }) => {
      result.code = await initCommand({ name, force: opts.force === true }, env);
    });

  program
    .command("validate")
    .description("check scenario files without running them (exit 2 if any is invalid; a JSON Schema such as scenarios/schema.json is skipped)")
    .argument("<files...>", "scenario files")
    .option("--json", "print the verdicts as JSON on stdout")
    .action(async (files: string[], opts: { json?: boolean }) => {
      result.code = await validateCommand(files, { json: opts.json === true }, env);
    });

  program
    .command("list")
    .description("list the scenarios in a directory: name and the first sentence of the description of each .json file but schema.json")
    .argument("[dir]", "directory", DEFAULT_SCENARIO_DIR)
    .option("--json", "print the list as JSON on stdout")
    .action(async (dir: string, opts: { json?: boolean }) => {
      result.code = await listCommand(dir, { json: opts.json === true }, env);
    });
  return program;
}

/** Runs the CLI on `argv` (as process.argv: node, script, args...) and returns the exit code. */
export async function cli(argv: readonly string[], env: CliEnv): Promise<number> {
  const result = { code: EXIT.ok as number };
  try {
    await buildProgram(env, result).parseAsync([...argv], { from: "node" });
    return result.code;
  } catch (error) {
    // Commander has already printed its message (help, version, or a usage error) through outputError.
    if (error instanceof CommanderError) return error.exitCode === 0 ? EXIT.ok : EXIT.badInput;
    return reportError(error, (text) => env.stderr.write(text));
  }
}

export async function main(argv: readonly string[] = process.argv): Promise<void> {
  // `rmqsim --help | head`: a closed pipe ends the output quietly instead of crashing.
  process.stdout.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code === "EPIPE") process.exit(0);
    throw error;
  });
  // exitCode rather than exit(): stdout may be a pipe still draining a large summary.json.
  process.exitCode = await cli(argv, realEnv());
}
