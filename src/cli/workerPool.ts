// A pool of long-lived simulation workers behind the RunEngine interface: requests queue until a
// worker is free. Results do not depend on which worker runs what (every run is deterministic).
import type { RunEngine, RunHandle } from "./engine.ts";
import type { RunOutput, RunRequest } from "./computeRun.ts";
import { threadQueue } from "./threadQueue.ts";
import { reviveError, type WorkerMessage } from "./workerMessages.ts";
import type { PoolJob, PoolWorkerData } from "./poolWorker.ts";

const WORKER_URL = new URL("./poolWorkerBoot.mjs", import.meta.url);

export interface EnginePool {
  engine: RunEngine;
  /** Ends every worker (after the caller has awaited its runs). */
  close(): Promise<void>;
}

export function workerPool(size: number): EnginePool {
  const data: PoolWorkerData = { workers: size };
  const threads = threadQueue<PoolJob, RunOutput, { id: number; message: WorkerMessage }>(
    WORKER_URL,
    size,
    "simulation",
    ({ message }) => (message.type === "progress" ? null : message.type === "done" ? { ok: message.output } : { error: reviveError(message.error) }),
    data,
  );
  let nextId = 0;
  const engine: RunEngine = (request: RunRequest): RunHandle => {
    const stop = new SharedArrayBuffer(4);
    const done = threads.submit({ id: nextId++, request, stop });
    return { done, stop: () => void Atomics.store(new Int32Array(stop), 0, 1) };
  };
  return { engine, close: () => threads.close() };
}
