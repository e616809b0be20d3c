// Runs every command the README shows, in a fresh copy of the repository, and checks each exits as the
// README says (issue 17: "every command block in the README runs in CI").
//
//   npx tsx scripts/readme-commands.ts [--list] [--keep] [--only <substring>]
//
// What counts as a command: each line of a ```sh or ```bash block (a trailing `\` joins the next line)
// that starts with `npx rmqsim`, `rmqsim`, `npm` or `node bin/rmqsim.js`; other lines are shown as
// illustration only. The exit code expected is 0 unless the line's comment says `exits N`. A block right
// after a line `<!-- not run in CI: <reason> -->` is listed but skipped, with that reason (commands
// meant for another repository).
//
// The copy holds the files git tracks or would track (the working tree, uncommitted edits included,
// ignored files left out) and starts with no node_modules: the README's first command installs them
// (`npm install`, offline from the npm cache CI's `npm ci` filled). Commands run in README order in
// that copy, through bash (globs, pipes, `&&`), so a command may use what an earlier one wrote.
//
// Long commands are shortened, each by a rule printed next to it (SHORTENING below); `npm test` is
// skipped, because CI runs it itself right before this script.
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

/** One command of the README. */
export interface ReadmeCommand {
  /** 1-based line of README.md where the command starts. */
  line: number;
  /** The command as written (continuation lines joined), without its comment. */
  text: string;
  /** Its trailing `# …` comment, without the `#`; "" if none. */
  comment: string;
  /** The exit code the README states: `exits N` in the comment, else 0. */
  expectCode: number;
  /** Why the README says not to run it (`<!-- not run in CI: … -->` before its block), or null. */
  notRun: string | null;
}

/** What is run for a command: possibly shortened, or skipped with a reason. */
export interface PlannedCommand extends ReadmeCommand {
  run: string;
  /** One sentence per rule applied. */
  rewrites: string[];
  skip: string | null;
}

const COMMAND_START = /^(npx rmqsim|rmqsim|npm|node bin\/rmqsim\.js)(\s|$)/;
const SHELL_FENCE = /^\s*```(sh|bash)\s*$/;
const ANY_FENCE = /^\s*```/;
const NOT_RUN = /^\s*<!--\s*not run in CI:\s*(.*?)\s*-->\s*$/;

/** The commands of every ```sh / ```bash block of a Markdown text, in order. */
export function extractCommands(markdown: string): ReadmeCommand[] {
  const lines = markdown.split("\n");
  const out: ReadmeCommand[] = [];
  let inShell = false;
  let inOther = false;
  let notRun: string | null = null;
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i]!;
    if (!inShell && !inOther && ANY_FENCE.test(raw)) {
      if (SHELL_FENCE.test(raw)) inShell = true;
      else inOther = true;
      const marker = i > 0 ? NOT_RUN.exec(lines[i - 1]!) : null;
      notRun = marker ? marker[1]! : null;
      continue;
    }
    if (ANY_FENCE.test(raw)) {
      inShell = inOther = false;
      continue;
    }
    if (!inShell) continue;
    const start = i;
    let joined = raw.trim();
    while (joined.endsWith("\\") && i + 1 < lines.length) {
      joined = `${joined.slice(0, -1).trimEnd()} ${lines[++i]!.trim()}`;
    }
    const { text, comment } = splitComment(joined);
    if (!COMMAND_START.test(text)) continue;
    const stated = /\bexits (\d+)\b/.exec(comment);
    out.push({ line: start + 1, text, comment, expectCode: stated ? Number(stated[1]) : 0, notRun });
  }
  return out;
}

/** Splits `cmd   # comment` at the first `#` that starts a word outside quotes. */
export function splitComment(line: string): { text: string; comment: string } {
  let quote: string | null = null;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quote !== null) {
      if (c === quote) quote = null;
      else if (c === "\\" && quote === '"') i++;
    } else if (c === "'" || c === '"') {
      quote = c;
    } else if (c === "#" && (i === 0 || /\s/.test(line[i - 1]!))) {
      return { text: line.slice(0, i).trim(), comment: line.slice(i + 1).trim() };
    }
  }
  return { text: line.trim(), comment: "" };
}

/** Where the shortened copies live in the repository copy (git-ignored there as here). */
export const QUICK_DIR = "reports/readme-quick";
export const SHORT_DIR = "reports/readme-short";
/**
 * The shipped scenarios a directory-wide `check`/`fuzz` runs on instead of all of them: the three
 * quickest whose expectations hold (about 2 s of work together instead of ~60 s for the library).
 */
