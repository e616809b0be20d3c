import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { simulate } from "../run/simulate.ts";
import type { SimulateFn } from "./computeRun.ts";
import { fakeEnv, run, TINY_SCENARIO, writeScenario } from "./testEnv.ts";

type Json = any; // scenario edits

function scenarioWith(edit: (s: Json) => void): Json {
  const s = structuredClone(TINY_SCENARIO) as Json;
  edit(s);
  return s;
}

/** Runs `rmqsim run <file> ...` on a scenario written to a fresh directory. */
async function runScenario(content: unknown, ...args: string[]) {
  const env = fakeEnv();
  writeScenario(env.cwd, "s.json", content);
  const code = await run(env, "run", "s.json", ...args);
  return { env, code, out: env.out(), err: env.err() };
}

/** Bad input: exit 2 and exactly one line "rmqsim: <where>: <message>" on stderr, no stack. */
function expectBadInput(r: { code: number; err: string; out: string }, line: RegExp) {
  expect(r.code).toBe(2);
  expect(r.err).toMatch(/^rmqsim: [^\n]+\n$/);
  expect(r.err).toMatch(line);
  expect(r.err).not.toMatch(/\n\s+at /);
  expect(r.out).toBe("");
}

describe("rmqsim run: exit codes", () => {
  it("exits 0 after a complete run, prints the table and writes the report to reports/<name>", async () => {
    const r = await runScenario(TINY_SCENARIO);
    expect(r.err).toBe("");
    expect(r.code).toBe(0);
    for (const label of ["messages", "produced", "consumed", "duplicates", "lost", "dlq", "committed", "unpulled", "cached", "flow control", "end-to-end p50", "consume p50", "throughput", "speed-up", "report"]) {
      expect(r.out).toContain(label);
    }
    expect(r.out).toMatch(/report\s+reports\/tiny\/\n$/);
    const dir = join(r.env.cwd, "reports", "tiny");
    const summary = JSON.parse(readFileSync(join(dir, "summary.json"), "utf8"));
    expect(summary).toMatchObject({ scenario: "tiny", complete: true });
    expect(summary).not.toHaveProperty("wallMs");
    const runJson = JSON.parse(readFileSync(join(dir, "run.json"), "utf8"));
    expect(runJson).toMatchObject({ startedAt: "2025-01-01T00:00:00.000Z", node: "v20.0.0-test", simulatedMs: 10_000, events: summary.events, complete: true });
    // The fake clock ticks 10 ms per reading, so the wall time is a whole number of ticks.
    expect(runJson.wallMs % 10).toBe(0);
    expect(runJson.speedup).toBe(Math.round((10_000 / runJson.wallMs) * 10) / 10);
    expect(runJson.eventsPerSec).toBe(Math.round(summary.events / (runJson.wallMs / 1000)));
    expect(existsSync(join(dir, "throughput.png"))).toBe(true);
  });

  it("exits 1 when an expectation of the scenario fails, and names it", async () => {
    const failing: SimulateFn = (scenario, options) => {
      const result = simulate(scenario, options);
      result.summary.expectations = [
        { expression: "messages.lost == 0", ok: true, actual: "0" },
        {
          expression: "lag.committed.max < 1", ok: false, actual: "5",
          clauses: [{ text: "lag.committed.max < 1", ok: false, op: "<", threshold: 1, actual: 5, unit: null, series: null, atUs: 12_000_000, windowUs: null, where: null }],
        },
      ];
      return result;
    };
    const env = fakeEnv({ simulate: failing });
    writeScenario(env.cwd, "s.json", TINY_SCENARIO);
    expect(await run(env, "run", "s.json")).toBe(1);
    expect(env.out()).toMatch(/expect\s+1 of 2 hold/);
    expect(env.out()).toContain("FAILED lag.committed.max < 1  (actual 5)");
    // The clause's detail under it: 5 against < 1 misses by 4, decided by the sample at 12 s.
    expect(env.out()).toMatch(/lag\.committed\.max < 1: actual 5, threshold < 1 \(over by 4\), at 12s/);
  });

  it("exits 70 and says it is a bug when the model throws", async () => {
    const env = fakeEnv({ simulate: () => { throw new Error("invariant broken: offsets ran ahead"); } });
    writeScenario(env.cwd, "s.json", TINY_SCENARIO);
    expect(await run(env, "run", "s.json")).toBe(70);
    expect(env.err()).toContain("rmqsim: internal error: invariant broken: offsets ran ahead");
    expect(env.err()).toContain("This is a bug in rmqsim");
    expect(existsSync(join(env.cwd, "reports"))).toBe(false);
  });

  it("exits 130 after Ctrl-C, with a partial report marked complete: false", async () => {
    let env = fakeEnv();
    const interrupting: SimulateFn = (scenario, options) =>
      simulate(scenario, { ...options, onProgress: (t, total, events) => {
        if (t >= 3_000_000) env.interrupt();
        return options?.onProgress?.(t, total, events);
      } });
    env = Object.assign(fakeEnv({ simulate: interrupting }), {});
    writeScenario(env.cwd, "s.json", TINY_SCENARIO);
    expect(await run(env, "run", "s.json", "--out", "partial")).toBe(130);
    expect(env.err()).toContain("interrupted; stopping and writing a partial report");
    const summary = JSON.parse(readFileSync(join(env.cwd, "partial", "summary.json"), "utf8"));
    expect(summary).toMatchObject({ complete: false, stopReason: "interrupted", simulatedMs: 3000 });
    expect(env.out()).toContain("INCOMPLETE (interrupted)");
    expect(env.exits).toEqual([]);
  });

  it("quits at once on a second Ctrl-C", async () => {
    let env = fakeEnv();
    const interrupting: SimulateFn = (scenario, options) =>
      simulate(scenario, { ...options, onProgress: (t, total, events) => {
        if (t === 2_000_000) { env.interrupt(); env.interrupt(); }
        return options?.onProgress?.(t, total, events);
      } });
    env = fakeEnv({ simulate: interrupting });
    writeScenario(env.cwd, "s.json", TINY_SCENARIO);
    await run(env, "run", "s.json");
    expect(env.exits).toEqual([130]);
    expect(env.err()).toContain("interrupted again; quitting without a report");
  });

  it("exits 0 for --help and --version, 2 for no command", async () => {
    const env = fakeEnv();
    expect(await run(env, "--version")).toBe(0);
    expect(env.out()).toMatch(/^\d+\.\d+\.\d+\n$/);
    expect(await run(env, "run", "--help")).toBe(0);
    expect(await run(fakeEnv())).toBe(2);
  });
});

