// Pipeline benchmark (npm run bench:pipeline [scenario.json] [--duration 10m]): runs the reference
// scenario through simulate() and prints consumed msgs/s, events/s and peak RSS. Not a test.
// `npm run bench:pipeline -- bench/replay.json`: the same workload replayed from offset 0 after an hour.
// `npm run bench:day` (= bench:pipeline -- bench/day.json): a day of traffic with commit-log retention.
//
// In the same process it also times the kernel alone (bench/mmc.ts, best of 3 M/M/20 runs before the
// model) and prints model events/s ÷ kernel events/s, by wall time and by CPU time: load on a shared
// machine slows both rates, so the ratio moves far less than either, and a drop in it is the model's own
// regression (by CPU time it moves least: only what this process ran counts). For runs of more than an
// hour it prints the wall and CPU time of each simulated hour, which must stay flat (cost
// O(events)), and the resident memory at each hour's end (memory O(backlog)); under --expose-gc (bench:day)
// also the live heap after a full GC at each hour's end, and its growth per simulated hour.
import { readFileSync } from "node:fs";
import { parseDurationUs } from "../src/scenario/units.ts";
import { kernelEventRate } from "./mmc.ts";
import { eventsPerMessage, runPipeline } from "./pipelineRun.ts";

const KERNEL_CUSTOMERS = 1_000_000; // ≈ 2 M events, a few tenths of a second a round
const KERNEL_ROUNDS = 3;

const args = process.argv.slice(2);
const di = args.indexOf("--duration");
const file = args.find((a, i) => !a.startsWith("--") && (di < 0 || i !== di + 1)) ?? new URL("./reference.json", import.meta.url).pathname;
const durationUs = di >= 0 ? parseDurationUs(args[di + 1], "--duration") : undefined;
const scenario = JSON.parse(readFileSync(file, "utf8"));

const kernelRate = kernelEventRate(KERNEL_CUSTOMERS, KERNEL_ROUNDS);
const run = runPipeline(scenario, durationUs);
const { wallS } = run;
const s = run.result.summary;
if (!s.complete) {
  // A cut run's figures describe a shorter run than asked for: say so first and fail.
  console.log(`INCOMPLETE RUN: stopped (${s.stopReason}) at ${(s.simulatedMs / 1000).toFixed(0)} virtual s: ${s.stopDetail ?? ""}`);
  process.exitCode = 1;
}
const modelRate = run.events / wallS;
const modelCpuRate = run.events / run.cpuS;
const fmt = (x: number) => Math.round(x).toLocaleString("en");
console.log(`scenario: ${s.scenario}  virtual: ${(s.simulatedMs / 1000).toFixed(0)} s  wall: ${wallS.toFixed(2)} s  speed-up: ${(s.simulatedMs / 1000 / wallS).toFixed(1)}×`);
console.log(`consumed: ${run.consumed.toLocaleString("en")} msgs  →  ${fmt(run.consumed / wallS)} consumed msgs per wall-second`);
console.log(`events:   ${s.events.toLocaleString("en")}  →  ${fmt(modelRate)} events/s  (${eventsPerMessage(run).toFixed(2)} events per consumed message)`);
console.log(`kernel:   ${fmt(kernelRate.wall)} events/s (M/M/20, best of ${KERNEL_ROUNDS} × ${fmt(KERNEL_CUSTOMERS)} customers, same process)`);
console.log(`model/kernel event rate: ${(modelRate / kernelRate.wall).toFixed(3)} by wall time, ${(modelCpuRate / kernelRate.cpu).toFixed(3)} by CPU time`);
console.log(`peak RSS: ${(run.peakRssBytes / 1024 / 1024).toFixed(0)} MiB (sampled every virtual second)`);
if (run.hourWallS.length > 1) {
  const spread = (label: string, hours: number[]): void => {
    const sorted = [...hours].sort((x, y) => x - y);
    const median = sorted[Math.floor(sorted.length / 2)]!;
    console.log(`${label} per simulated hour: median ${median.toFixed(1)} s, min ${sorted[0]!.toFixed(1)} s, max ${sorted.at(-1)!.toFixed(1)} s, last/first ${(hours.at(-1)! / hours[0]!).toFixed(2)}`);
    console.log(`  by hour (s): ${hours.map((h) => h.toFixed(1)).join(" ")}`);
  };
  spread("wall", run.hourWallS);
  spread("CPU ", run.hourCpuS);
  console.log(`RSS at each hour's end (MiB): ${run.hourRssBytes.map((b) => (b / 1024 / 1024).toFixed(0)).join(" ")}`);
  const live = run.hourLiveHeapBytes;
  if (live.length > 2) {
    // From the end of hour 2 (past day.json's deletion hour) on: what the run keeps per simulated hour.
    const perHour = (live.at(-1)! - live[1]!) / (live.length - 2);
    console.log(`live heap after GC at each hour's end (MiB): ${live.map((b) => (b / 1024 / 1024).toFixed(1)).join(" ")}  →  ${(perHour / 1024 / 1024).toFixed(2)} MiB per simulated hour from hour 2 on`);
  } else if (live.length === 0) {
    console.log("(run with node --expose-gc, as npm run bench:day does, for the live heap at each hour's end)");
  }
}
let rebuilds = 0;
for (const b of run.result.cluster.brokers) for (const mq of run.result.cluster.routes.queuesOf(b.index)) rebuilds += b.store.queue(mq).rebuilds;
console.log(`messages: duplicates ${s.messages.duplicates.toLocaleString("en")}  lost ${s.messages.lost.toLocaleString("en")}  reclaimed chunks rebuilt: ${rebuilds.toLocaleString("en")}  commit-log files deleted: ${s.store.commitLogFilesDeleted.toLocaleString("en")}`);
console.log(`lag committed final/max: ${s.lag.committed.final}/${s.lag.committed.max}  e2e p99: ${s.latency.endToEnd.p99Ms} ms  trace: ${s.traceHash}`);
