// --max-memory on the real binary: a run whose store grows ~1 GB per simulated second stops with a
// partial report and exit 3, and the process's measured peak RSS stays within the limit + 10 %.
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir, writeScenario } from "./testEnv.ts";

const BIN = join(import.meta.dirname, "..", "..", "bin", "rmqsim.js");
const MiB = 1024 ** 2;
const LIMIT = 300 * MiB;

/** 10^7 msg/s for an hour into a listener that never returns: every message stays stored. */
const GROWING = {
  name: "growing",
  duration: "1h",
  brokers: [{ name: "broker-a" }],
  topics: [{ name: "T", brokers: ["broker-a"], queuesPerBroker: 4, produce: { rate: 10_000_000, bodyBytes: "100B" } }],
  groups: [{ name: "G1", instances: 1, subscribe: { T: "*" }, listener: { consumeTime: "1h" } }],
};

/**
 * Preloaded into the child: on exit, writes the process's peak RSS (getrusage's ru_maxrss, KiB; it
 * covers every thread) to the file named by RMQSIM_MAXRSS_FILE. The CLI ends by setting
 * process.exitCode, so the exit event always fires.
 */
const MAXRSS_HOOK =
  "data:text/javascript," +
  encodeURIComponent('import{writeFileSync}from"node:fs";process.on("exit",()=>writeFileSync(process.env.RMQSIM_MAXRSS_FILE,String(process.resourceUsage().maxRSS)));');

async function runChild(cwd: string, args: string[]): Promise<{ code: number | null; stdout: string; stderr: string; peakRssBytes: number }> {
  const rssFile = join(cwd, `maxrss-${args[0]}`);
  const proc = spawn(process.execPath, ["--import", MAXRSS_HOOK, BIN, ...args], {
    cwd, stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, RMQSIM_MAXRSS_FILE: rssFile },
  });
  let stdout = "";
  let stderr = "";
  proc.stdout.on("data", (d) => (stdout += d));
  proc.stderr.on("data", (d) => (stderr += d));
  // A child that outlives the test's time-out is killed, never left growing.
  const timer = setTimeout(() => proc.kill("SIGKILL"), 30_000);
  const code = await new Promise<number | null>((resolve) => proc.on("close", resolve));
  clearTimeout(timer);
  return { code, stdout, stderr, peakRssBytes: Number(readFileSync(rssFile, "utf8")) * 1024 };
}

describe("--max-memory on the real binary", () => {
  it("run: stops with exit 3 and a partial report naming the limit; peak RSS stays below the limit + 10 %", async () => {
    const dir = tempDir();
    writeScenario(dir, "growing.json", GROWING);
    const r = await runChild(dir, ["run", "growing.json", "--out", "o", "--max-memory", "300MiB"]);
    expect(r.stderr).toMatch(/rmqsim: the run stopped early \(maxMemory: the process's resident memory reached [\d.]+ MiB, past --max-memory 300\.0 MiB less 75\.0 MiB kept for writing the report, at [\d.]+ s of virtual time\)/);
    expect(r.code).toBe(3);
    const summary = JSON.parse(readFileSync(join(dir, "o", "summary.json"), "utf8"));
    expect(summary).toMatchObject({ complete: false, stopReason: "maxMemory" });
    expect(summary.simulatedMs).toBeGreaterThan(0);
    expect(summary.messages.produced).toBeGreaterThan(1_000_000);
    expect(r.peakRssBytes).toBeGreaterThan(0.5 * LIMIT); // it did grow: the measurement is real
    expect(r.peakRssBytes).toBeLessThan(1.1 * LIMIT);
  }, 40_000);

  it("check: the pool's run stops the same way and the check fails with exit 3; peak RSS below the limit + 10 %", async () => {
    const dir = tempDir();
    writeScenario(dir, "growing.json", GROWING);
    const r = await runChild(dir, ["check", "growing.json", "--max-memory", "300MiB", "--workers", "1"]);
    expect(r.stdout).toMatch(/^FAIL {2}growing \(seed 1\)[^\n]*\n {6}error: stopped early \(maxMemory\): [^\n]*past --max-memory 300\.0 MiB less 18\.8 MiB kept for the summary, at [\d.]+ s of virtual time\n/);
    expect(r.code).toBe(3);
    expect(r.peakRssBytes).toBeLessThan(1.1 * LIMIT);
  }, 40_000);
});