describe("rmqsim run: bad input exits 2 with one line naming the problem", () => {
  it("malformed JSON: file, line and column", async () => {
    const r = await runScenario('{\n  "name": "tiny",\n  "duration": "10s",,\n}\n');
    expectBadInput(r, /^rmqsim: s\.json:3:21: malformed JSON: /);
  });

  it("JSONC: a trailing comma is accepted, a comma with no value before it is pointed at", async () => {
    // The file holds only a name, so once the trailing comma is accepted the first problem is "brokers".
    expectBadInput(await runScenario('{\n  "name": "tiny", // the report folder\n}'), /^rmqsim: s\.json: brokers: /);
    expectBadInput(await runScenario('{\n  "name": "tiny",\n  ,\n}'), /^rmqsim: s\.json:3:3: malformed JSON: expected a double-quoted property name, found ','/);
  });

  it("a missing file", async () => {
    const env = fakeEnv();
    const code = await run(env, "run", "nope/missing.json");
    expectBadInput({ code, err: env.err(), out: env.out() }, /^rmqsim: nope\/missing\.json: no such file\n$/);
  });

  it("a directory instead of a file", async () => {
    const env = fakeEnv();
    mkdirSync(join(env.cwd, "dir.json"));
    const code = await run(env, "run", "dir.json");
    expectBadInput({ code, err: env.err(), out: env.out() }, /dir\.json: is a directory/);
  });

  it("a scenario named \"..\" or \".\" is refused (it would name the working directory as its report folder)", async () => {
    for (const name of ["..", "."]) {
      const r = await runScenario(scenarioWith((s) => (s.name = name)));
      expectBadInput(r, /^rmqsim: s\.json: name: "\.{1,2}" must be 1–127 characters .*starting with a letter or digit/);
    }
  });

  it("an empty --out is refused", async () => {
    const r = await runScenario(scenarioWith(() => {}), "--out", "");
    expectBadInput(r, /^rmqsim: --out: must name a directory \(it is empty\)/);
  });

  it("an unknown key, with a suggestion", async () => {
    const r = await runScenario(scenarioWith((s) => (s.durationn = "1m")));
    expectBadInput(r, /^rmqsim: s\.json: durationn: unknown key "durationn" — did you mean "duration"\?/);
  });

  it("an out-of-range value", async () => {
    const r = await runScenario(scenarioWith((s) => (s.groups[0].config = { pullBatchSize: 2000 })));
    expectBadInput(r, /^rmqsim: s\.json: groups\.0\.config\.pullBatchSize: 2000 is out of range \[1, 1024\]/);
  });

  it("a bad duration", async () => {
    const r = await runScenario(scenarioWith((s) => (s.duration = "30 sec")));
    expectBadInput(r, /^rmqsim: s\.json: duration: "30 sec" is not a duration; use a number of ms or a string like/);
  });

  it("an unknown broker reference", async () => {
    const r = await runScenario(scenarioWith((s) => (s.topics[0].brokers = ["broker-z"])));
    expectBadInput(r, /^rmqsim: s\.json: topics\.0\.brokers\.0: unknown broker "broker-z"; brokers are: broker-a/);
  });

  it("empty groups", async () => {
    const r = await runScenario(scenarioWith((s) => (s.groups = [])));
    expectBadInput(r, /^rmqsim: s\.json: groups: must be a non-empty list of consumer groups/);
  });

  it("a scenario that is not an object", async () => {
    const r = await runScenario([1, 2]);
    expectBadInput(r, /^rmqsim: s\.json: \(scenario\): must be a JSON object/);
  });

  it("a bad --seed", async () => {
    expectBadInput(await runScenario(TINY_SCENARIO, "--seed", "abc"), /^rmqsim: --seed: "abc" is not a whole number from 0 to 4294967295\n$/);
    expectBadInput(await runScenario(TINY_SCENARIO, "--seed", "4294967296"), /^rmqsim: --seed: /);
  });

  it("a bad --duration", async () => {
    expectBadInput(await runScenario(TINY_SCENARIO, "--duration", "10 minutes"), /^rmqsim: --duration: "10 minutes" is not a duration/);
    expectBadInput(await runScenario(TINY_SCENARIO, "--duration", "0s"), /^rmqsim: --duration: must be greater than 0\n$/);
  });

  it("an unknown option, a missing option value, too many arguments", async () => {
    expectBadInput(await runScenario(TINY_SCENARIO, "--bogus"), /^rmqsim: unknown option '--bogus'\n$/);
    expectBadInput(await runScenario(TINY_SCENARIO, "--sed", "1"), /^rmqsim: unknown option '--sed' \(Did you mean .*--seed.*\?\)\n$/);
    expectBadInput(await runScenario(TINY_SCENARIO, "--out"), /^rmqsim: option '--out <dir>' argument missing\n$/);
    expectBadInput(await runScenario(TINY_SCENARIO, "extra.json"), /^rmqsim: too many arguments for 'run'/);
  });

  it("an --out that is not a report directory is refused before the run", async () => {
    const env = fakeEnv();
    writeScenario(env.cwd, "s.json", TINY_SCENARIO);
    mkdirSync(join(env.cwd, "src"));
    writeScenario(join(env.cwd, "src"), "keep.ts", "export {};");
    const code = await run(env, "run", "s.json", "--out", "src");
    expectBadInput({ code, err: env.err(), out: env.out() }, /^rmqsim: --out src\/: is a directory that does not hold an rmqsim report/);
    expect(readFileSync(join(env.cwd, "src", "keep.ts"), "utf8")).toBe("export {};");
  });
});

