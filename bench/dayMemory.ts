// Memory growth of the day bench (issue 18): runs a scaled copy of bench/day.json — the same topology,
// retention and 04:00 deletion hour, at a lower rate so hours pass in seconds — and at every simulated
// hour's end forces a full GC and prints the live heap, the resident set and (optionally) writes a heap
// snapshot, so what grows with run length shows as a difference between two snapshots.
//   node --expose-gc --import tsx bench/dayMemory.ts [--hours 8] [--rate 2000] [--snapshots 3,7] [--out /tmp]
// Not a test. Bench code may read the process's memory; the model it watches never does.
import { readFileSync } from "node:fs";
import { writeHeapSnapshot } from "node:v8";
import { simulate } from "../src/run/simulate.ts";

const HOUR_US = 3_600_000_000;
const args = process.argv.slice(2);
const opt = (name: string, dflt: string): string => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1]! : dflt;
};
const hours = Number(opt("hours", "8"));
const rate = Number(opt("rate", "2000"));
const snapshotHours = new Set(opt("snapshots", "").split(",").filter(Boolean).map(Number));
const outDir = opt("out", "/tmp");
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error("run with node --expose-gc");

const scenario = JSON.parse(readFileSync(new URL("./day.json", import.meta.url), "utf8"));
scenario.topics[0].produce.rate = rate;
scenario.duration = `${hours}h`;

const mib = (b: number): string => (b / 1024 / 1024).toFixed(1);
let hour = 0;
let lastHeap = 0;
console.log(`day bench scaled: ${rate} msg/s for ${hours} h (deletion hour = virtual 1 h–2 h)`);
console.log("hour  heapUsed MiB  Δ MiB   external MiB  arrayBuffers MiB  rss MiB");
simulate(scenario, {
  onProgress: (simulatedUs) => {
    if (simulatedUs < (hour + 1) * HOUR_US) return;
    hour++;
    gc();
    const m = process.memoryUsage();
    console.log(`${String(hour).padStart(4)}  ${mib(m.heapUsed).padStart(12)}  ${mib(m.heapUsed - lastHeap).padStart(5)}  ${mib(m.external).padStart(13)}  ${mib(m.arrayBuffers).padStart(16)}  ${mib(m.rss).padStart(7)}`);
    lastHeap = m.heapUsed;
    if (snapshotHours.has(hour)) console.log(`  snapshot: ${writeHeapSnapshot(`${outDir}/day-h${hour}.heapsnapshot`)}`);
  },
});
