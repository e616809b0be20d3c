// `rmqsim sweep <scenario> --param path=values …` and `rmqsim merge <dirs…>`: run a grid of scenario
// variants under several seeds on worker threads, aggregate, recommend, and write the sweep report.
// Every run is deterministic and the result is assembled canonically, so the worker count, the
// order runs finish in, and sharding (--shard i/n, then merge) never change sweep.json.
import { availableParallelism } from "node:os";
import { join, resolve } from "node:path";
import { normalizeScenario } from "../scenario/normalize.ts";
import { parseDurationUs } from "../scenario/units.ts";
import { renderSweep } from "../report/sweepReport.ts";
import { assemble, type AssembleRun } from "../sweep/assemble.ts";
import { buildVariant, gridPoint, gridSize, paramPaths, parseParams } from "../sweep/grid.ts";
import { parseRequirement, resolveObjective } from "../sweep/recommend.ts";
import { formatShard, mergeResults, parseShard, shardJobs, type Shard } from "../sweep/shard.ts";
import { shortNames } from "../sweep/text.ts";
import type { SweepParam, SweepResult } from "../sweep/types.ts";
import type { CliEnv } from "./env.ts";
import { BadInputError, EXIT, inFile } from "./errors.ts";
import { readJsonFile } from "./readJson.ts";
import { guardScenario, runLimits } from "./resourceGuards.ts";
import { checkReportTarget, writeReportDir } from "./writeReport.ts";
import { displayPath } from "./runCommand.ts";
import { formatClock } from "./progress.ts";

export interface SweepOptions {
  scenario: string;
  params: string[];
  seeds: number;
  warmup: string;
  minimize?: string;
  maximize?: string;
  requires: string[];
  shard?: string;
  workers?: number;
  out?: string;
  charts: boolean;
  quiet: boolean;
  /** --max-memory / --max-events: a run past them stops early, is left out, and the sweep exits 3. */
  maxMemory?: string;
  maxEvents?: string;
}

