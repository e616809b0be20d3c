// The production RunEngine: computeRun in a worker thread, so the CLI thread stays free to draw the
// progress bar and to receive Ctrl-C while the (synchronous) simulation runs.
import { Worker } from "node:worker_threads";
import type { RunEngine } from "./engine.ts";
import type { RunOutput } from "./computeRun.ts";
import { InternalError } from "./errors.ts";
import { reviveError, type WorkerData, type WorkerMessage } from "./workerMessages.ts";

const WORKER_URL = new URL("./simWorkerBoot.mjs", import.meta.url);

export function workerEngine(): RunEngine {
  return (request, onProgress) => {
    const stop = new SharedArrayBuffer(4);
    const stopFlag = new Int32Array(stop);
    const data: WorkerData = { request, stop };
    const worker = new Worker(WORKER_URL, { workerData: data });
    const done = new Promise<RunOutput>((resolve, reject) => {
      let settled = false;
      const settle = (fn: () => void) => {
        if (settled) return;
        settled = true;
        fn();
        void worker.terminate();
      };
      worker.on("message", (message: WorkerMessage) => {
        if (message.type === "progress") onProgress(message.progress);
        else if (message.type === "done") settle(() => resolve(message.output));
        else settle(() => reject(reviveError(message.error)));
      });
      worker.on("error", (error) => settle(() => reject(error)));
      worker.on("exit", (code) =>
        settle(() => reject(new InternalError(`the simulation worker exited (code ${code}) without a result`))),
      );
    });
    return { done, stop: () => void Atomics.store(stopFlag, 0, 1) };
  };
}
