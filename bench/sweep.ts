// Sweep benchmark (npm run bench:sweep): 20 points × 3 seeds of a 10-minute scenario, run through
// the real `rmqsim sweep` (worker threads) with 1 and then 2 workers; prints wall times, the
// speed-up, and whether both sweep.json files are identical. Not a test.
import { mkdtempSync, readFileSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { cli } from "../src/cli/main.ts";
import { realEnv } from "../src/cli/env.ts";

const scenario = new URL("./sweep-scenario.json", import.meta.url).pathname;
const out = mkdtempSync(join(tmpdir(), "rmqsim-bench-sweep-"));
const args = ["sweep", scenario, "--param", "groups.0.config.pullThresholdForQueue=10..200:10", "--seeds", "3", "--no-charts", "--quiet"];

async function timed(workers: number): Promise<number> {
  const t0 = performance.now();
  const code = await cli(["node", "rmqsim", ...args, "--workers", String(workers), "--out", join(out, `w${workers}`)], realEnv());
  if (code !== 0) throw new Error(`sweep exited ${code}`);
  return (performance.now() - t0) / 1000;
}

console.log(`cores: ${availableParallelism()}   grid: 20 points × 3 seeds = 60 runs of 10 virtual minutes`);
const one = await timed(1);
console.log(`1 worker : ${one.toFixed(1)} s`);
const two = await timed(2);
console.log(`2 workers: ${two.toFixed(1)} s   speed-up ${(one / two).toFixed(2)}× (target ≥ 1.8×)`);
const same = readFileSync(join(out, "w1", "sweep.json"), "utf8") === readFileSync(join(out, "w2", "sweep.json"), "utf8");
console.log(`sweep.json identical for 1 and 2 workers: ${same ? "yes" : "NO"}`);
