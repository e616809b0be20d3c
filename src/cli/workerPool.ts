// A pool of long-lived simulation workers behind the RunEngine interface: requests queue until a
// worker is free. Results do not depend on which worker runs what (every run is deterministic).
import { Worker } from "node:worker_threads";
import type { RunEngine, RunHandle } from "./engine.ts";
import type { RunOutput, RunRequest } from "./computeRun.ts";
import { InternalError } from "./errors.ts";
import { reviveError, type WorkerMessage } from "./workerMessages.ts";
import type { PoolJob, PoolWorkerData } from "./poolWorker.ts";

const WORKER_URL = new URL("./poolWorkerBoot.mjs", import.meta.url);

export interface EnginePool {
  engine: RunEngine;
  /** Ends every worker (after the caller has awaited its runs). */
  close(): Promise<void>;
}

interface Pending {
  job: PoolJob;
  resolve: (o: RunOutput) => void;
  reject: (e: Error) => void;
}

export function workerPool(size: number): EnginePool {
  const idle: Worker[] = [];
  const all: Worker[] = [];
  const queue: Pending[] = [];
  const inFlight = new Map<number, { worker: Worker; pending: Pending }>();
  let nextId = 0;

  const dispatch = () => {
    while (idle.length > 0 && queue.length > 0) {
      const worker = idle.pop()!;
      const pending = queue.shift()!;
      inFlight.set(pending.job.id, { worker, pending });
      worker.postMessage(pending.job);
    }
  };
  for (let i = 0; i < size; i++) {
    const data: PoolWorkerData = { workers: size };
    const worker = new Worker(WORKER_URL, { workerData: data });
    worker.on("message", ({ id, message }: { id: number; message: WorkerMessage }) => {
      const entry = inFlight.get(id);
      if (!entry || message.type === "progress") return;
      inFlight.delete(id);
      if (message.type === "done") entry.pending.resolve(message.output);
      else entry.pending.reject(reviveError(message.error));
      idle.push(worker);
      dispatch();
    });
    worker.on("error", (error) => {
      for (const [id, entry] of inFlight) {
        if (entry.worker !== worker) continue;
        inFlight.delete(id);
        entry.pending.reject(error instanceof Error ? error : new InternalError(String(error)));
      }
    });
    all.push(worker);
    idle.push(worker);
  }

  const engine: RunEngine = (request: RunRequest): RunHandle => {
    const stop = new SharedArrayBuffer(4);
    const job: PoolJob = { id: nextId++, request, stop };
    const done = new Promise<RunOutput>((resolve, reject) => {
      queue.push({ job, resolve, reject });
      dispatch();
    });
    return { done, stop: () => void Atomics.store(new Int32Array(stop), 0, 1) };
  };
  return { engine, close: async () => void (await Promise.all(all.map((w) => w.terminate()))) };
}
