// Messages between the CLI thread and the simulation worker; plain data (structured clone).
import { InputError } from "../scenario/errors.ts";
import { SweepInputError } from "../sweep/errors.ts";
import type { Progress, RunOutput, RunRequest } from "./computeRun.ts";
import { SchedulerOverflowError } from "../sim/Scheduler.ts";
import { InternalError, ResourceLimitError } from "./errors.ts";

export interface WorkerData {
  request: RunRequest;
  /** Int32Array[1] over this buffer: 0 = keep going, 1 = stop at the next slice. */
  stop: SharedArrayBuffer;
}

export type SerialError =
  | { kind: "input"; path: string; reason: string }
  | { kind: "limit"; message: string }
  | { kind: "internal"; message: string; stack?: string };

export type WorkerMessage =
  | { type: "progress"; progress: Progress }
  | { type: "done"; output: RunOutput }
  | { type: "error"; error: SerialError };

export function serialiseError(error: unknown): SerialError {
  // A SweepInputError raised in a worker (sweepMetrics' warm-up check) crosses as an internal error
  // (exit 70), as it did before it became an InputError. Exit 2 is likely what it deserves, but that
  // change of behaviour belongs in a commit of its own.
  if (error instanceof InputError && !(error instanceof SweepInputError)) {
    return { kind: "input", path: error.path, reason: error.reason };
  }
  // The scheduler's slot table overflowed inside one event: the run cannot continue or report.
  if (error instanceof SchedulerOverflowError || error instanceof ResourceLimitError) return { kind: "limit", message: error.message };
  if (error instanceof Error) return { kind: "internal", message: error.message, ...(error.stack ? { stack: error.stack } : {}) };
  return { kind: "internal", message: String(error) };
}

export function reviveError(error: SerialError): Error {
  if (error.kind === "input") return new InputError(error.path, error.reason);
  if (error.kind === "limit") return new ResourceLimitError(error.message);
  return new InternalError(error.message, error.stack);
}
