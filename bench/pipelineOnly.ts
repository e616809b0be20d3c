// The model alone for A/B timing (farm-bench --vs): one simulate() of a scenario (default the reference)
// with no kernel rounds and no progress callback, printing the trace hash and events per consumed
// message so a pair of trees can be checked to compute the same thing.
//   node --import tsx bench/pipelineOnly.ts [scenario.json] [--duration 5m]
import { readFileSync } from "node:fs";
import { simulate } from "../src/run/simulate.ts";
import { parseDurationUs } from "../src/scenario/units.ts";

const args = process.argv.slice(2);
const di = args.indexOf("--duration");
const file = args.find((a, i) => !a.startsWith("--") && (di < 0 || i !== di + 1)) ?? new URL("./reference.json", import.meta.url).pathname;
const durationUs = di >= 0 ? parseDurationUs(args[di + 1], "--duration") : undefined;
const r = simulate(JSON.parse(readFileSync(file, "utf8")), { durationUs });
const s = r.summary;
console.log(`${s.scenario} events ${s.events} per message ${(s.events / Math.max(1, s.messages.consumed + s.messages.duplicates)).toFixed(4)} trace ${s.traceHash}`);
