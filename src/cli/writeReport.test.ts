import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { nodeFs, type CliFs } from "./env.ts";
import { ReportWriteError } from "./errors.ts";
import { fakeEnv, run, tempDir, TINY_SCENARIO, writeScenario } from "./testEnv.ts";
import { writeReportDir } from "./writeReport.ts";

/** The real file system, except that the `failAt`-th file write throws ENOSPC. */
function failingFs(failAt: number): CliFs & { writes: string[] } {
  const writes: string[] = [];
  return {
    ...nodeFs,
    writes,
    writeFile: async (file, data) => {
      writes.push(file);
      if (writes.length === failAt) throw Object.assign(new Error("ENOSPC: no space left on device"), { code: "ENOSPC" });
      await nodeFs.writeFile(file, data);
    },
  };
}

function previousReport(dir: string): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "summary.json"), '{"old":true}\n');
  writeFileSync(join(dir, "old-only.txt"), "old\n");
}

const files = new Map<string, string | Uint8Array>([
  ["summary.json", '{"new":true}\n'],
  ["timeseries.csv", "tSec\n1\n"],
  ["lag.png", new Uint8Array([1, 2, 3])],
]);

describe("writeReportDir", () => {
  it("replaces a previous report as a whole: no file of the old one survives", async () => {
    const root = tempDir();
    const dir = join(root, "reports", "tiny");
    previousReport(dir);
    await writeReportDir(nodeFs, dir, files, 7);
    expect(readdirSync(dir).sort()).toEqual(["lag.png", "summary.json", "timeseries.csv"]);
    expect(readFileSync(join(dir, "summary.json"), "utf8")).toBe('{"new":true}\n');
    expect(readdirSync(join(root, "reports"))).toEqual(["tiny"]);
  });

  it("a write failing midway leaves the previous report untouched and no temporary directory", async () => {
    const root = tempDir();
    const dir = join(root, "tiny");
    previousReport(dir);
    const fs = failingFs(2);
    const temps: (string | null)[] = [];
    await expect(writeReportDir(fs, dir, files, 7, { onTemp: (t) => temps.push(t) })).rejects.toThrow(ReportWriteError);
    expect(fs.writes[0]).toBe(join(root, "tiny.tmp-7", "summary.json"));
    expect(readdirSync(root)).toEqual(["tiny"]);
    expect(readFileSync(join(dir, "summary.json"), "utf8")).toBe('{"old":true}\n');
    expect(readdirSync(dir).sort()).toEqual(["old-only.txt", "summary.json"]);
    expect(temps).toEqual([join(root, "tiny.tmp-7"), null]);
  });

  it("a failing final rename puts the previous report back", async () => {
    const root = tempDir();
    const dir = join(root, "tiny");
    previousReport(dir);
    const fs: CliFs = {
      ...nodeFs,
      rename: async (from, to) => {
        if (from.endsWith(".tmp-7")) throw new Error("EXDEV: cross-device link not permitted");
        await nodeFs.rename(from, to);
      },
    };
    await expect(writeReportDir(fs, dir, files, 7)).rejects.toThrow(/could not write the report to .*EXDEV.*any previous report there is untouched/);
    expect(readdirSync(root)).toEqual(["tiny"]);
    expect(readFileSync(join(dir, "summary.json"), "utf8")).toBe('{"old":true}\n');
  });

  it("refuses file names that are not plain names", async () => {
    await expect(writeReportDir(nodeFs, join(tempDir(), "x"), new Map([["../escape.txt", "x"]]), 7)).rejects.toThrow(/not a plain file name/);
  });
});

describe("rmqsim run: the report is written all or nothing", () => {
  it("a failing writer exits 74, creates no report directory and leaves none half-written", async () => {
    const env = Object.assign(fakeEnv(), {});
    env.fs = failingFs(2);
    writeScenario(env.cwd, "s.json", TINY_SCENARIO);
    expect(await run(env, "run", "s.json", "--out", "out")).toBe(74);
    expect(env.err()).toMatch(/^rmqsim: could not write the report to .*out: ENOSPC: no space left on device; any previous report there is untouched\n$/);
    expect(readdirSync(env.cwd)).toEqual(["s.json"]);
    expect(env.out()).toBe("");
  });

  it("a failing writer leaves the previous report of the same scenario untouched", async () => {
    const env = fakeEnv();
    writeScenario(env.cwd, "s.json", TINY_SCENARIO);
    previousReport(join(env.cwd, "reports", "tiny"));
    env.fs = failingFs(3);
    expect(await run(env, "run", "s.json")).toBe(74);
    expect(readdirSync(join(env.cwd, "reports"))).toEqual(["tiny"]);
    expect(readdirSync(join(env.cwd, "reports", "tiny")).sort()).toEqual(["old-only.txt", "summary.json"]);
    expect(existsSync(join(env.cwd, "reports", "tiny.tmp-4242"))).toBe(false);
  });
});

describe("stale siblings of a killed run (issue 15 item 7)", () => {
  it("a write removes <dir>.tmp-<pid> and <dir>.old-<pid> of dead processes, keeping live runs' and other names", async () => {
    const root = tempDir();
    const dir = join(root, "rep");
    for (const n of ["rep.tmp-111", "rep.old-222", "rep.tmp-333", "rep.tmp-x", "other.tmp-111"]) mkdirSync(join(root, n));
    const alive = new Set([333]);
    await writeReportDir(nodeFs, dir, new Map([["summary.json", "{}"]]), 999, { pidAlive: (pid) => alive.has(pid) });
    expect(readdirSync(root).sort()).toEqual(["other.tmp-111", "rep", "rep.tmp-333", "rep.tmp-x"]);
  });

  it("without a liveness check nothing else is touched", async () => {
    const root = tempDir();
    mkdirSync(join(root, "rep.tmp-111"));
    await writeReportDir(nodeFs, join(root, "rep"), new Map([["summary.json", "{}"]]), 999);
    expect(readdirSync(root).sort()).toEqual(["rep", "rep.tmp-111"]);
  });
});
