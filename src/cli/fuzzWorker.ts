// A long-lived fuzz worker: runs one job (a fuzz run or a shrink) after another and posts the reply.
// Modelled on poolWorker.ts; a job's reply depends on the job alone, never on which worker ran it.
import { parentPort } from "node:worker_threads";
import { handleJob, type FuzzJob } from "../fuzz/jobs.ts";
import { serialiseError } from "./workerMessages.ts";

export interface FuzzWorkerJob {
  id: number;
  job: FuzzJob;
}

const port = parentPort;
if (port === null) throw new Error("fuzzWorker.ts must run in a worker thread");

port.on("message", ({ id, job }: FuzzWorkerJob) => {
  try {
    port.postMessage({ id, reply: handleJob(job) });
  } catch (error) {
    port.postMessage({ id, error: serialiseError(error) });
  }
});