export const QUICK_SCENARIOS = ["hung-message.json", "retention-offset-illegal.json", "count-flow-control.json"];
/** A sweep runs its scenario shortened to this (the README's --warmup 20s still fits). */
export const SWEEP_DURATION = "30s";

/** The shortening rules: each returns the new command and a sentence, or null when it does not apply. */
const SHORTENING: ((cmd: string) => [string, string] | null)[] = [
  (cmd) => {
    if (!/^npx rmqsim (check|fuzz) /.test(cmd) || !/\sscenarios\/?(\s|$)/.test(cmd)) return null;
    return [cmd.replace(/\sscenarios\/?(?=\s|$)/, ` ${QUICK_DIR}/`), `scenarios/ → ${QUICK_DIR}/ (${QUICK_SCENARIOS.map((f) => f.replace(".json", "")).join(", ")}): the whole library takes ~1 min per check; npm test checks it all`];
  },
  (cmd) => {
    const m = /--seeds (\d+)/.exec(cmd);
    if (!m || Number(m[1]) <= 2) return null;
    return [cmd.replace(m[0], "--seeds 2"), `--seeds ${m[1]} → 2`];
  },
  (cmd) => {
    const m = /^npx rmqsim sweep (scenarios\/([\w-]+\.json))/.exec(cmd);
    if (!m) return null;
    return [cmd.replace(m[1]!, `${SHORT_DIR}/${m[2]}`), `${m[1]} → the same scenario with duration ${SWEEP_DURATION}`];
  },
  (cmd) => {
    const m = /--runs (\d+)/.exec(cmd);
    if (!/^npx rmqsim fuzz /.test(cmd) || (m && Number(m[1]) <= 4)) return null;
    if (m) return [cmd.replace(m[0], "--runs 4"), `--runs ${m[1]} → 4`];
    if (/--time-budget/.test(cmd)) return null;
    return [`${cmd} --runs 4`, "fuzz without --runs: --runs 4 (the default is 100)"];
  },
  (cmd) => {
    const m = /--time-budget (\S+)/.exec(cmd);
    if (!m || m[1] === "10s") return null;
    return [cmd.replace(m[0], "--time-budget 10s"), `--time-budget ${m[1]} → 10s`];
  },
  (cmd) => {
    if (!/^npx rmqsim fuzz /.test(cmd) || /--seed /.test(cmd)) return null;
    return [`${cmd} --seed 1`, "fuzz without --seed draws a random one: --seed 1, so the verdict is repeatable"];
  },
  (cmd) => {
    if (!/^npx rmqsim fuzz /.test(cmd) || /--duration /.test(cmd)) return null;
    return [`${cmd} --duration 10s`, "fuzz runs capped at --duration 10s (default 60s)"];
  },
];

/** The command to run for each README command. */
export function planCommands(commands: readonly ReadmeCommand[]): PlannedCommand[] {
  return commands.map((c) => {
    if (c.notRun !== null) return { ...c, run: c.text, rewrites: [], skip: `the README says: ${c.notRun}` };
    if (/^npm test\b/.test(c.text)) return { ...c, run: c.text, rewrites: [], skip: "CI runs npm test itself, right before this script" };
    let run = c.text;
    const rewrites: string[] = [];
    for (const rule of SHORTENING) {
      const applied = rule(run);
      if (applied === null) continue;
      [run] = applied;
      rewrites.push(applied[1]);
    }
    return { ...c, run, rewrites, skip: null };
  });
}

// ------------------------------------------------------------------------------------ the runner

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const TIMEOUT_MS = 300_000;

/** Copies the working tree's tracked and untracked-but-not-ignored files into `dest`. */
function copyTree(dest: string): number {
  const listed = spawnSync("git", ["-C", ROOT, "ls-files", "-z", "--cached", "--others", "--exclude-standard"], { encoding: "utf8" });
  if (listed.status !== 0) throw new Error(`git ls-files failed: ${listed.stderr}`);
  let n = 0;
  for (const file of listed.stdout.split("\0")) {
    if (file === "" || !existsSync(join(ROOT, file))) continue;
    mkdirSync(dirname(join(dest, file)), { recursive: true });
    cpSync(join(ROOT, file), join(dest, file));
    n++;
  }
  return n;
}

