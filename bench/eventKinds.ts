// Events per consumed message by event kind (issue 18: where the events a message go — 3.83, 2.99 since the 1 ms reput passes). Wraps each
// kind's handler with a counter before the run starts — bench code reaching into the scheduler's
// private table; the handlers run unchanged, so the trace hash is the run's own.
//   node --import tsx bench/eventKinds.ts [scenario.json] [--duration 1m]
// Not a test.
import { readFileSync } from "node:fs";
import { simulate } from "../src/run/simulate.ts";
import { parseDurationUs } from "../src/scenario/units.ts";

type Handler = (target: number, a: number, b: number) => void;

const args = process.argv.slice(2);
const di = args.indexOf("--duration");
const file = args.find((a, i) => !a.startsWith("--") && (di < 0 || i !== di + 1)) ?? new URL("./reference.json", import.meta.url).pathname;
const durationUs = parseDurationUs(di >= 0 ? args[di + 1] : "1m", "--duration");
const counts: number[] = [];
let names: string[] = [];
const r = simulate(JSON.parse(readFileSync(file, "utf8")), {
  durationUs,
  configure: (cl) => {
    const sched = cl.sched as unknown as { handlers: Handler[]; kindNames: string[] };
    names = sched.kindNames;
    sched.handlers = sched.handlers.map((h, k) => {
      counts[k] = 0;
      return (t: number, a: number, b: number) => {
        counts[k]!++;
        h(t, a, b);
      };
    });
  },
});
const s = r.summary;
const consumed = Math.max(1, s.messages.consumed + s.messages.duplicates);
console.log(`${s.scenario}: ${s.events.toLocaleString("en")} events, ${consumed.toLocaleString("en")} consumed, ${(s.events / consumed).toFixed(3)} events per consumed message, trace ${s.traceHash}`);
const rows = counts.map((c, k) => [names[k] ?? `kind#${k}`, c] as const).filter(([, c]) => c > 0).sort((x, y) => y[1] - x[1]);
for (const [name, c] of rows) console.log(`${c.toLocaleString("en").padStart(14)}  ${(c / consumed).toFixed(3)} per message  ${name}`);
