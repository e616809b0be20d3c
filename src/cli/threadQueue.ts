// A fixed set of long-lived worker threads taking jobs from one queue: a job waits until a worker is
// free, and a worker's reply settles the job it was given. Shared by `check`/`sweep` (workerPool.ts)
// and `fuzz` (fuzzExecutor.ts); each says how to read its worker's messages. Results never depend on
// which worker ran a job: every job is deterministic.
import { Worker } from "node:worker_threads";
import { InternalError } from "./errors.ts";

/** What a worker's message means for its job: a result, an error, or nothing yet (a progress report). */
export type Settlement<R> = { ok: R } | { error: Error } | null;

export interface ThreadQueue<J extends { id: number }, R> {
  submit(job: J): Promise<R>;
  /** Ends every worker (after the caller has awaited its jobs). */
  close(): Promise<void>;
}

interface Pending<J, R> {
  job: J;
  resolve: (r: R) => void;
  reject: (e: Error) => void;
}

/**
 * `size` workers started from `url` (each given `workerData`); every message a worker posts carries the
 * job's `id`, and `settle` reads the rest. A worker that exits (out of memory, a crash outside a job)
 * takes no more jobs; when none is left, queued jobs fail with `InternalError("every <name> worker has
 * exited")` instead of waiting for ever.
 */
export function threadQueue<J extends { id: number }, R, M extends { id: number }>(
  url: URL,
  size: number,
  name: string,
  settle: (message: M) => Settlement<R>,
  workerData?: unknown,
): ThreadQueue<J, R> {
  const idle: Worker[] = [];
  const all: Worker[] = [];
  const queue: Pending<J, R>[] = [];
  const inFlight = new Map<number, { worker: Worker; pending: Pending<J, R> }>();
  let alive = size;

  const dispatch = () => {
    while (idle.length > 0 && queue.length > 0) {
      const worker = idle.pop()!;
      const pending = queue.shift()!;
      inFlight.set(pending.job.id, { worker, pending });
      worker.postMessage(pending.job);
    }
  };
  for (let i = 0; i < size; i++) {
    const worker = new Worker(url, workerData === undefined ? {} : { workerData });
    worker.on("message", (message: M) => {
      const entry = inFlight.get(message.id);
      if (!entry) return;
      const settled = settle(message);
      if (settled === null) return;
      inFlight.delete(message.id);
      if ("ok" in settled) entry.pending.resolve(settled.ok);
      else entry.pending.reject(settled.error);
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
    worker.on("exit", () => {
      alive--;
      const at = idle.indexOf(worker);
      if (at >= 0) idle.splice(at, 1);
      if (alive > 0) return;
      for (const p of queue.splice(0)) p.reject(new InternalError(`every ${name} worker has exited`));
    });
    all.push(worker);
    idle.push(worker);
  }
  return {
    submit: (job) =>
      new Promise<R>((resolve, reject) => {
        queue.push({ job, resolve, reject });
        dispatch();
      }),
    close: async () => void (await Promise.all(all.map((w) => w.terminate()))),
  };
}
