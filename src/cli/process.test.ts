// The real binary as a child process: worker thread, real renderer, signals and process exit codes.
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { tempDir, TINY_SCENARIO, writeScenario } from "./testEnv.ts";

const BIN = join(import.meta.dirname, "..", "..", "bin", "rmqsim.js");

/** Ten hours at 2000 msg/s: far longer than any test waits, so only Ctrl-C ends it early. */
const LONG_SCENARIO = {
  ...TINY_SCENARIO,
  name: "long",
  duration: "10h",
  topics: [{ name: "TopicTest", brokers: ["broker-a"], queuesPerBroker: 4, produce: { rate: 2000 } }],
};

interface Child {
  proc: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Resolves once stderr matches `re`. */
  stderrMatches(re: RegExp): Promise<void>;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Children still running when a test ends (it failed): killed so no ten-hour run outlives the suite. */
const running = new Set<ChildProcess>();
afterEach(() => {
  for (const proc of running) proc.kill("SIGKILL");
  running.clear();
});

function start(cwd: string, ...args: string[]): Child {
  const proc = spawn(process.execPath, [BIN, ...args], { cwd, stdio: ["ignore", "pipe", "pipe"] });
  running.add(proc);
  proc.on("close", () => running.delete(proc));
  let out = "";
  let err = "";
  const waiters: { re: RegExp; resolve: () => void }[] = [];
  proc.stdout!.on("data", (d) => (out += d));
  proc.stderr!.on("data", (d) => {
    err += d;
    for (const w of [...waiters]) if (w.re.test(err)) { waiters.splice(waiters.indexOf(w), 1); w.resolve(); }
  });
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => proc.on("close", (code, signal) => resolve({ code, signal })));
  return {
    proc,
    stdout: () => out,
    stderr: () => err,
    stderrMatches: (re) =>
      re.test(err)
        ? Promise.resolve()
        : new Promise<void>((resolve, reject) => {
            waiters.push({ re, resolve });
            void exit.then(() => reject(new Error(`exited before stderr matched ${re}; stderr:\n${err}`)));
          }),
    exit,
  };
}

describe("bin/rmqsim.js", () => {
  it("runs a scenario in the worker and writes the full report with the real renderer", async () => {
    const dir = tempDir();
    writeScenario(dir, "tiny.json", TINY_SCENARIO);
    const child = start(dir, "run", "tiny.json", "--out", "r");
    const { code } = await child.exit;
    expect(child.stderr()).toBe("");
    expect(code).toBe(0);
    expect(child.stdout()).toMatch(/report\s+r\/\n$/);
    const names = readdirSync(join(dir, "r")).sort();
    for (const f of ["summary.json", "run.json", "timeseries.csv", "report.html", "throughput.png", "lag.png", "cache.png", "flow-control.png", "latency.png"]) {
      expect(names).toContain(f);
    }
    expect(readdirSync(dir).sort()).toEqual(["r", "tiny.json"]);
  });

  it("exits 2 with one line for bad input, and 2 for a usage error", async () => {
    const dir = tempDir();
    const missing = start(dir, "run", "nope.json");
    const usage = start(dir, "frobnicate");
    expect((await missing.exit).code).toBe(2);
    expect(missing.stderr()).toBe("rmqsim: nope.json: no such file\n");
    expect((await usage.exit).code).toBe(2);
    expect(usage.stderr()).toMatch(/^rmqsim: unknown command 'frobnicate'/);
  });

  it("Ctrl-C stops the run and still writes a report marked complete: false, exit 130", async () => {
    const dir = tempDir();
    writeScenario(dir, "long.json", LONG_SCENARIO);
    const child = start(dir, "run", "long.json", "--out", "r", "--no-charts", "--progress");
    await child.stderrMatches(/rmqsim: \[/); // the simulation is under way in the worker
    child.proc.kill("SIGINT");
    const { code } = await child.exit;
    expect(code).toBe(130);
    expect(child.stderr()).toContain("rmqsim: interrupted; stopping and writing a partial report");
    const summary = JSON.parse(readFileSync(join(dir, "r", "summary.json"), "utf8"));
    expect(summary).toMatchObject({ complete: false, stopReason: "interrupted" });
    expect(summary.simulatedMs).toBeLessThan(36_000_000);
    expect(JSON.parse(readFileSync(join(dir, "r", "run.json"), "utf8"))).toMatchObject({ complete: false });
    expect(child.stdout()).toContain("INCOMPLETE (interrupted)");
    expect(readdirSync(dir).sort()).toEqual(["long.json", "r"]);
  });

  it("a second Ctrl-C quits at once and leaves no temporary directory", async () => {
    const dir = tempDir();
    writeScenario(dir, "long.json", LONG_SCENARIO);
    const child = start(dir, "run", "long.json", "--out", "r", "--progress");
    await child.stderrMatches(/rmqsim: \[/);
    child.proc.kill("SIGINT");
    await child.stderrMatches(/Ctrl-C again to quit at once/);
    child.proc.kill("SIGINT");
    const { code } = await child.exit;
    expect(code).toBe(130);
    expect(readdirSync(dir).filter((f) => f.includes(".tmp-"))).toEqual([]);
    // Either the second Ctrl-C came first (no report) or the partial report was already complete.
    if (existsSync(join(dir, "r"))) expect(JSON.parse(readFileSync(join(dir, "r", "summary.json"), "utf8")).complete).toBe(false);
  });
});
