// explain(scenario, options) → Explanation: re-runs the scenario with `simulate`, streaming the trace
// records of capture.ts for the queues in question into a Deriver (stream.ts), and derives from those
// records alone why each queue was not progressing, when, with which figures. The stream never touches
// the trace hash, so the run explained is exactly the run `rmqsim run` reports — and `rmqsim run` explains
// its own run through the same explainAlongside, for report.html's "Why" section and why.json.
import { simulate } from "../run/simulate.ts";
import { normalizeScenario } from "../scenario/normalize.ts";
import type { Routes } from "../protocol/routes.ts";
import type { Model } from "../scenario/types.ts";
import type { Cluster } from "../model/Cluster.ts";
import type { TraceFilter } from "../sim/Trace.ts";
import { THIN_US } from "./capture.ts";
import type { Derived } from "./derive.ts";
import { ExplainStream } from "./stream.ts";
import { queueKey, type PullLog, type RawInterval } from "./intervals.ts";
import { describe, type Progress } from "./sentences.ts";
import type { ExplainedInterval, ExplainOptions, Explanation, QueueExplanation } from "./types.ts";

/** How many queues are explained without --queue. */
export const TOP_DEFAULT = 5;

/** A request the scenario cannot answer (an unknown queue or group): the CLI maps it to exit 2. */
export class ExplainInputError extends Error {
  constructor(
    /** The option at fault: "--queue" or "--group". */
    readonly option: string,
    reason: string,
  ) {
    super(reason);
    this.name = "ExplainInputError";
  }
}

export function explain(scenario: unknown, options: ExplainOptions = {}): Explanation {
  const base = isModel(scenario) ? scenario : normalizeScenario(scenario);
  const model: Model = { ...base, seed: options.seed ?? base.seed, durationUs: options.durationUs ?? base.durationUs };
  const along = explainAlongside(options);
  const result = simulate(model, { captureTrace: (cl) => along.captureTrace(cl) });
  return along.finish(result).explanation;
}

/** What a run explained alongside gives: `rmqsim explain`'s answer, and every examined queue for the report. */
export interface ExplainedRun {
  /** The answer `rmqsim explain` prints (`--json`): the top queues, or the one asked for. */
  explanation: Explanation;
  /** Every queue examined, in MessageQueue order per group, before ranking (the report's per-queue reasons). */
  queues: QueueExplanation[];
}

/** A run's facts the account needs; a RunResult has them. */
export interface RunFacts {
  summary: { simulatedMs: number };
  traceHash: string;
}

/**
 * The one code path of `rmqsim explain` and the report: hand `captureTrace` to `simulate` (it selects the
 * queues from the cluster's model and installs an ExplainStream; `keepAll` also captures every record,
 * for --trace), then `finish` the run. Throws ExplainInputError (from captureTrace, before anything
 * runs) for an unknown --queue or --group.
 */
export function explainAlongside(options: ExplainOptions = {}): { captureTrace: (cl: Cluster, keepAll?: boolean) => TraceFilter; finish: (run: RunFacts) => ExplainedRun } {
  let started: { model: Model; routes: Routes; groups: number[]; stream: ExplainStream } | null = null;
  return {
    captureTrace(cl, keepAll = false) {
      const groups = selectGroups(cl.model, options.group);
      const mqs = selectQueues(cl.model, cl.routes, groups, options.queue);
      const stream = new ExplainStream(cl.model, cl.routes, mqs);
      started = { model: cl.model, routes: cl.routes, groups, stream };
      return stream.filter(cl, keepAll);
    },
    finish(run) {
      if (started === null) throw new Error("explainAlongside: finish before captureTrace (pass captureTrace to simulate)");
      const { model, routes, groups, stream } = started;
      const durationUs = Math.min(model.durationUs, run.summary.simulatedMs * 1000);
      const queues = accountQueues(stream.finish(durationUs), model, routes, groups, options);
      // Ranked by time not progressing; ties in MessageQueue order (the order of derived.keys), which sort keeps.
      const ranked = options.queue !== undefined ? queues : rankQueues(queues, options.top ?? TOP_DEFAULT);
      const explanation: Explanation = {
        scenario: model.name,
        seed: model.seed,
        profile: model.profile,
        traceHash: run.traceHash,
        durationUs,
        queuesExamined: queues.length,
        queues: ranked,
        truncated: false,
        recordsUsed: stream.recordsUsed,
      };
      return { explanation, queues };
    },
  };
}

/** The `top` queues by time not progressing; ties keep the given (MessageQueue) order. */
export function rankQueues(queues: readonly QueueExplanation[], top: number): QueueExplanation[] {
  return [...queues].sort((a, b) => b.notProgressingUs - a.notProgressingUs).slice(0, top);
}

