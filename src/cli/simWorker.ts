// The simulation worker's body: computeRun with the real simulate and renderer, stopped through a
// shared flag that the CLI thread sets on Ctrl-C (Atomics, so the busy loop sees it at once).
import { parentPort, workerData } from "node:worker_threads";
import { simulate } from "../run/simulate.ts";
import { computeRun, type RenderFn } from "./computeRun.ts";
import { processMemoryOver } from "./resourceGuards.ts";
import { serialiseError, type WorkerData, type WorkerMessage } from "./workerMessages.ts";

/** Least wall time between two progress messages, ms: the bar needs no more than ~10 frames/s. */
const PROGRESS_EVERY_MS = 100;

const port = parentPort;
if (port === null) throw new Error("simWorker.ts must run in a worker thread");
const { request, stop } = workerData as WorkerData;
const stopFlag = new Int32Array(stop);
const post = (message: WorkerMessage) => port.postMessage(message);

// Loaded on first use so a missing or broken renderer fails this run with its own message.
const render: RenderFn = async (result, options) => (await import("../report/renderReport.ts")).renderReport(result, options);

let lastPostMs = -Infinity;
// One simulation thread: --max-memory is measured on the whole process (its RSS).
computeRun(request, { simulate, render, nowMs: () => performance.now(), nodeVersion: process.version, memoryOver: processMemoryOver() }, {
  shouldStop: () => Atomics.load(stopFlag, 0) !== 0,
  onProgress: (progress) => {
    if (progress.wallMs - lastPostMs < PROGRESS_EVERY_MS) return;
    lastPostMs = progress.wallMs;
    post({ type: "progress", progress });
  },
}).then(
  (output) => post({ type: "done", output }),
  (error: unknown) => post({ type: "error", error: serialiseError(error) }),
);
