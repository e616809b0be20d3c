// Issue 18's floor: what the reference's per-message ingredients cost on this project's own primitives,
// with none of RocketMQ's logic around them. A skeleton of bench/reference.json's pipeline — 10 000
// msg/s Poisson over 16 queues, one consumer loop per queue, long polls held until the next 1 ms reput
// pass — made of the same counts of the same operations the model performs per consumed message
// (counted by bench/ingredients.ts: 2.99 kernel events, 2.89 lognormal quantiles — a latency per network
// hop and a consume time —, 1 exponential gap, 1 hashUniform, 6.4 trace records, 3 histogram records)
// on the real Scheduler, LognormalDist, alea streams, hashUniform, Trace and Histogram.
// It prints its events and trace records per message (to show the counts match the model's) and its
// consumed msgs per CPU-second: no implementation built on these primitives can beat it, so the
// model's time per message minus the skeleton's is what the RocketMQ state machine itself costs
// (ProcessQueue, flow control, offset stores, the broker's checks, the store, the fates).
// Also the least state those steps must keep, as plain typed arrays ("state"): the store's columns
// (birth, body size, tag) and commit-log bytes, a pull's response size summed over its messages, the
// client's ProcessQueue per queue (count, bytes, the lowest unconsumed offset, a done flag per message),
// the three flow-control comparisons before each pull, the offset store updated on each consume and
// committed on the broker by each pull, and one fate byte per message (consumed before? a duplicate).
// `--without trace,hist,draws,state` leaves those ingredients out (trace records not emitted, histograms
// not recorded, latencies and consume times a constant instead of drawn, no state kept; events stay the
// same), to attribute the skeleton's time to them by difference.
//   node --import tsx bench/floor.ts [--duration 10m] [--without trace,hist,draws,state]      Not a test.
import { LognormalDist } from "../src/scenario/distKinds.ts";
import { parseDurationUs } from "../src/scenario/units.ts";
import { Histogram } from "../src/sim/Histogram.ts";
import { Scheduler } from "../src/sim/Scheduler.ts";
import { RandomStreams, hashUniform } from "../src/sim/streams.ts";
import { Trace } from "../src/sim/Trace.ts";
import { cpuNowMs } from "./mmc.ts";

const args = process.argv.slice(2);
const di = args.indexOf("--duration");
const durationUs = parseDurationUs(di >= 0 ? args[di + 1] : "10m", "--duration");
const wi = args.indexOf("--without");
const without = new Set(wi >= 0 ? (args[wi + 1] ?? "").split(",") : []);
for (const w of without) if (!["trace", "hist", "draws", "state"].includes(w)) throw new Error(`--without: ${w} is not one of trace, hist, draws, state`);
const TRACE = !without.has("trace");
const HIST = !without.has("hist");
const DRAWS = !without.has("draws");
const STATE = !without.has("state");

const QUEUES = 16;
const RATE = 10_000; // msg/s
const PASS_US = 1_000; // the reput pass
const THREADS = 20 * 4; // consume threads over the 4 instances: never the bottleneck here, as in the reference

const sched = new Scheduler();
const streams = new RandomStreams(42);
const trace = new Trace();
const T = {
  pullSent: trace.defineType("pullSent", ["q", "offset"]),
  pullHeld: trace.defineType("pullHeld", ["q", "offset"]),
  offsetCommit: trace.defineType("offsetCommit", ["q", "offset"]),
  pullResult: trace.defineType("pullResult", ["q", "count"]),
  consumeStart: trace.defineType("consumeStart", ["q", "offset"]),
  consumeEnd: trace.defineType("consumeEnd", ["q", "offset"]),
  offsetUpdate: trace.defineType("offsetUpdate", ["q", "offset"]),
};
const latency = new LognormalDist(300, 2_000);
const consumeTime = new LognormalDist(1_000, 10_000);
const arrivalRng = streams.get("arrival");
const netRng = Array.from({ length: QUEUES }, (_, q) => streams.get(`net/${q}`));
const waitHist = new Histogram();
const consumeHist = new Histogram();
const e2eHist = new Histogram();

// Per queue: messages dispatched (the consume queue's max), the offset a pull asks for, a held pull.
const dispatched = new Float64Array(QUEUES);
const stored = new Float64Array(QUEUES);
const pullOffset = new Float64Array(QUEUES);
const held = new Uint8Array(QUEUES);
const bornUs = new Float64Array(1 << 20); // a ring of birth times by (queue, offset)
const RING_MASK = (1 << 16) - 1;
const bodyBytes = new Int32Array(1 << 20);
const tags = new Int16Array(1 << 20);
const fate = new Uint8Array(1 << 20);
const doneFlag = new Uint8Array(1 << 20);
const pqCount = new Float64Array(QUEUES);
const pqBytes = new Float64Array(QUEUES);
const pqLow = new Float64Array(QUEUES); // lowest offset not yet consumed
const pqHigh = new Float64Array(QUEUES); // highest offset cached + 1
const offsetStore = new Float64Array(QUEUES);
const brokerCommitted = new Float64Array(QUEUES);
let commitLogBytes = 0;
let duplicates = 0;
let flowControlled = 0;
let nextArrivalUs = 0;
let rr = 0;
let consumed = 0;
let busy = 0;