/** The shortened scenario copies the rules point at. */
async function prepareFixtures(clone: string): Promise<void> {
  mkdirSync(join(clone, QUICK_DIR), { recursive: true });
  for (const f of QUICK_SCENARIOS) cpSync(join(clone, "scenarios", f), join(clone, QUICK_DIR, f));
  mkdirSync(join(clone, SHORT_DIR), { recursive: true });
  // The project's own reader: it accepts what the CLI accepts (comments, if scenario files have any).
  const { parseJsonText } = await import("../src/cli/readJson.ts");
  const sweep = "tune-pull-threshold.json";
  const scenario = parseJsonText(readFileSync(join(clone, "scenarios", sweep), "utf8"), sweep) as Record<string, unknown>;
  writeFileSync(join(clone, SHORT_DIR, sweep), `${JSON.stringify({ ...scenario, duration: SWEEP_DURATION }, null, 2)}\n`);
}

function hasProgram(name: string): boolean {
  return spawnSync("bash", ["-c", `command -v ${name}`], { stdio: "ignore" }).status === 0;
}

async function main(argv: readonly string[]): Promise<number> {
  const only = argv.includes("--only") ? argv[argv.indexOf("--only") + 1] ?? "" : null;
  const plan = planCommands(extractCommands(readFileSync(join(ROOT, "README.md"), "utf8")));
  const show = (p: PlannedCommand) => `README.md:${p.line}  ${p.text}${p.expectCode !== 0 ? `  (exits ${p.expectCode})` : ""}${p.rewrites.map((r) => `\n      shortened: ${r}`).join("")}${p.skip ? `\n      skipped: ${p.skip}` : ""}`;
  if (argv.includes("--list")) {
    for (const p of plan) console.log(show(p));
    console.log(`${plan.length} commands`);
    return 0;
  }
  const started = Date.now();
  const clone = mkdtempSync(join(tmpdir(), "rmqsim-readme-"));
  const files = copyTree(clone);
  await prepareFixtures(clone);
  console.log(`readme: ${plan.length} commands from README.md, in a copy of the working tree (${files} files) at ${clone}`);
  // Offline: every package comes from the npm cache, and `npx rmqsim` never asks the registry.
  const env = { ...process.env, npm_config_offline: "true", npm_config_audit: "false", npm_config_fund: "false", npm_config_update_notifier: "false" };
  const failures: string[] = [];
  for (const p of plan) {
    if (p.skip === null && only !== null && !p.text.includes(only) && !/^npm install/.test(p.text)) p.skip = `not selected by --only ${only}`;
    if (p.skip === null) {
      const missing = [...p.run.matchAll(/\|\s*(\w+)/g)].map((m) => m[1]!).find((prog) => !hasProgram(prog));
      if (missing !== undefined) p.skip = `${missing} is not installed`;
    }
    if (p.skip !== null) {
      console.log(`SKIP  ${show(p)}`);
      continue;
    }
    const t0 = Date.now();
    const r = spawnSync("bash", ["-o", "pipefail", "-c", p.run], { cwd: clone, env, encoding: "utf8", timeout: TIMEOUT_MS, maxBuffer: 256 << 20 });
    const seconds = ((Date.now() - t0) / 1000).toFixed(1);
    const code = r.status ?? (r.signal !== null ? `killed (${r.signal}${r.error ? `, ${r.error.message}` : ""})` : "none");
    const ok = code === p.expectCode;
    console.log(`${ok ? "PASS" : "FAIL"}  exit ${code} in ${seconds} s  ${show(p)}${p.run !== p.text ? `\n      ran: ${p.run}` : ""}`);
    if (!ok) {
      const tail = `${r.stdout ?? ""}${r.stderr ?? ""}`.split("\n").slice(-25).join("\n      ");
      console.log(`      expected exit ${p.expectCode}; the output ended with:\n      ${tail}`);
      failures.push(`README.md:${p.line}: ${p.text}: exit ${code}, expected ${p.expectCode}`);
    }
  }
  const minutes = ((Date.now() - started) / 1000).toFixed(0);
  if (failures.length > 0 || argv.includes("--keep")) console.log(`readme: the copy is kept at ${clone}`);
  else rmSync(clone, { recursive: true, force: true });
  console.log(failures.length === 0 ? `readme: ok, ${plan.filter((p) => p.skip === null).length} commands ran in ${minutes} s` : `readme: ${failures.length} failed in ${minutes} s:\n  ${failures.join("\n  ")}`);
  return failures.length === 0 ? 0 : 1;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.exitCode = await main(process.argv.slice(2));
}
