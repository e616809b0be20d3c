// A RunEngine runs computeRun somewhere and lets the caller stop it. The production engine is a
// worker thread (workerEngine.ts), because simulate() is synchronous and Node delivers no signal to
// a thread busy in a loop; the inline engine runs on the caller's thread, for tests and benchmarks.
import { computeRun, type ComputeDeps, type Progress, type RunOutput, type RunRequest } from "./computeRun.ts";

export interface RunHandle {
  /** Settles with the rendered report, or rejects with the run's error. */
  done: Promise<RunOutput>;
  /** Asks the run to stop at the next slice of virtual time; it still renders a (partial) report. */
  stop(): void;
}

export type RunEngine = (request: RunRequest, onProgress: (progress: Progress) => void) => RunHandle;

/**
 * Runs on the calling thread. stop() takes effect only when called from code the run itself
 * calls (onProgress, a fake simulate), since the thread is busy until the run ends.
 */
export function inlineEngine(deps: ComputeDeps): RunEngine {
  return (request, onProgress) => {
    let stopped = false;
    const done = Promise.resolve().then(() =>
      computeRun(request, deps, { shouldStop: () => stopped, onProgress }),
    );
    return { done, stop: () => void (stopped = true) };
  };
}
