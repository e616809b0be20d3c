// One timed simulate() of a scenario, shared by bench/pipeline.ts and the performance guard: wall time,
// events, consumed messages, peak RSS and the wall time of each whole simulated hour. Bench code may
// read the wall clock and the process's memory; the model it times never does.
import { simulate, type RunResult } from "../src/run/simulate.ts";
import { cpuNowMs } from "./mmc.ts";

const HOUR_US = 3_600_000_000;
/** The Scheduler's own life-time cap (2^52): a bench run is never cut by an event limit. */
const BENCH_MAX_EVENTS = 2 ** 52;

export interface PipelineRun {
  result: RunResult;
  wallS: number;
  /** Process CPU time over the run (user + system, all threads). */
  cpuS: number;
  events: number;
  /** Consumed by listeners, duplicates included: what the wall time bought. */
  consumed: number;
  /** Largest resident set seen at the progress slices (every virtual second or 65 536 events). */
  peakRssBytes: number;
  /** Wall seconds spent on each whole simulated hour, in order (empty for runs shorter than an hour). */
  hourWallS: number[];
  /** Process CPU seconds spent on each whole simulated hour: flat on a loaded machine when wall is not. */
  hourCpuS: number[];
  /** Resident set at the end of each whole simulated hour: memory must follow the backlog, not the hour. */
  hourRssBytes: number[];
  /** Live heap after a full GC at the end of each whole simulated hour — only when the process runs with
   * --expose-gc (npm run bench:day does): unlike the resident set, it moves only with what the run keeps. */
  hourLiveHeapBytes: number[];
}

/** The runtime's full collection when the process was started with --expose-gc. */
const forceGc = (globalThis as { gc?: () => void }).gc;

export function runPipeline(scenario: unknown, durationUs?: number): PipelineRun {
  let peakRssBytes = process.memoryUsage().rss;
  const hourWallS: number[] = [];
  const hourCpuS: number[] = [];
  const hourRssBytes: number[] = [];
  const hourLiveHeapBytes: number[] = [];
  const t0 = performance.now();
  const cpu0 = cpuNowMs();
  let hourStartMs = t0;
  let hourStartCpuMs = cpu0;
  const result = simulate(scenario, {
    durationUs,
    // No event cap: the CLI's default (2 000 000 000) would cut a day of the reference at 18.6 h
    // (2.99 events a message × 36 M messages an hour); pipeline.ts refuses an incomplete run anyway.
    maxEvents: BENCH_MAX_EVENTS,
    onProgress: (simulatedUs) => {
      const rss = process.memoryUsage().rss;
      if (rss > peakRssBytes) peakRssBytes = rss;
      // Slices end at every sample time (1 s by default), so an hour's end is seen within a slice.
      if (simulatedUs >= (hourWallS.length + 1) * HOUR_US) {
        const nowMs = performance.now();
        const cpuMs = cpuNowMs();
        hourWallS.push((nowMs - hourStartMs) / 1000);
        hourCpuS.push((cpuMs - hourStartCpuMs) / 1000);
        hourRssBytes.push(rss);
        if (forceGc) {
          forceGc();
          hourLiveHeapBytes.push(process.memoryUsage().heapUsed);
        }
        // The collection's time is the bench's, not the model's: each hour's clock starts after it.
        hourStartMs = performance.now();
        hourStartCpuMs = cpuNowMs();
      }
    },
  });
  const wallS = (performance.now() - t0) / 1000;
  const cpuS = (cpuNowMs() - cpu0) / 1000;
  const s = result.summary;
  return { result, wallS, cpuS, events: s.events, consumed: s.messages.consumed + s.messages.duplicates, peakRssBytes, hourWallS, hourCpuS, hourRssBytes, hourLiveHeapBytes };
}

/** Events per consumed message; a run that consumed nothing counts as one message so the figure stays finite. */
export function eventsPerMessage(run: Pick<PipelineRun, "events" | "consumed">): number {
  return run.events / Math.max(1, run.consumed);
}
