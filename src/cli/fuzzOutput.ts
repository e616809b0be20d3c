// What `rmqsim fuzz` prints: the result object (also the --json output) and its human rendering, one
// line per failure, a block per shrunk failure with the commands that reproduce it, a summary line.
import { formatUs, type FuzzConfig } from "../fuzz/runner.ts";

/** The command line of `rmqsim fuzz`, as commander hands it over (validated by fuzzCommand). */
export interface FuzzOptions {
  targets: string[];
  runs?: string;
  timeBudget?: string;
  /** Comma-separated fault kinds. */
  faults?: string;
  expects: string[];
  seed?: string;
  workers?: number;
  out?: string;
  duration?: string;
  checkEvery?: string;
  scenarioExpectations: boolean;
  shrinkRuns?: string;
  json: boolean;
}

export interface FailureLine {
  run: number;
  seed: number;
  key: string;
  message: string;
  /** The random faults of the run (the scenario's own come before them). */
  faults: Record<string, unknown>[];
}

export interface ScenarioResult {
  file: string;
  name: string;
  runs: number;
  failures: FailureLine[];
  /** The first failure, shrunk, and where its scenario was written. */
  shrunk: {
    file: string;
    run: number;
    seed: number;
    key: string;
    message: string;
    faultsBefore: number;
    faultsAfter: number;
    /** Candidates simulated while shrinking. */
    runs: number;
    steps: string[];
    reproduce: string[];
  } | null;
}

export interface FuzzResult {
  rootSeed: number;
  scenarios: ScenarioResult[];
  runs: number;
  failures: number;
  /** Wall-clock figures: the only part that differs between two fuzzes of the same seed and --runs. */
  wall: { ms: number; runsPerSec: number; workers: number };
}

/** Failure messages are cut to this many characters on the terminal (--json has them whole). */
const MESSAGE_CHARS_MAX = 160;

export function formatHeader(rootSeed: number, config: FuzzConfig): string {
  return `fuzz: root seed ${rootSeed}, runs of at most ${formatUs(config.durationCapUs)} ` +
    `(faults in the first ${Math.round(config.faultPhaseShare * 100)} %), checks every ${formatUs(config.checkEveryUs)}\n`;
}

/** One scenario's lines: a line per failing run, its verdict, and the shrunk failure with the commands. */
export function formatScenario(s: ScenarioResult): string {
  let out = "";
  for (const f of s.failures) {
    out += `FAIL  ${s.name}  run ${f.run} (seed ${f.seed})  ${f.key}  ${cut(f.message)}  [${f.faults.map(describeFault).join(", ")}]\n`;
  }
  out += `${s.failures.length === 0 ? "ok  " : "FAIL"}  ${s.name}  ${s.runs} run(s), ${s.failures.length} failed  ${s.file}\n`;
  if (s.shrunk !== null) {
    const k = s.shrunk;
    out += `  shrunk run ${k.run} (seed ${k.seed}): ${k.faultsBefore} fault(s) → ${k.faultsAfter}, ${k.steps.length} step(s) kept of ${k.runs} tried\n`;
    out += `  still fails: ${k.key}  ${cut(k.message)}\n`;
    out += `  wrote ${k.file}\n`;
    out += k.reproduce.map((c, i) => `  ${i === 0 ? "reproduce:" : "          "} ${c}\n`).join("");
  }
  return out;
}

export function formatSummary(r: FuzzResult): string {
  return `fuzz: ${r.runs} run(s) of ${r.scenarios.length} scenario(s), ${r.failures} failed, ${(r.wall.ms / 1000).toFixed(1)} s ` +
    `(${r.wall.runsPerSec} runs/s on ${r.wall.workers} worker(s)); root seed ${r.rootSeed}\n`;
}

/** `rmqsim check <written>` and the fuzz of that one run, with every option that shapes a run. */
export function reproduceCommands(written: string, scenarioFile: string, seed: number, o: FuzzOptions, config: FuzzConfig): string[] {
  const fuzz = ["rmqsim", "fuzz", scenarioFile, "--seed", String(seed), "--runs", "1"];
  if (o.faults !== undefined) fuzz.push("--faults", o.faults);
  for (const e of o.expects) fuzz.push("--expect", e);
  if (o.duration !== undefined) fuzz.push("--duration", o.duration);
  if (o.checkEvery !== undefined) fuzz.push("--check-every", o.checkEvery);
  if (o.scenarioExpectations) fuzz.push("--scenario-expectations");
  return [
    ["rmqsim", "check", written, "--check-every", formatUs(config.checkEveryUs)].map(quote).join(" "),
    fuzz.map(quote).join(" "),
  ];
}

/** A word for a POSIX shell: as is when safe, else in single quotes. */
export function quote(word: string): string {
  return /^[A-Za-z0-9_./:=,@%+-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

function describeFault(f: Record<string, unknown>): string {
  const target = f.target ?? f.group ?? `${JSON.stringify(f.clients ?? "*")}↔${JSON.stringify(f.brokers ?? "*")}`;
  return `${String(f.kind)} ${String(target)} @${String(f.at)}`;
}

function cut(text: string): string {
  const line = text.replace(/\s+/g, " ");
  return line.length <= MESSAGE_CHARS_MAX ? line : `${line.slice(0, MESSAGE_CHARS_MAX - 1)}…`;
}
