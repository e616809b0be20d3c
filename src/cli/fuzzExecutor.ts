// Where fuzz jobs run: a pool of worker threads (production) or the calling thread (tests). Either way
// a job's reply is handleJob(job), so results do not depend on the executor nor on its size.
import { Worker } from "node:worker_threads";
import { handleJob, type FuzzJob, type FuzzReply } from "../fuzz/jobs.ts";
import { InternalError } from "./errors.ts";
import type { FuzzWorkerJob } from "./fuzzWorker.ts";
import { reviveError, type SerialError } from "./workerMessages.ts";

const WORKER_URL = new URL("./fuzzWorkerBoot.mjs", import.meta.url);

export interface FuzzExecutor {
  /** Jobs that may run at once. */
  size: number;
  submit(job: FuzzJob): Promise<FuzzReply>;
  /** Ends the workers (after the caller has awaited its jobs). */
  close(): Promise<void>;
}

/** Runs each job on the calling thread, one at a time, whatever `size` says (it only shapes dispatch). */
export function inlineExecutor(size: number): FuzzExecutor {
  return {
    size,
    submit: (job) => Promise.resolve().then(() => handleJob(job)),
    close: async () => {},
  };
}

interface Pending {
  message: FuzzWorkerJob;
  resolve: (reply: FuzzReply) => void;
  reject: (error: Error) => void;
}

/** `size` worker threads; jobs queue until one is free. */
export function threadExecutor(size: number): FuzzExecutor {
  const idle: Worker[] = [];
  const all: Worker[] = [];
  const queue: Pending[] = [];
  const inFlight = new Map<number, { worker: Worker; pending: Pending }>();
  let nextId = 0;
  let alive = size;
  const dispatch = () => {
    while (idle.length > 0 && queue.length > 0) {
      const worker = idle.pop()!;
      const pending = queue.shift()!;
      inFlight.set(pending.message.id, { worker, pending });
      worker.postMessage(pending.message);
    }
  };
  for (let i = 0; i < size; i++) {
    const worker = new Worker(WORKER_URL);
    worker.on("message", ({ id, reply, error }: { id: number; reply?: FuzzReply; error?: SerialError }) => {
      const entry = inFlight.get(id);
      if (!entry) return;
      inFlight.delete(id);
      if (reply !== undefined) entry.pending.resolve(reply);
      else entry.pending.reject(reviveError(error ?? { kind: "internal", message: "the fuzz worker sent no reply" }));
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
    // A worker that exits (out of memory, a crash outside a job) takes no more jobs; with none left,
    // the queued jobs fail instead of waiting for ever.
    worker.on("exit", () => {
      alive--;
      const at = idle.indexOf(worker);
      if (at >= 0) idle.splice(at, 1);
      if (alive > 0) return;
      for (const p of queue.splice(0)) p.reject(new InternalError("every fuzz worker has exited"));
    });
    all.push(worker);
    idle.push(worker);
  }
  return {
    size,
    submit: (job) => new Promise<FuzzReply>((resolve, reject) => {
      queue.push({ message: { id: nextId++, job }, resolve, reject });
      dispatch();
    }),
    close: async () => void (await Promise.all(all.map((w) => w.terminate()))),
  };
}
