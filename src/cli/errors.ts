// The CLI's error vocabulary and its single mapping from errors to exit codes and stderr lines.
//
// Anything the user can fix (a file, a flag, a field) is a BadInputError or an InputError from the
// model's validators and exits 2 with one line naming where the problem is; a run a resource guard
// refuses or cannot continue (ResourceLimitError) exits 3; a report that cannot be written exits 74; everything else is a bug in rmqsim and exits 70 (EX_SOFTWARE from sysexits.h)
// with its stack, so it can be reported.
import { InputError } from "../scenario/errors.ts";
import { SchedulerOverflowError } from "../sim/Scheduler.ts";

export const EXIT = {
  ok: 0,
  /** The run finished but some `expect` entry of the scenario did not hold. */
  expectationsFailed: 1,
  /** Bad command line, unreadable or invalid scenario file. */
  badInput: 2,
  /** A resource guard stopped a run (--max-memory, --max-events, too many pending events): a partial
   * report with "complete": false was written — or the run was refused before it started. */
  resourceLimit: 3,
  /** The report could not be written (EX_IOERR from sysexits.h). */
  ioError: 74,
  /** An internal error: a bug in rmqsim. */
  internal: 70,
  /** Stopped by Ctrl-C (128 + SIGINT, the shell's convention). */
  interrupted: 130,
} as const;

/**
 * Bad input located by `where`: a file name, an option (`--seed`), or both joined with ": "
 * (`scenarios/a.json: groups.0.name`). `reason` says what is wrong and what would be accepted.
 */
export class BadInputError extends Error {
  constructor(
    readonly where: string,
    readonly reason: string,
  ) {
    super(where === "" ? reason : `${where}: ${reason}`);
    this.name = "BadInputError";
  }
}

/** The report could not be written (disk full, permissions...); any previous report is untouched. */
export class ReportWriteError extends Error {
  constructor(
    readonly dir: string,
    cause: unknown,
  ) {
    super(`could not write the report to ${dir}: ${cause instanceof Error ? cause.message : String(cause)}; any previous report there is untouched`, { cause });
    this.name = "ReportWriteError";
  }
}

/**
 * A run that a resource guard refuses before it starts (a backlog too large for --max-memory) or that
 * cannot go on and cannot report (one event scheduled more events than the scheduler can hold).
 */
export class ResourceLimitError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ResourceLimitError";
  }
}

/** An error raised in the simulation worker that was not the user's fault, carried across threads. */
export class InternalError extends Error {
  constructor(message: string, stack?: string) {
    super(message);
    this.name = "InternalError";
    if (stack !== undefined) this.stack = stack;
  }
}

/** Re-locates a validator's InputError inside `file`, so the line printed names both. */
export function inFile(file: string, error: unknown): unknown {
  if (error instanceof InputError) return new BadInputError(error.path === "" ? file : `${file}: ${error.path}`, error.reason);
  return error;
}

export function isBadInput(error: unknown): error is BadInputError | InputError {
  return error instanceof BadInputError || error instanceof InputError;
}

/** The one place an error becomes an exit code and a message on stderr. */
export function reportError(error: unknown, writeErr: (text: string) => void): number {
  if (isBadInput(error)) {
    writeErr(`rmqsim: ${error.message}\n`);
    return EXIT.badInput;
  }
  if (error instanceof ResourceLimitError || error instanceof SchedulerOverflowError) {
    writeErr(`rmqsim: ${error.message}\n`);
    return EXIT.resourceLimit;
  }
  if (error instanceof ReportWriteError) {
    writeErr(`rmqsim: ${error.message}\n`);
    return EXIT.ioError;
  }
  const message = error instanceof Error ? error.message : String(error);
  const stack = error instanceof Error && error.stack ? `${error.stack}\n` : "";
  writeErr(`rmqsim: internal error: ${message}\n${stack}This is a bug in rmqsim; please report it with the command line and scenario file.\n`);
  return EXIT.internal;
}