const kindPass = sched.defineKind("pass", () => {
  const now = sched.nowUs;
  while (nextArrivalUs <= now) {
    const q = rr++ % QUEUES;
    const slot = (q << 16) | (stored[q]! & RING_MASK);
    bornUs[slot] = nextArrivalUs;
    if (STATE) {
      bodyBytes[slot] = 1024;
      tags[slot] = -1;
      fate[slot] = 0;
      commitLogBytes += 1024 + 200;
    }
    stored[q]!++;
    nextArrivalUs += Math.round(-Math.log(1 - arrivalRng()) * (1e6 / RATE));
  }
  for (let q = 0; q < QUEUES; q++) {
    dispatched[q] = stored[q]!;
    if (held[q] === 1 && dispatched[q]! > pullOffset[q]!) {
      held[q] = 0;
      answer(q);
    }
  }
  sched.post(now + PASS_US, kindPass);
});
const kindPull = sched.defineKind("pullAtBroker", (q, commitOffset) => {
  if (STATE && commitOffset > brokerCommitted[q]!) brokerCommitted[q] = commitOffset;
  if (TRACE) trace.emit(T.offsetCommit, sched.nowUs, q, pullOffset[q]!);
  if (dispatched[q]! > pullOffset[q]!) answer(q);
  else {
    held[q] = 1;
    if (TRACE) trace.emit(T.pullHeld, sched.nowUs, q, pullOffset[q]!);
  }
});
const kindResponse = sched.defineKind("pullAtClient", (q, from, count) => {
  const now = sched.nowUs;
  if (TRACE) trace.emit(T.pullResult, now, q, count);
  for (let o = from; o < from + count; o++) {
    if (STATE) {
      const slot = (q << 16) | (o & RING_MASK);
      pqCount[q]!++;
      pqBytes[q]! += bodyBytes[slot]!;
      doneFlag[slot] = 0;
      pqHigh[q] = o + 1;
    }
    const d = DRAWS ? consumeTime.quantile(hashUniform(42, q, o, 0)) : 1_400;
    if (TRACE) trace.emit(T.consumeStart, now, q, o);
    if (HIST) waitHist.record(0);
    busy++;
    sched.post(now + d, kindDone, q, o, now);
  }
  pullOffset[q] = from + count;
  sendPull(q);
});
const kindDone = sched.defineKind("consumeDone", (q, o, startUs) => {
  const now = sched.nowUs;
  busy--;
  consumed++;
  if (STATE) {
    const slot = (q << 16) | (o & RING_MASK);
    if (fate[slot] !== 0) duplicates++;
    fate[slot] = 1;
    doneFlag[slot] = 1;
    pqCount[q]!--;
    pqBytes[q]! -= bodyBytes[slot]!;
    let low = pqLow[q]!;
    while (low < pqHigh[q]! && doneFlag[(q << 16) | (low & RING_MASK)] === 1) low++;
    pqLow[q] = low;
    if (low > offsetStore[q]!) offsetStore[q] = low;
  }
  if (HIST) {
    consumeHist.record(now - startUs);
    e2eHist.record(now - bornUs[(q << 16) | (o & RING_MASK)]!);
  }
  if (TRACE) trace.emit(T.consumeEnd, now, q, o);
  if (TRACE) trace.emit(T.offsetUpdate, now, q, o + 1);
});

function answer(q: number): void {
  const from = pullOffset[q]!;
  const count = Math.min(32, dispatched[q]! - from);
  if (STATE) {
    let bytes = 0;
    for (let o = from; o < from + count; o++) bytes += bodyBytes[(q << 16) | (o & RING_MASK)]! + tags[(q << 16) | (o & RING_MASK)]!;
    if (bytes < 0) throw new Error("negative response size");
  }
  sched.post(sched.nowUs + (DRAWS ? latency.quantile(netRng[q]!()) : 400), kindResponse, q, from, count);
}
function sendPull(q: number): void {
  // The three flow-control thresholds (count, MiB, span): never tripped here, as in the reference.
  if (STATE && (pqCount[q]! > 1000 || pqBytes[q]! > 100 * 1024 * 1024 || pqHigh[q]! - pqLow[q]! > 2000)) flowControlled++;
  if (TRACE) trace.emit(T.pullSent, sched.nowUs, q, pullOffset[q]!);
  sched.post(sched.nowUs + (DRAWS ? latency.quantile(netRng[q]!()) : 400), kindPull, q, offsetStore[q]!);
}

for (let q = 0; q < QUEUES; q++) sendPull(q);
sched.post(0, kindPass);
const cpu0 = cpuNowMs();
const t0 = performance.now();
sched.runUntil(durationUs);
const cpuS = (cpuNowMs() - cpu0) / 1000;
const wallS = (performance.now() - t0) / 1000;
if (duplicates + flowControlled > 0 || (STATE && commitLogBytes === 0)) console.log(`(note: ${duplicates} duplicates, ${flowControlled} flow-controlled pulls)`);
if (busy > THREADS * 10) console.log(`(note: ${busy} consumes in flight at the end)`);
console.log(`floor skeleton${without.size > 0 ? ` without ${[...without].join(", ")}` : ""}: ${consumed.toLocaleString("en")} consumed in ${durationUs / 1e6} virtual s; ${(sched.eventsRun / consumed).toFixed(3)} events and ${(trace.count / consumed).toFixed(2)} trace records per message; trace ${trace.hash()}`);
console.log(`  ${Math.round(consumed / cpuS).toLocaleString("en")} consumed msgs per CPU-second (${((cpuS / consumed) * 1e6).toFixed(3)} µs per message), ${Math.round(consumed / wallS).toLocaleString("en")} per wall-second`);