describe("rmqsim run: options", () => {
  it("--json prints summary.json, exactly as written, and nothing else", async () => {
    const r = await runScenario(TINY_SCENARIO, "--json", "--out", "o");
    expect(r.code).toBe(0);
    const summary = JSON.parse(r.out);
    expect(summary).toMatchObject({ scenario: "tiny", complete: true });
    expect(r.out).toBe(readFileSync(join(r.env.cwd, "o", "summary.json"), "utf8"));
    expect(r.err).toBe("");
  });

  it("--seed and --duration change the run and are recorded in it", async () => {
    const r = await runScenario(TINY_SCENARIO, "--json", "--seed", "7", "--duration", "4s");
    expect(JSON.parse(r.out)).toMatchObject({ seed: 7, simulatedMs: 4000 });
  });

  it("--quiet prints nothing; --no-charts writes no PNG; --trace writes trace.jsonl", async () => {
    const r = await runScenario(TINY_SCENARIO, "--quiet", "--no-charts", "--trace", "--out", "o");
    expect([r.code, r.out, r.err]).toEqual([0, "", ""]);
    const dir = join(r.env.cwd, "o");
    expect(existsSync(join(dir, "throughput.png"))).toBe(false);
    const text = readFileSync(join(dir, "trace.jsonl"), "utf8");
    const lines = text === "" ? [] : text.trimEnd().split("\n");
    const summary = JSON.parse(readFileSync(join(dir, "summary.json"), "utf8"));
    expect(lines.length).toBe(summary.traceRecords);
    expect(lines.length).toBeGreaterThan(0);
    expect(JSON.parse(lines[0]!)).toMatchObject({ tUs: expect.any(Number), type: expect.any(String) });
  });

  it("draws a progress bar on a terminal only", async () => {
    const tty = fakeEnv({ isTTY: true });
    writeScenario(tty.cwd, "s.json", TINY_SCENARIO);
    await run(tty, "run", "s.json");
    expect(tty.err()).toMatch(/\r\[#+-*\] +\d+\.\d% {2}\d+s of 10s {2}\S+ events\/s {2}ETA /);
    expect(tty.err().endsWith("\r\x1b[K")).toBe(true);
    const pipe = fakeEnv({ isTTY: false });
    writeScenario(pipe.cwd, "s.json", TINY_SCENARIO);
    await run(pipe, "run", "s.json");
    expect(pipe.err()).toBe("");
  });
});
