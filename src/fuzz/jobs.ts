// The work a fuzz worker does, as plain data in and out (structured clone crosses threads): one run, or
// the shrinking of one failure. The same function runs inline in tests and in worker threads.
import { fuzzRun, judge, type Failure, type FuzzConfig, type RunVerdict } from "./runner.ts";
import { shrink, type ShrinkResult } from "./shrink.ts";

export type FuzzJob =
  | { type: "run"; base: Record<string, unknown>; runSeed: number; config: FuzzConfig }
  | { type: "shrink"; scenario: Record<string, unknown>; failure: Failure; config: FuzzConfig; runsMax: number };

export type FuzzReply = { type: "run"; verdict: RunVerdict } | { type: "shrink"; result: ShrinkResult };

export function handleJob(job: FuzzJob): FuzzReply {
  if (job.type === "run") return { type: "run", verdict: fuzzRun(job.base, job.runSeed, job.config) };
  const probe = (s: Record<string, unknown>) => judge(s, job.config.checkEveryUs).failure;
  return { type: "shrink", result: shrink(job.scenario, job.failure, probe, job.runsMax) };
}
