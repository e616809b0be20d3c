// The shapes `rmqsim check` passes between its parts (checkCommand runs the jobs; checkBaseline,
// checkOutput and checkReportDir read the results): here, so that those parts import this file and not
// the command, and no two of them import each other.
import type { Summary } from "../metrics/summary.ts";
import type { BaselineComparison } from "../checks/baselineCompare.ts";

export interface CheckOptions {
  targets: string[];
  /** Seeds per scenario: the scenario's seed, then seed + 1, … */
  seeds: number;
  junit?: string;
  baseline?: string;
  updateBaseline: boolean;
  /** --force: --update-baseline writes even when a run fails its expectations. */
  force?: boolean;
  /** --tolerance: both directions (checkBaseline.ts). */
  tolerance: string;
  /** --tolerance-worse / --tolerance-better: one direction each; default --tolerance. */
  toleranceWorse?: string;
  toleranceBetter?: string;
  /** Per-key tolerances, "path=5%", both directions. */
  toleranceFor: string[];
  /** --strict-baseline: an improvement beyond --tolerance-better fails too. */
  strictBaseline?: boolean;
  /** --report-dir: the failing runs' reports go to <dir>/<scenario>.seed-<seed>/ (checkReportDir.ts). */
  reportDir?: string;
  /** --report-dir-all: every run's report, passing ones too. */
  reportDirAll?: boolean;
  determinism: boolean;
  workers?: number;
  json: boolean;
  /** --check-every: invariant and conservation checks during each run (default: every 10 s of virtual
   * time, or every duration / MAX_DEFAULT_CHECKS if that is longer). */
  checkEvery?: string;
  /** --max-memory / --max-events: a run past them stops early and fails the check (exit 3). */
  maxMemory?: string;
  maxEvents?: string;
}

/** One run to do: a scenario file under one seed (twice with --determinism). */
export interface Job {
  file: string;
  name: string;
  raw: Record<string, unknown>;
  seed: number;
  /** Checks during the run every this many µs of virtual time; 0 = only at the end. */
  checkEveryUs: number;
  /** Why a resource guard refuses to run it at all (a backlog beyond --max-memory), or null. */
  refused: string | null;
}

/** What one run gave: its summary, or the error that ended it. */
export interface RunOutcome {
  summary: Summary | null;
  /** The report's files, when the run was asked for a report. */
  files?: Map<string, Uint8Array | string>;
  error: string | null;
  wallMs: number;
  /** A resource guard stopped or refused it (exit 3 unless something else failed). */
  limited: boolean;
}

export interface JobResult {
  job: Job;
  summary: Summary | null;
  /** The run's own failure (conservation, invariant, internal, or a resource guard's stop). */
  error: string | null;
  limited: boolean;
  wallMs: number;
  /** With --determinism: the second run's trace hash and whether the summaries were identical. */
  second?: { traceHash: string; sameSummary: boolean };
  /** With --baseline: what the comparison (or the update) found; `ok` false fails the run. */
  baseline?: { ok: boolean; text: string; comparison?: BaselineComparison };
  /** With --report-dir: where this run's report was written, as the user named it. */
  reportDir?: string;
}
