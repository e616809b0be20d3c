import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { nodeFs } from "./env.ts";
import { fakeEnv, run, tempDir, TINY_SCENARIO, writeScenario } from "./testEnv.ts";
import { replacedReportNotice } from "./writeReport.ts";

function report(dir: string, summary: unknown, runInfo?: unknown): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "summary.json"), typeof summary === "string" ? summary : JSON.stringify(summary));
  if (runInfo !== undefined) writeFileSync(join(dir, "run.json"), JSON.stringify(runInfo));
}

describe("replacedReportNotice", () => {
  it("says which folder held which other scenario's report, with its seed, profile and start", async () => {
    const dir = join(tempDir(), "out");
    report(dir, { scenario: "default", seed: 7, profile: "5.x" }, { startedAt: "2026-12-01T12:28:54.337Z" });
    expect(await replacedReportNotice(nodeFs, dir, "out/", "tiny")).toBe(
      'replaced out/, which held the report of another scenario, "default" (seed 7, profile 5.x, run at 2026-12-01T12:28:54.337Z), with this run of "tiny"',
    );
  });

  it("says nothing for the same scenario, a missing folder, or a summary it cannot read", async () => {
    const root = tempDir();
    report(join(root, "same"), { scenario: "tiny", seed: 1 });
    report(join(root, "broken"), "{ not json");
    report(join(root, "nameless"), { seed: 1 });
    for (const d of ["same", "broken", "nameless", "missing"]) expect(await replacedReportNotice(nodeFs, join(root, d), `${d}/`, "tiny"), d).toBeNull();
  });
});

describe("rmqsim run --out onto another scenario's report", () => {
  it("replaces it and prints which folder it was and what it held; re-running the same scenario prints nothing", async () => {
    const env = fakeEnv();
    writeScenario(env.cwd, "tiny.json", TINY_SCENARIO);
    writeScenario(env.cwd, "other.json", { ...TINY_SCENARIO, name: "other" });
    expect(await run(env, "run", "other.json", "--out", "shared", "--duration", "1s", "--quiet", "--no-charts")).toBe(0);
    expect(env.err()).toBe("");
    expect(await run(env, "run", "tiny.json", "--out", "shared", "--duration", "1s", "--quiet", "--no-charts")).toBe(0);
    // Seed and profile from the old summary.json, the start from its run.json (fakeEnv's clock: 2025-01-01).
    expect(env.err()).toBe('rmqsim: note: replaced shared/, which held the report of another scenario, "other" (seed 1, profile 4.9, run at 2025-01-01T00:00:00.000Z), with this run of "tiny"\n');
    expect(JSON.parse(readFileSync(join(env.cwd, "shared", "summary.json"), "utf8")).scenario).toBe("tiny");
    expect(await run(env, "run", "tiny.json", "--out", "shared", "--duration", "1s", "--quiet", "--no-charts")).toBe(0);
    expect(env.err().split("\n").length).toBe(2); // still the one line from before
  });
});
