// Pipeline benchmark (npm run bench:pipeline [scenario.json] [--duration 10m]): runs the reference
// scenario through simulate() and prints consumed msgs/s, events/s and peak RSS. Not a test.
// `npm run bench:pipeline -- bench/replay.json`: the same workload replayed from offset 0 after an hour.
import { readFileSync } from "node:fs";
import { simulate } from "../src/run/simulate.ts";
import { parseDurationUs } from "../src/scenario/units.ts";

const args = process.argv.slice(2);
const di = args.indexOf("--duration");
const file = args.find((a, i) => !a.startsWith("--") && (di < 0 || i !== di + 1)) ?? new URL("./reference.json", import.meta.url).pathname;
const durationUs = di >= 0 ? parseDurationUs(args[di + 1], "--duration") : undefined;
const scenario = JSON.parse(readFileSync(file, "utf8"));

let peakRss = process.memoryUsage().rss;
const t0 = performance.now();
const r = simulate(scenario, {
  durationUs,
  onProgress: () => {
    const rss = process.memoryUsage().rss;
    if (rss > peakRss) peakRss = rss;
  },
});
const wallS = (performance.now() - t0) / 1000;
const s = r.summary;
const consumedOk = s.messages.consumed + s.messages.duplicates;
console.log(`scenario: ${s.scenario}  virtual: ${(s.simulatedMs / 1000).toFixed(0)} s  wall: ${wallS.toFixed(2)} s  speed-up: ${(s.simulatedMs / 1000 / wallS).toFixed(1)}×`);
console.log(`consumed: ${consumedOk.toLocaleString("en")} msgs  →  ${Math.round(consumedOk / wallS).toLocaleString("en")} consumed msgs per wall-second`);
console.log(`events:   ${s.events.toLocaleString("en")}  →  ${Math.round(s.events / wallS).toLocaleString("en")} events/s  (${(s.events / Math.max(1, consumedOk)).toFixed(2)} events per consumed message)`);
console.log(`peak RSS: ${(peakRss / 1024 / 1024).toFixed(0)} MiB (sampled every virtual second)`);
let rebuilds = 0;
for (const b of r.cluster.brokers) for (const mq of r.cluster.routes.queuesOf(b.index)) rebuilds += b.store.queue(mq).rebuilds;
console.log(`messages: duplicates ${s.messages.duplicates.toLocaleString("en")}  lost ${s.messages.lost.toLocaleString("en")}  reclaimed chunks rebuilt: ${rebuilds.toLocaleString("en")}`);
console.log(`lag committed final/max: ${s.lag.committed.final}/${s.lag.committed.max}  e2e p99: ${s.latency.endToEnd.p99Ms} ms  trace: ${s.traceHash}`);