export async function sweepCommand(options: SweepOptions, env: CliEnv): Promise<number> {
  const raw = await readJsonFile(env.fs, resolve(env.cwd, options.scenario), options.scenario);
  let base;
  try {
    base = normalizeScenario(raw);
  } catch (error) {
    throw inFile(options.scenario, error);
  }
  if (options.params.length === 0) throw new BadInputError("--param", "give at least one, e.g. --param groups.0.config.pullThresholdForQueue=100,200,500");
  if (!Number.isInteger(options.seeds) || options.seeds < 1 || options.seeds > 1000) {
    throw new BadInputError("--seeds", `must be a whole number from 1 to 1000, got ${options.seeds}`);
  }
  const params = parseParams(options.params);
  const total = gridSize(params);
  const limits = runLimits(options);
  const workers = Math.max(1, Math.min(options.workers ?? availableParallelism(), 64));
  const warnings: string[] = [];
  // Every variant is validated before anything runs: a bad value fails now, naming the point.
  const variants: unknown[] = [];
  for (let i = 0; i < total; i++) {
    const point = gridPoint(params, i);
    const variant = buildVariant(raw, point);
    const where = `${options.scenario} with ${Object.entries(point).map(([k, v]) => `${k}=${JSON.stringify(v)}`).join(", ")}`;
    let model;
    try {
      model = normalizeScenario(variant);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      throw new BadInputError(where, message + tieHint(message, params));
    }
    // A point whose backlog cannot fit in its worker's share stops the sweep now (exit 3), before any run.
    const warning = guardScenario(model, limits.maxMemoryBytes, where, workers);
    if (warning !== null && warnings.length === 0) warnings.push(warning);
    variants.push(variant);
  }
  const warmupUs = parseDurationUs(options.warmup, "--warmup");
  if (warmupUs >= base.durationUs) throw new BadInputError("--warmup", `must be shorter than the run (${base.durationUs / 1e6} s)`);
  const { objective, requires } = resolveObjective(params, {
    ...(options.minimize !== undefined ? { minimize: options.minimize } : {}),
    ...(options.maximize !== undefined ? { maximize: options.maximize } : {}),
  }, options.requires);
  for (const r of requires) parseRequirement(r);
  const shard: Shard | null = options.shard === undefined ? null : parseShard(options.shard);
  const jobs = shardJobs(total, options.seeds, shard);
  const outDir = resolve(env.cwd, options.out ?? `reports/${base.name}-sweep${shard ? `-shard-${shard.index}-of-${shard.count}` : ""}`);
  const shownOut = displayPath(env.cwd, outDir);
  await checkSweepTarget(env, outDir, shownOut);
  if (!options.quiet) for (const w of warnings) env.stderr.write(`rmqsim: warning: ${w}\n`);

  // Run the jobs on a pool of engines; Ctrl-C stops new and running ones (finished ones are kept).
  const runs: AssembleRun[] = [];
  const startedAt = env.now().toISOString();
  const wallStart = Date.now();
  let next = 0;
  let doneCount = 0;
  let stopped = false;
  /** Runs a resource guard stopped: left out of the result, named on stderr, exit 3. */
  const limited: string[] = [];
  const running = new Set<{ stop(): void }>();
  const tty = env.stderr.isTTY && !options.quiet;
  const showProgress = () => {
    if (!tty) return;
    const elapsed = (Date.now() - wallStart) / 1000;
    const eta = doneCount > 0 ? (elapsed / doneCount) * (jobs.length - doneCount) : NaN;
    env.stderr.write(`\r\x1b[2Ksweep ${doneCount}/${jobs.length} runs · ${workers} workers · ${Number.isFinite(eta) ? `ETA ${formatClock(eta * 1e6)}` : "ETA …"}`);
  };
  const dispose = env.onInterrupt(() => {
    if (stopped) env.exitNow(EXIT.interrupted);
    stopped = true;
    for (const h of running) h.stop();
    env.stderr.write("\nrmqsim: interrupted; keeping the finished runs (Ctrl-C again to quit at once)\n");
  });
  const pool = env.pool?.(workers);
  const engine = pool?.engine ?? env.engine;
  const worker = async () => {
    for (;;) {
      if (stopped) return;
      const k = next++;
      if (k >= jobs.length) return;
      const job = jobs[k]!;
      const scenario = { ...(variants[job.point] as Record<string, unknown>), seed: (base.seed + job.seedIndex) % 2 ** 32 };
      const handle = engine({ scenario, trace: false, charts: false, report: false, sweepWarmupUs: warmupUs, startedAt, ...limits }, () => {});
      running.add(handle);
      try {
        const out = await handle.done;
        const s = out.summary;
        if (out.metrics && s.complete) runs.push({ point: job.point, seedIndex: job.seedIndex, metrics: out.metrics, complete: true });
        else if (!s.complete && s.stopReason !== "interrupted") limited.push(`point ${job.point}, seed ${scenario.seed}: ${s.stopReason}: ${s.stopDetail ?? ""}`);
      } finally {
        running.delete(handle);
      }
      doneCount++;
      showProgress();
    }
  };
  showProgress();
  try {
    await Promise.all(Array.from({ length: Math.min(workers, jobs.length) }, worker));
  } finally {
    dispose();
    await pool?.close();
    if (tty) env.stderr.write("\n");
  }
  const result = assemble({
    scenario: base.name, baseSeed: base.seed, seeds: options.seeds, warmupMs: warmupUs / 1000, params, requires, objective,
    runs, shard: shard ? formatShard(shard) : null, complete: runs.length === jobs.length,
  });
  await writeSweep(env, result, outDir, options.charts);
  if (!options.quiet) env.stdout.write(formatSweep(result, shownOut));
  if (limited.length > 0) {
    env.stderr.write(`rmqsim: ${limited.length} of ${jobs.length} runs stopped early and are left out of the result:\n`);
    for (const l of limited.sort()) env.stderr.write(`  ${l}\n`);
  }
  return stopped ? EXIT.interrupted : limited.length > 0 ? EXIT.resourceLimit : EXIT.ok;
}

/**
 * For a variant rejected because consumeThreadMin exceeds consumeThreadMax while only one of them is
 * swept: how to sweep them together. (The model's concurrency is consumeThreadMin alone, spec §6, but a
 * scenario must keep min ≤ max as RocketMQ's ThreadPoolExecutor requires.)
 */
function tieHint(message: string, params: readonly SweepParam[]): string {
  if (!/consumeThreadMin \(\d+\) is larger than consumeThreadMax/.test(message)) return "";
  const swept = params.find((p) => paramPaths(p).some((path) => path.endsWith(".consumeThreadMin")));
  if (swept === undefined || paramPaths(swept).some((path) => path.endsWith(".consumeThreadMax"))) return "";
  const max = swept.path.replace(/consumeThreadMin$/, "consumeThreadMax");
  return `; sweep both together: --param ${paramPaths(swept).join(",")},${max}=${swept.spec}`;
}

