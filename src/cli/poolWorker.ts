// A long-lived simulation worker for `check` and `sweep`: it runs one request after another, so the
// cost of starting a thread and loading the model is paid once per worker, not once per run.
import { parentPort, workerData } from "node:worker_threads";
import { simulate } from "../run/simulate.ts";
import { computeRun, type RenderFn, type RunRequest } from "./computeRun.ts";
import { threadMemoryOver } from "./resourceGuards.ts";
import { serialiseError, type WorkerMessage } from "./workerMessages.ts";

export interface PoolWorkerData {
  /** Threads in the pool: each run's share of --max-memory is 1/workers (resourceGuards.ts). */
  workers: number;
}

export interface PoolJob {
  id: number;
  request: RunRequest;
  /** Int32Array[1] over this buffer: 1 = stop at the next slice. */
  stop: SharedArrayBuffer;
}

const port = parentPort;
if (port === null) throw new Error("poolWorker.ts must run in a worker thread");
const memoryOver = threadMemoryOver((workerData as PoolWorkerData).workers);
const render: RenderFn = async (result, options) => (await import("../report/renderReport.ts")).renderReport(result, options);

port.on("message", (job: PoolJob) => {
  const stopFlag = new Int32Array(job.stop);
  const post = (message: WorkerMessage) => port.postMessage({ id: job.id, message });
  computeRun(job.request, { simulate, render, nowMs: () => performance.now(), nodeVersion: process.version, memoryOver }, {
    shouldStop: () => Atomics.load(stopFlag, 0) !== 0,
    onProgress: () => {},
  }).then(
    (output) => post({ type: "done", output }),
    (error: unknown) => post({ type: "error", error: serialiseError(error) }),
  );
});
