// Where fuzz jobs run: a pool of worker threads (production) or the calling thread (tests). Either way
// a job's reply is handleJob(job), so results do not depend on the executor nor on its size.
import { handleJob, type FuzzJob, type FuzzReply } from "../fuzz/jobs.ts";
import { threadQueue } from "./threadQueue.ts";
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

/** `size` worker threads; jobs queue until one is free. */
export function threadExecutor(size: number): FuzzExecutor {
  const threads = threadQueue<FuzzWorkerJob, FuzzReply, { id: number; reply?: FuzzReply; error?: SerialError }>(WORKER_URL, size, "fuzz", ({ reply, error }) =>
    reply !== undefined ? { ok: reply } : { error: reviveError(error ?? { kind: "internal", message: "the fuzz worker sent no reply" }) },
  );
  let nextId = 0;
  return {
    size,
    submit: (job) => threads.submit({ id: nextId++, job }),
    close: () => threads.close(),
  };
}