export interface MergeOptions {
  dirs: string[];
  out: string;
  charts: boolean;
  quiet: boolean;
}

/** `rmqsim merge <dirs…>`: combines shards' sweep.json into the result a single sweep gives. */
export async function mergeCommand(options: MergeOptions, env: CliEnv): Promise<number> {
  if (options.dirs.length === 0) throw new BadInputError("merge", "give the shard output directories");
  const parts: SweepResult[] = [];
  for (const d of options.dirs) {
    const path = resolve(env.cwd, d);
    const file = (await env.fs.kind(path)) === "dir" ? join(path, "sweep.json") : path;
    parts.push((await readJsonFile(env.fs, file, d)) as SweepResult);
  }
  const result = mergeResults(parts);
  const outDir = resolve(env.cwd, options.out);
  const shownOut = displayPath(env.cwd, outDir);
  await checkSweepTarget(env, outDir, shownOut);
  await writeSweep(env, result, outDir, options.charts);
  if (!options.quiet) env.stdout.write(formatSweep(result, shownOut));
  return EXIT.ok;
}

/** Like checkReportTarget, but a previous sweep (sweep.json) may be replaced too. */
async function checkSweepTarget(env: CliEnv, dir: string, shown: string): Promise<void> {
  if ((await env.fs.kind(join(dir, "sweep.json"))) === "file") return;
  await checkReportTarget(env.fs, dir, shown);
}

async function writeSweep(env: CliEnv, result: SweepResult, outDir: string, charts: boolean): Promise<void> {
  const files = await renderSweep(result, { charts });
  await writeReportDir(env.fs, outDir, files, env.pid, env.pidAlive ? { pidAlive: env.pidAlive } : {});
}

/** The terminal summary: a line per point and the recommendation with its reason. */
export function formatSweep(result: SweepResult, shownOut: string): string {
  const names = shortNames(result.params);
  const paramNames = result.params.map((p) => names[p.path] ?? p.path);
  const lines: string[] = [];
  const head = [...paramNames, "throughput msg/s", "memory/consumer MiB", "heap est. MiB", "p99 e2e ms", "lag max", "ok"];
  const rows = result.points.map((pt) => {
    const s = (k: string) => pt.stats[k];
    const fmt = (k: string, digits: number) => {
      const m = s(k);
      return m === undefined ? "-" : m.ci95 > 0 ? `${m.mean.toFixed(digits)} ± ${m.ci95.toFixed(digits)}` : m.mean.toFixed(digits);
    };
    const mark = result.recommendation?.point === pt.index ? "★" : result.recommendation?.runnerUp === pt.index ? "☆" : pt.feasible ? "✓" : "✗";
    return [...result.params.map((p) => String(pt.params[p.path])), fmt("throughput.consumedPerSec.mean", 0), fmt("memoryPerConsumerMiB", 2),
      fmt("heapEstimateMiB", 2), fmt("latency.endToEnd.p99Ms", 0), fmt("lag.committed.max", 0), mark];
  });
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => (i < paramNames.length ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join("  ");
  lines.push(line(head));
  for (const r of rows) lines.push(line(r));
  lines.push("");
  const rec = result.recommendation;
  if (result.shard !== null) lines.push(`shard ${result.shard}: partial result; combine the shards with rmqsim merge`);
  else if (rec === null || rec.point === null) lines.push(`no recommendation: ${rec?.reason ?? "no point finished"}`);
  else {
    const pt = result.points.find((p) => p.index === rec.point)!;
    lines.push(`recommended  ${Object.entries(pt.params).map(([k, v]) => `${k}=${v}`).join(", ")}`);
    lines.push(`why          ${rec.reason}`);
    if (rec.runnerUp !== null) {
      const ru = result.points.find((p) => p.index === rec.runnerUp)!;
      lines.push(`runner-up    ${Object.entries(ru.params).map(([k, v]) => `${k}=${v}`).join(", ")}`);
    }
  }
  // Older sweep.json files (merged) have no warnings.
  for (const w of rec?.warnings ?? []) lines.push(`warning      ${w}`);
  if (!result.complete) lines.push("incomplete   not every (point, seed) run finished; figures cover the finished ones");
  lines.push(`report       ${shownOut}`);
  return `${lines.join("\n")}\n`;
}