/** Each examined queue of the selected groups with its intervals (kept when they overlap --at/--window), a sentence each. */
function accountQueues(derived: Derived, model: Model, routes: Routes, groups: readonly number[], options: ExplainOptions): QueueExplanation[] {
  const wanted = new Set(groups);
  const windowStart = options.atUs ?? 0;
  const windowEnd = options.windowUs !== undefined ? windowStart + options.windowUs : options.atUs !== undefined ? windowStart : Infinity;
  const byKey = new Map<string, RawInterval[]>();
  for (const i of derived.intervals) {
    if (!wanted.has(i.group) || i.endUs < windowStart || i.startUs > windowEnd) continue;
    const k = queueKey(i.group, i.mq);
    let list = byKey.get(k);
    if (list === undefined) byKey.set(k, (list = []));
    list.push(i);
  }
  const queues: QueueExplanation[] = [];
  for (const k of derived.keys) {
    const [g, mq] = k.split(":").map(Number) as [number, number];
    if (!wanted.has(g)) continue;
    const raw = (byKey.get(k) ?? []).sort((a, b) => a.startUs - b.startUs || a.reason.localeCompare(b.reason));
    const pulls = derived.pulls.get(k)!;
    // An answer within the first thinning bucket is to a pull sent before the interval began.
    const intervals = raw.map((i) => finishInterval(i, progressIn(pulls, Math.min(i.startUs + THIN_US, i.endUs), i.endUs), model));
    queues.push({ queue: routes.label(mq), group: model.groups[g]!.name, notProgressingUs: unionUs(raw), intervals });
  }
  return queues;
}

function finishInterval(i: RawInterval, p: Progress, model: Model): ExplainedInterval {
  const { sentence, settings } = describe(i, p, model);
  return {
    startUs: i.startUs,
    endUs: i.endUs,
    ongoing: i.ongoing,
    reason: i.reason,
    progress: p.pulled === 0 ? "stopped" : "slow",
    sentence,
    figures: { ...i.figures, pulled: p.pulled, pulls: p.pulls },
    settings,
  };
}

/** Messages FOUND pulls brought in during [startUs, endUs). */
function progressIn(log: PullLog, startUs: number, endUs: number): Progress {
  let lo = 0;
  let hi = log.tUs.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (log.tUs[mid]! < startUs) lo = mid + 1;
    else hi = mid;
  }
  let pulled = 0;
  let pulls = 0;
  for (let j = lo; j < log.tUs.length && log.tUs[j]! < endUs; j++) {
    pulled += log.msgs[j]!;
    pulls++;
  }
  return { pulled, pulls };
}

/** Total time covered by the intervals, overlaps counted once. */
function unionUs(intervals: readonly RawInterval[]): number {
  const sorted = [...intervals].sort((a, b) => a.startUs - b.startUs);
  let total = 0;
  let curStart = -1;
  let curEnd = -1;
  for (const i of sorted) {
    if (i.startUs > curEnd) {
      total += curEnd - curStart;
      curStart = i.startUs;
      curEnd = i.endUs;
    } else curEnd = Math.max(curEnd, i.endUs);
  }
  return total + (curEnd - curStart);
}

function selectGroups(model: Model, name: string | undefined): number[] {
  if (name === undefined) return model.groups.map((g) => g.index);
  const g = model.groups.find((x) => x.name === name);
  if (g === undefined) throw new ExplainInputError("--group", `no group "${name}" in the scenario; it has ${model.groups.map((x) => x.name).join(", ")}`);
  return [g.index];
}

/** The scenario queues in question: the one named, or every queue of a topic some selected group subscribes. */
function selectQueues(model: Model, routes: Routes, groups: readonly number[], label: string | undefined): number[] {
  const topics = new Set(groups.flatMap((g) => model.groups[g]!.subscriptions.map((s) => s.topic)));
  // The subscribed topics' queues, then each selected group's %RETRY% queues (labelled as routes do).
  const retryOf = new Set(groups);
  const ordinary = routes.queues.filter((q) => routes.topics[q.topicIndex]!.modelTopic >= 0 && topics.has(routes.topics[q.topicIndex]!.modelTopic)).map((q) => q.index);
  const retry = routes.queues.filter((q) => retryOf.has(routes.topics[q.topicIndex]!.retryOf)).map((q) => q.index);
  if (label === undefined) return [...ordinary, ...retry];
  const mq = [...ordinary, ...retry].find((q) => routes.label(q) === label);
  if (mq === undefined) {
    const known = ordinary.slice(0, 4).map((q) => routes.label(q)).join(", ");
    throw new ExplainInputError("--queue", `no queue "${label}" subscribed by ${groups.length === 1 ? model.groups[groups[0]!]!.name : "the scenario's groups"}; queues are named Topic@broker#id, e.g. ${known}`);
  }
  return [mq];
}

function isModel(x: unknown): x is Model {
  return typeof x === "object" && x !== null && "durationUs" in x && "latency" in x;
}
