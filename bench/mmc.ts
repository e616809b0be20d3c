// The kernel's bare event rate: an M/M/20 queue run on the Scheduler, with nothing of the domain. Shared
// by bench/kernel.ts (which races it against a hand-written heap and checks Erlang C), bench/pipeline.ts
// and the performance guard (which divide the model's event rate by it, so a regression shows as a ratio
// that machine load moves far less than an absolute rate).
import { Scheduler } from "../src/sim/Scheduler.ts";
import { RandomStreams, type Rng } from "../src/sim/streams.ts";

export const SERVERS = 20;
export const ARRIVAL_RATE = 18; // λ per time unit
export const SERVICE_RATE = 1; // μ per time unit per server
export const UNIT_US = 1_000_000; // one time unit in µs: rounding draws to whole µs is then negligible
export const SEED = 20240601;

export const ARRIVAL_MEAN_US = UNIT_US / ARRIVAL_RATE;
export const SERVICE_MEAN_US = UNIT_US / SERVICE_RATE;

export interface MmcRun {
  waitsUs: Float64Array; // queue wait per customer, in order of service start (= arrival order, FIFO)
  wallMs: number;
  /** CPU time of the whole process (user + system) over the run: what load on other processes moves least. */
  cpuMs: number;
  events: number;
}

/** Process CPU time, ms: user + system, all threads (the GC's helpers too). */
export function cpuNowMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

export function expUs(rng: Rng, meanUs: number): number {
  return Math.round(-meanUs * Math.log1p(-rng()));
}

/** FIFO of waiting customers' arrival times, a growable power-of-two ring. */
export class TimeRing {
  private buffer = new Float64Array(1 << 12);
  private head = 0;
  private tail = 0;
  get length(): number {
    return this.tail - this.head;
  }
  push(x: number): void {
    if (this.tail - this.head === this.buffer.length) this.grow();
    this.buffer[this.tail++ & (this.buffer.length - 1)] = x;
  }
  shift(): number {
    return this.buffer[this.head++ & (this.buffer.length - 1)]!;
  }
  private grow(): void {
    const next = new Float64Array(this.buffer.length * 2);
    for (let i = this.head; i < this.tail; i++) next[i - this.head] = this.buffer[i & (this.buffer.length - 1)]!;
    this.tail -= this.head;
    this.head = 0;
    this.buffer = next;
  }
}

/** M/M/SERVERS for `customers` customers on the kernel's Scheduler; wall time covers the run only. */
export function runKernelMmc(customers: number): MmcRun {
  const streams = new RandomStreams(SEED);
  const arrivalRng = streams.get("mmc/arrival");
  const serviceRng = streams.get("mmc/service");
  const scheduler = new Scheduler();
  const waiting = new TimeRing();
  const waitsUs = new Float64Array(customers);
  let busy = 0;
  let arrived = 0;
  let started = 0;

  const startService = (arrivalUs: number): void => {
    waitsUs[started++] = scheduler.nowUs - arrivalUs;
    scheduler.scheduleIn(expUs(serviceRng, SERVICE_MEAN_US), departure);
  };
  const arrival = scheduler.defineKind("ARRIVAL", () => {
    arrived++;
    if (busy < SERVERS) {
      busy++;
      startService(scheduler.nowUs);
    } else {
      waiting.push(scheduler.nowUs);
    }
    if (arrived < customers) scheduler.scheduleIn(expUs(arrivalRng, ARRIVAL_MEAN_US), arrival);
  });
  const departure = scheduler.defineKind("DEPARTURE", () => {
    if (waiting.length > 0) startService(waiting.shift());
    else busy--;
  });

  const t0 = process.hrtime.bigint();
  const cpu0 = cpuNowMs();
  scheduler.scheduleIn(expUs(arrivalRng, ARRIVAL_MEAN_US), arrival);
  const outcome = scheduler.runUntil(2 ** 52);
  const wallMs = Number(process.hrtime.bigint() - t0) / 1e6;
  const cpuMs = cpuNowMs() - cpu0;
  if (outcome !== "idle" || started !== customers) throw new Error(`kernel run ended ${outcome} after ${started} customers`);
  return { waitsUs, wallMs, cpuMs, events: scheduler.eventsRun };
}

export interface EventRate {
  /** Events per wall-second and per CPU-second (process CPU time). */
  wall: number;
  cpu: number;
}

/** The kernel's event rates: the best of `rounds` M/M/20 runs for each (the best, because load only ever
 * slows a run down, so the fastest round is the one least disturbed). */
export function kernelEventRate(customers: number, rounds: number): EventRate {
  const best = { wall: 0, cpu: 0 };
  for (let i = 0; i < rounds; i++) {
    const r = runKernelMmc(customers);
    best.wall = Math.max(best.wall, r.events / (r.wallMs / 1e3));
    best.cpu = Math.max(best.cpu, r.events / (Math.max(r.cpuMs, 1e-3) / 1e3));
  }
  return best;
}
