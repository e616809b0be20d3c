// The README's promises that a test can hold without running anything: how scripts/readme-commands.ts
// finds and shortens the commands it runs in CI (.ci/run), and that the README's tables list every
// exit code the CLI has and every shipped scenario.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { EXIT } from "../src/cli/errors.ts";
import { extractCommands, planCommands, QUICK_DIR, splitComment } from "../scripts/readme-commands.ts";

const ROOT = join(import.meta.dirname, "..");
const README = readFileSync(join(ROOT, "README.md"), "utf8");

describe("extractCommands", () => {
  const md = [
    "Intro with `npx rmqsim run x` inline: not a block.",
    "```sh",
    "npx rmqsim run a.json --seed 7      # a comment",
    "npx rmqsim explain a.json --queue 'T@b#2' \\",
    "  --top 3   # exits 3",
    "echo not a command",
    "npm install && npm start",
    "```",
    "```jsonc",
    "npx rmqsim run inside-json.json",
    "```",
    "<!-- not run in CI: elsewhere -->",
    "```bash",
    "node bin/rmqsim.js list   # exit 1 if the list is empty (a condition, not a statement)",
    "```",
  ].join("\n");

  it("takes each command line of sh and bash blocks, joining continuations, with its line", () => {
    const commands = extractCommands(md);
    expect(commands.map((c) => [c.line, c.text])).toEqual([
      [3, "npx rmqsim run a.json --seed 7"],
      [4, "npx rmqsim explain a.json --queue 'T@b#2' --top 3"],
      [7, "npm install && npm start"],
      [14, "node bin/rmqsim.js list"],
    ]);
  });

  it("expects exit 0 unless the comment says `exits N`, and keeps a block's not-run reason", () => {
    const commands = extractCommands(md);
    expect(commands.map((c) => c.expectCode)).toEqual([0, 3, 0, 0]);
    expect(commands.map((c) => c.notRun)).toEqual([null, null, null, "elsewhere"]);
  });

  it("splits a comment only at a # that starts a word outside quotes", () => {
    expect(splitComment(`rmqsim explain x --queue 'T@b#2'  # why`)).toEqual({ text: "rmqsim explain x --queue 'T@b#2'", comment: "why" });
    expect(splitComment(`rmqsim run "a #b"`)).toEqual({ text: `rmqsim run "a #b"`, comment: "" });
    expect(splitComment("rmqsim run a#b")).toEqual({ text: "rmqsim run a#b", comment: "" });
  });
});

describe("planCommands", () => {
  const plan = (text: string) => planCommands([{ line: 1, text, comment: "", expectCode: 0, notRun: null }])[0]!;

  it("points directory-wide check and fuzz runs at the quick scenarios and caps seeds", () => {
    const p = plan("npx rmqsim check scenarios/ --seeds 5 --junit junit.xml");
    expect(p.run).toBe(`npx rmqsim check ${QUICK_DIR}/ --seeds 2 --junit junit.xml`);
    expect(p.rewrites.length).toBe(2);
    expect(plan("npx rmqsim check scenarios/default.json").run).toBe("npx rmqsim check scenarios/default.json");
  });

  it("gives fuzz a run count, a seed and a duration cap when the README leaves them out", () => {
    expect(plan("npx rmqsim fuzz scenarios/a.json --runs 200 --seed 3").run).toBe("npx rmqsim fuzz scenarios/a.json --runs 4 --seed 3 --duration 10s");
    expect(plan("npx rmqsim fuzz scenarios/ --time-budget 10m").run).toBe(`npx rmqsim fuzz ${QUICK_DIR}/ --time-budget 10s --seed 1 --duration 10s`);
  });

  it("leaves short commands alone and skips npm test", () => {
    expect(plan("npx rmqsim run scenarios/default.json --json").rewrites).toEqual([]);
    expect(plan("npm test").skip).not.toBeNull();
  });

  it("finds the README's commands: the quick start, run, explain, check, sweep and fuzz", () => {
    const commands = extractCommands(README);
    expect(commands[0]?.text).toMatch(/^npm install/);
    for (const sub of ["run", "validate", "list", "explain", "check", "compare", "sweep", "fuzz"]) {
      expect(commands.some((c) => c.text.startsWith(`npx rmqsim ${sub} `) || c.text === `npx rmqsim ${sub}`), sub).toBe(true);
    }
  });
});

describe("the README's tables", () => {
  /** The first cells of the rows of the table whose header row starts with `| <header> |`. */
  function firstColumn(header: string): string[] {
    const lines = README.split("\n");
    const start = lines.findIndex((l) => l.startsWith(`| ${header} |`));
    expect(start, `a table headed "${header}"`).toBeGreaterThanOrEqual(0);
    const rows: string[] = [];
    for (let i = start + 2; i < lines.length && lines[i]!.startsWith("|"); i++) rows.push(lines[i]!.split("|")[1]!.trim());
    return rows;
  }

  it("lists every exit code the CLI has, and no other", () => {
    const listed = firstColumn("exit code").map(Number).sort((a, b) => a - b);
    expect(listed).toEqual([...new Set(Object.values(EXIT))].sort((a, b) => a - b));
  });

  it("lists every shipped scenario", () => {
    const shipped = readdirSync(join(ROOT, "scenarios")).filter((f) => f.endsWith(".json") && f !== "schema.json").map((f) => `\`${f.replace(/\.json$/, "")}\``);
    expect(firstColumn("scenario").sort()).toEqual(shipped.sort());
  });
});
