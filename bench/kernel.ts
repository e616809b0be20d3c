// Kernel benchmark: an M/M/20 queue on the Scheduler, checked against Erlang C and raced against
// a bare hand-written heap running the same model with the same random draws.
//
// Acceptance: the Erlang-C Wq lies inside the 95 % batch-means interval, and the kernel reaches at
// least 0.6× the bare heap's customers per second. Run with `npm run bench:kernel`.

import { RandomStreams } from "../src/sim/streams.ts";
import { ARRIVAL_MEAN_US, ARRIVAL_RATE, expUs, type MmcRun, runKernelMmc, SEED, SERVERS, SERVICE_MEAN_US, SERVICE_RATE, TimeRing, UNIT_US } from "./mmc.ts";

const CUSTOMERS = 1_000_000;
const WARMUP_CUSTOMERS = 10_000;
const BATCHES = 30;
const T_975_DF29 = 2.0452296421327;
const ROUNDS = 5;
const ACCEPT_RATIO_MIN = 0.6;

type RunResult = Omit<MmcRun, "cpuMs">;

function runKernel(): RunResult {
  return runKernelMmc(CUSTOMERS);
}

const ARRIVAL = 0;
const DEPARTURE = 1;

/** The same model on a minimal heap: (atUs, seq) keys stored in place, no slots, no dispatch table. */
function runBare(): RunResult {
  const streams = new RandomStreams(SEED);
  const arrivalRng = streams.get("mmc/arrival");
  const serviceRng = streams.get("mmc/service");
  let cap = 1024;
  let heapAt = new Float64Array(cap);
  let heapSeq = new Float64Array(cap);
  let heapKind = new Uint8Array(cap);
  let size = 0;
  let seqNext = 0;
  let nowUs = 0;
  let events = 0;

  const push = (atUs: number, kind: number): void => {
    if (size === cap) {
      cap *= 2;
      const at = new Float64Array(cap);
      at.set(heapAt);
      heapAt = at;
      const seq = new Float64Array(cap);
      seq.set(heapSeq);
      heapSeq = seq;
      const k = new Uint8Array(cap);
      k.set(heapKind);
      heapKind = k;
    }
    const seq = seqNext++;
    let i = size++;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const pa = heapAt[parent]!;
      if (pa < atUs || (pa === atUs && heapSeq[parent]! < seq)) break;
      heapAt[i] = pa;
      heapSeq[i] = heapSeq[parent]!;
      heapKind[i] = heapKind[parent]!;
      i = parent;
    }
    heapAt[i] = atUs;
    heapSeq[i] = seq;
    heapKind[i] = kind;
  };
  const popInto = (): number => {
    const kind = heapKind[0]!;
    nowUs = heapAt[0]!;
    const n = --size;
    const at = heapAt[n]!;
    const seq = heapSeq[n]!;
    const k = heapKind[n]!;
    let i = 0;
    for (;;) {
      let child = 2 * i + 1;
      if (child >= n) break;
      const right = child + 1;
      if (right < n && (heapAt[right]! < heapAt[child]! || (heapAt[right] === heapAt[child] && heapSeq[right]! < heapSeq[child]!))) {
        child = right;
      }
      const ca = heapAt[child]!;
      if (at < ca || (at === ca && seq < heapSeq[child]!)) break;
      heapAt[i] = ca;
      heapSeq[i] = heapSeq[child]!;
      heapKind[i] = heapKind[child]!;
      i = child;
    }
    heapAt[i] = at;
    heapSeq[i] = seq;
    heapKind[i] = k;
    return kind;
  };

  const waiting = new TimeRing();
  const waitsUs = new Float64Array(CUSTOMERS);
  let busy = 0;
  let arrived = 0;
  let started = 0;
  const t0 = process.hrtime.bigint();
  push(nowUs + expUs(arrivalRng, ARRIVAL_MEAN_US), ARRIVAL);
  while (size > 0) {
    const kind = popInto();
    events++;
    if (kind === ARRIVAL) {
      arrived++;
      if (busy < SERVERS) {
        busy++;
        waitsUs[started++] = 0;
        push(nowUs + expUs(serviceRng, SERVICE_MEAN_US), DEPARTURE);
      } else {
        waiting.push(nowUs);
      }
      if (arrived < CUSTOMERS) push(nowUs + expUs(arrivalRng, ARRIVAL_MEAN_US), ARRIVAL);
    } else if (waiting.length > 0) {
      waitsUs[started++] = nowUs - waiting.shift();
      push(nowUs + expUs(serviceRng, SERVICE_MEAN_US), DEPARTURE);
    } else {
      busy--;
    }
  }
  const wallMs = Number(process.hrtime.bigint() - t0) / 1e6;
  if (started !== CUSTOMERS) throw new Error(`bare run ended after ${started} customers`);
  return { waitsUs, wallMs, events };
}

