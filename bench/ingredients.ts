// What the model does per consumed message, counted (issue 18's floor, bench/floor.ts): kernel events,
// trace records by type, draws through each distribution class's quantile, histogram records. Wraps the
// prototypes' methods before the run, so the run itself is unchanged (its trace hash is printed).
//   node --import tsx bench/ingredients.ts [scenario.json] [--duration 1m]      Not a test.
import { readFileSync } from "node:fs";
import { simulate } from "../src/run/simulate.ts";
import * as D from "../src/scenario/distKinds.ts";
import { parseDurationUs } from "../src/scenario/units.ts";
import { Histogram } from "../src/sim/Histogram.ts";
import { Trace } from "../src/sim/Trace.ts";

const args = process.argv.slice(2);
const di = args.indexOf("--duration");
const file = args.find((a, i) => !a.startsWith("--") && (di < 0 || i !== di + 1)) ?? new URL("./reference.json", import.meta.url).pathname;
const durationUs = parseDurationUs(di >= 0 ? args[di + 1] : "1m", "--duration");

const records = new Map<number, number>();
let trace: Trace | null = null;
const emit = Trace.prototype.emit;
Trace.prototype.emit = function (this: Trace, type: number, tUs: number, f0?: number, f1?: number, f2?: number, f3?: number): void {
  trace = this;
  records.set(type, (records.get(type) ?? 0) + 1);
  emit.call(this, type, tUs, f0, f1, f2, f3);
};
const draws = new Map<string, number>();
for (const [name, cls] of Object.entries(D)) {
  const proto = (cls as { prototype?: { quantile?: (u: number) => number } }).prototype;
  const quantile = proto?.quantile;
  if (proto === undefined || quantile === undefined) continue;
  proto.quantile = function (this: unknown, u: number): number {
    draws.set(name, (draws.get(name) ?? 0) + 1);
    return quantile.call(this, u);
  };
}
let histogramRecords = 0;
const record = Histogram.prototype.record;
Histogram.prototype.record = function (this: Histogram, v: number): void {
  histogramRecords++;
  record.call(this, v);
};

const r = simulate(JSON.parse(readFileSync(file, "utf8")), { durationUs });
const s = r.summary;
const n = Math.max(1, s.messages.consumed + s.messages.duplicates);
console.log(`${s.scenario}: ${n.toLocaleString("en")} consumed; per consumed message: ${(s.events / n).toFixed(3)} events, ${(trace === null ? 0 : (trace as Trace).count / n).toFixed(2)} trace records, ${(histogramRecords / n).toFixed(2)} histogram records; trace ${s.traceHash}`);
for (const [type, c] of [...records].sort((x, y) => y[1] - x[1])) console.log(`  trace ${(trace as Trace | null)?.typeName(type) ?? type}: ${(c / n).toFixed(3)}`);
for (const [name, c] of draws) console.log(`  ${name}.quantile: ${(c / n).toFixed(3)}`);