/** Erlang C: probability an arrival waits in M/M/c, then Wq = C / (cμ − λ). */
function erlangCWq(servers: number, lambda: number, mu: number): number {
  const load = lambda / mu;
  let term = 1; // load^k / k!
  let below = 1; // sum over k < servers
  for (let k = 1; k < servers; k++) {
    term *= load / k;
    below += term;
  }
  const atServers = (term * load) / servers / (1 - load / servers);
  const probabilityWait = atServers / (below + atServers);
  return probabilityWait / (servers * mu - lambda);
}

/** Mean wait in time units with a 95 % batch-means half-width, after dropping the warm-up. */
function batchMeans(waitsUs: Float64Array): { mean: number; halfWidth: number } {
  const batchSize = Math.floor((waitsUs.length - WARMUP_CUSTOMERS) / BATCHES);
  const means: number[] = [];
  for (let b = 0; b < BATCHES; b++) {
    let sum = 0;
    const from = WARMUP_CUSTOMERS + b * batchSize;
    for (let i = from; i < from + batchSize; i++) sum += waitsUs[i]!;
    means.push(sum / batchSize / UNIT_US);
  }
  const mean = means.reduce((x, y) => x + y, 0) / BATCHES;
  const variance = means.reduce((acc, m) => acc + (m - mean) ** 2, 0) / (BATCHES - 1);
  return { mean, halfWidth: T_975_DF29 * Math.sqrt(variance / BATCHES) };
}

function median(xs: number[]): number {
  const s = [...xs].sort((x, y) => x - y);
  return s[Math.floor(s.length / 2)]!;
}

function main(): void {
  const kernelRuns: RunResult[] = [];
  const bareRuns: RunResult[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    kernelRuns.push(runKernel());
    bareRuns.push(runBare());
  }
  const kernel = kernelRuns[0]!;
  const bare = bareRuns[0]!;
  const sameDraws = kernel.waitsUs.every((w, i) => w === bare.waitsUs[i]);

  const kernelCustomersPerS = median(kernelRuns.map((r) => CUSTOMERS / (r.wallMs / 1e3)));
  const kernelEventsPerS = median(kernelRuns.map((r) => r.events / (r.wallMs / 1e3)));
  const bareCustomersPerS = median(bareRuns.map((r) => CUSTOMERS / (r.wallMs / 1e3)));
  const ratio = kernelCustomersPerS / bareCustomersPerS;

  const { mean, halfWidth } = batchMeans(kernel.waitsUs);
  const wqTheory = erlangCWq(SERVERS, ARRIVAL_RATE, SERVICE_RATE);
  const inside = Math.abs(mean - wqTheory) <= halfWidth;

  const fmt = (x: number) => Math.round(x).toLocaleString("en-US");
  console.log(`M/M/${SERVERS}  λ=${ARRIVAL_RATE}  μ=${SERVICE_RATE}  customers=${fmt(CUSTOMERS)}  seed=${SEED}  rounds=${ROUNDS} (medians)`);
  console.log(`kernel: ${fmt(kernelCustomersPerS)} customers/s, ${fmt(kernelEventsPerS)} events/s (${kernel.events.toLocaleString("en-US")} events/run)`);
  console.log(`bare:   ${fmt(bareCustomersPerS)} customers/s`);
  console.log(`ratio kernel/bare: ${ratio.toFixed(3)} (bar ≥ ${ACCEPT_RATIO_MIN})  ${ratio >= ACCEPT_RATIO_MIN ? "PASS" : "FAIL"}`);
  console.log(`wall ms per run: kernel [${kernelRuns.map((r) => r.wallMs.toFixed(0)).join(", ")}], bare [${bareRuns.map((r) => r.wallMs.toFixed(0)).join(", ")}]`);
  console.log(
    `Wq (service-time units): ${mean.toFixed(6)} ± ${halfWidth.toFixed(6)} (95 % CI, ${BATCHES} batches after ${fmt(WARMUP_CUSTOMERS)} warm-up) = [${(mean - halfWidth).toFixed(6)}, ${(mean + halfWidth).toFixed(6)}]`,
  );
  console.log(`Erlang C Wq: ${wqTheory.toFixed(6)} (brief: 0.275385)  ${inside ? "inside the interval: PASS" : "outside the interval: FAIL"}`);
  console.log(`kernel and bare heap saw identical waits: ${sameDraws ? "yes" : "NO"}`);
}

main();
