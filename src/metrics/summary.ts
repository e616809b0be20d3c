// The run summary: stable key names (they are the CI expectation grammar's vocabulary), nothing that
// depends on the wall clock, numbers rounded to fixed precision so output is byte-stable.
import { FLOW_KIND } from "../client/trace.ts";
import type { Cluster } from "../model/Cluster.ts";
import type { FaultRecord } from "../model/records.ts";
import type { Histogram } from "../sim/Histogram.ts";
import type { FateAccount, GroupAccount } from "./accounting.ts";
import { heapEstimateMiB } from "./heapEstimate.ts";
import { brokerNodeRows, replicatedNodes, type BrokerNodeRow } from "./brokerNodes.ts";
import type { Recorder } from "./Recorder.ts";
import type { ReplayCounts } from "./ReplayBooks.ts";
import type { Sampler } from "./Sampler.ts";
import type { ExpectResult } from "../scenario/expect.ts";
import { queueRows, type QueueRow } from "./summaryQueues.ts";
import type { PullCodeName } from "../client/pullCodes.ts";

export type { OrderlyQueue, QueueLockState, QueueRow } from "./summaryQueues.ts";
export type { BrokerNodeRow } from "./brokerNodes.ts";
export type { ReplayCounts } from "./ReplayBooks.ts";

export interface LatencySummary {
  count: number;
  meanMs: number;
  p50Ms: number;
  p90Ms: number;
  p99Ms: number;
  maxMs: number;
}

export interface Summary {
  scenario: string;
  seed: number;
  profile: string;
  complete: boolean;
  /** Empty when complete; else why it stopped: "interrupted", "maxEvents", "pendingEvents", "maxMemory"… */
  stopReason: string;
  /** Only when not complete: a sentence naming the limit met and the virtual time reached. */
  stopDetail?: string;
  /** Virtual time reached, ms (the scenario's duration when complete). */
  simulatedMs: number;
  events: number;
  traceHash: string;
  traceRecords: number;
  /**
   * Every group's message accounts summed, plus send-backs (events, not messages). A BROADCASTING group
   * counts each message once per instance slot: its instances each consume every message (so its
   * `produced` is messages × instance slots, and one consumption per instance is no duplicate).
   */
  messages: FateAccount & { sentBack: number };
  /**
   * Only when the model has replicas: `messages.duplicates` by cause, summed over groups (each group's
   * are its `replays`; ReplayBooks.ts defines the causes). rollback + reset + rebalance + retryReplay =
   * messages.duplicates.
   */
  replays?: ReplayCounts;
  /** Per group: its account, messageModel and consumeMode; a BROADCASTING group's `instances` accounts too
   * (with replicas, its `replays`); its pull answers by response code (`pulls.byCode`, every name of
   * PULL_CODE_NAMES; "TIMEOUT": RPC time-outs, "NOT_SENT": pulls that failed before they were sent). */
  groups: (GroupAccount & { pulls?: { byCode: Record<PullCodeName, number> } })[];
  lag: { committed: { final: number; max: number }; unpulled: { final: number; max: number } };
  /**
   * Cached messages. `heapEstimateMiB` is the largest consumer instance's estimated cache heap at its
   * peak sample: its cached messages × HEAP_BYTES_PER_MESSAGE (RocketMQ's objects around each message,
   * heapEstimate.ts) + their body bytes, in MiB. The byte figures count bodies only.
   */
  cache: { countPerQueueMax: number; bytesPerQueueMax: number; countPerConsumerMax: number; bytesPerConsumerMax: number; heapEstimateMiB: number };
  flowControl: { count: number; size: number; span: number; paused: number; total: number };
  pulls: { found: number; noNewMsg: number; noMatchedMsg: number; offsetIllegal: number; exception: number; total: number };
  /** Brokers' stores: commit-log files deleted by retention, producer sends refused (down, read-only or
   * disk full: each went to another broker or failed) and sends that found no broker at all. */
  store: { commitLogFilesDeleted: number; writesRefused: number; produceFailed: number };
  /** Only when the model has replicas: every node of a group with replicas, in node order (BrokerNodeRow). */
  brokerNodes?: BrokerNodeRow[];
  throughput: { consumedPerSec: { mean: number; max: number }; producedPerSec: { mean: number; max: number } };
  latency: { consumeWait: LatencySummary; consume: LatencySummary; endToEnd: LatencySummary };
  rebalances: number;
  rebalanceChanges: number;
  /** Moves of a queue to another owner (owner intervals after each queue's first). */
  ownershipChanges: number;
  /** Σ over groups × ordinary queues of the seconds with no owner. */
  orphanQueueSeconds: number;
  /** ORDERLY groups (spec §8), all queues: SUSPEND_CURRENT_QUEUE_A_MOMENT results, and the longest any
   * head message stayed blocked (perQueue[].orderly has them per queue). Zero without orderly groups. */
  orderly: { suspends: number; longestHeadBlockMs: number };
  faults: FaultRecord[];
  /** Per group × subscribed queue (retry queues included): see QueueRow. */
  perQueue: QueueRow[];
  perConsumer: {
    clientId: string;
    group: string;
    queues: number;
    cached: number;
    cachedBytes: number;
    /** At the end: cached × HEAP_BYTES_PER_MESSAGE + cachedBytes, in MiB (heapEstimate.ts). */
    heapEstimateMiB: number;
    queueFlowControlTimes: number;
    queueMaxSpanFlowControlTimes: number;
    consumeThreads: number;
    hungWorkers: number;
    rebalances: number;
  }[];
  /**
   * Queues held at the end, per instance slot ("G1/0": group and 0-based instance, as fault targets
   * name it), with the client id it ran under (two instances may share one).
   */
  assignment: Record<string, { clientId: string; queues: string[] }>;
  /** Each `expect` entry's verdict, with its clauses as data (threshold, actual, when, where): src/scenario/expectDetail.ts. */
  expectations: ExpectResult[];
}

const r3 = (v: number) => Math.round(v * 1000) / 1000;

function latency(h: Histogram): LatencySummary {
  if (h.count === 0) return { count: 0, meanMs: 0, p50Ms: 0, p90Ms: 0, p99Ms: 0, maxMs: 0 };
  return {
    count: h.count,
    meanMs: r3(h.mean / 1000),
    p50Ms: r3(h.quantile(0.5) / 1000),
    p90Ms: r3(h.quantile(0.9) / 1000),
    p99Ms: r3(h.quantile(0.99) / 1000),
    maxMs: r3(h.max / 1000),
  };
}

export function buildSummary(cl: Cluster, rec: Recorder, sampler: Sampler, accounts: GroupAccount[], complete: boolean, stopReason: string, faults: FaultRecord[] = [], stopDetail = ""): Summary {
  const stats = cl.clientStats;
  const routes = cl.routes;
  const final = sampler.gauges();
  const sum = (k: keyof FateAccount) => accounts.reduce((a, g) => a + g[k], 0);
  const nowUs = cl.sched.nowUs;
  const simSec = nowUs / 1e6;
  const consumedOk = rec.consumeOkTotal;
  const fc = stats.flowControl;
  const seriesMax = (col: number[]) => col.reduce((a, v) => (v > a ? v : a), 0);
  const perQueue = queueRows(cl, rec);
  const orderlyRows = perQueue.flatMap((q) => (q.orderly === null ? [] : [q.orderly]));
  const assignment: Summary["assignment"] = {};
  const perConsumer: Summary["perConsumer"] = cl.consumers.map((c) => {
    const pqs = c.rebalance.processQueues();
    assignment[`${c.groupModel.name}/${c.instance}`] = { clientId: c.clientId, queues: pqs.map(([mq]) => routes.label(mq)) };
    const cached = pqs.reduce((a, [, pq]) => a + pq.msgCount, 0);
    const cachedBytes = pqs.reduce((a, [, pq]) => a + pq.msgSize, 0);
    return {
      clientId: c.clientId,
      group: c.groupModel.name,
      queues: pqs.length,
      cached,
      cachedBytes,
      heapEstimateMiB: heapEstimateMiB(cached, cachedBytes),
      queueFlowControlTimes: c.queueFlowControlTimes,
      queueMaxSpanFlowControlTimes: c.queueMaxSpanFlowControlTimes,
      consumeThreads: c.consumeService.threads,
      hungWorkers: c.consumeService.hungWorkers,
      rebalances: c.rebalance.runs,
    };
  });
  const cols = sampler.series.columns;
  // Sections a model without replicas leaves out, so its summary keeps the shape stored baselines have.
  const replicated = replicatedNodes(cl).length > 0;
  // Each group's pull answers by response code (src/client/pullCodes.ts) follow its account.
  const groups = accounts.map((a, g) => ({ ...a, ...(replicated ? { replays: rec.replays.countsOf(g) } : {}), pulls: { byCode: stats.pullCodes.byCode(g) } }));
  return {
    scenario: cl.model.name,
    seed: cl.model.seed,
    profile: cl.model.profile,
    complete,
    stopReason,
    // Absent from a complete run's summary, so stored baselines keep their shape.
    ...(complete ? {} : { stopDetail }),
    simulatedMs: Math.round(nowUs / 1000),
    events: cl.sched.eventsRun,
    traceHash: cl.trace.hash(),
    traceRecords: cl.trace.count,
    messages: {
      produced: sum("produced"), filtered: sum("filtered"), consumed: sum("consumed"), duplicates: sum("duplicates"),
      sentBack: rec.sentBackTotal, dlq: sum("dlq"), lost: sum("lost"), dropped: sum("dropped"), skippedAtStart: sum("skippedAtStart"), inFlight: sum("inFlight"),
      cached: sum("cached"), retrying: sum("retrying"), unpulled: sum("unpulled"),
    },
    ...(replicated ? { replays: sumReplays(groups.map((g) => g.replays!)) } : {}),
    groups,
    lag: {
      committed: { final: final.lagCommitted, max: Math.max(final.lagCommitted, sampler.max.lagCommitted) },
      unpulled: { final: final.lagUnpulled, max: Math.max(final.lagUnpulled, sampler.max.lagUnpulled) },
    },
    cache: {
      countPerQueueMax: Math.max(stats.pqCountMax, sampler.max.cachedPerQueueMax),
      bytesPerQueueMax: Math.max(stats.pqBytesMax, sampler.max.cachedBytesPerQueueMax),
      countPerConsumerMax: sampler.max.cachedPerConsumerMax,
      bytesPerConsumerMax: sampler.max.cachedBytesPerConsumerMax,
      heapEstimateMiB: r3(sampler.heapBytesPerConsumerMax / 2 ** 20),
    },
    flowControl: {
      count: fc[FLOW_KIND.count]!, size: fc[FLOW_KIND.size]!, span: fc[FLOW_KIND.span]!, paused: fc[FLOW_KIND.paused]!,
      total: fc[0]! + fc[1]! + fc[2]! + fc[3]!,
    },
    pulls: { ...stats.pulls, total: stats.pullsTotal },
    store: {
      commitLogFilesDeleted: cl.brokers.reduce((a, b) => a + b.store.filesDeleted, 0),
      writesRefused: cl.brokers.reduce((a, b) => a + b.writesRefused, 0),
      produceFailed: cl.producers.produceFailed,
    },
    ...(replicated ? { brokerNodes: brokerNodeRows(cl) } : {}),
    throughput: {
      consumedPerSec: { mean: r3(simSec > 0 ? consumedOk / simSec : 0), max: seriesMax(cols.consumedPerSec) },
      producedPerSec: { mean: r3(simSec > 0 ? rec.producedTotal / simSec : 0), max: seriesMax(cols.producedPerSec) },
    },
    latency: { consumeWait: latency(stats.consumeWait), consume: latency(stats.consumeTime), endToEnd: latency(rec.endToEnd) },
    rebalances: cl.consumers.reduce((a, c) => a + c.rebalance.runs, 0) + cl.retiredRebalanceRuns,
    rebalanceChanges: cl.consumers.reduce((a, c) => a + c.rebalance.changes, 0) + cl.retiredRebalanceChanges,
    ownershipChanges: rec.ownership.changes(),
    orphanQueueSeconds: r3(perQueue.filter((q) => !q.topic.startsWith("%")).reduce((a, q) => a + q.orphanSeconds, 0)),
    orderly: {
      suspends: orderlyRows.reduce((a, o) => a + o.suspends, 0),
      longestHeadBlockMs: orderlyRows.reduce((a, o) => Math.max(a, o.longestHeadBlockMs), 0),
    },
    faults,
    perQueue,
    perConsumer,
    assignment,
    expectations: [],
  };
}

function sumReplays(all: readonly ReplayCounts[]): ReplayCounts {
  const out: ReplayCounts = { rollback: 0, reset: 0, rebalance: 0, retryReplay: 0 };
  for (const r of all) for (const k of Object.keys(out) as (keyof ReplayCounts)[]) out[k] += r[k];
  return out;
}

const ZERO_LATENCY: LatencySummary = { count: 0, meanMs: 0, p50Ms: 0, p90Ms: 0, p99Ms: 0, maxMs: 0 };

/**
 * A summary with every scalar present and zero: the shape expectations are validated against (so it has
 * `replays`, which a run's summary has only with replicas).
 */
export function emptySummary(): Summary {
  return {
    scenario: "", seed: 0, profile: "", complete: true, stopReason: "", simulatedMs: 0, events: 0, traceHash: "", traceRecords: 0,
    messages: {
      produced: 0, filtered: 0, consumed: 0, duplicates: 0, sentBack: 0, dlq: 0, lost: 0, dropped: 0, skippedAtStart: 0, inFlight: 0, cached: 0, retrying: 0, unpulled: 0,
    },
    replays: { rollback: 0, reset: 0, rebalance: 0, retryReplay: 0 },
    groups: [],
    lag: { committed: { final: 0, max: 0 }, unpulled: { final: 0, max: 0 } },
    cache: { countPerQueueMax: 0, bytesPerQueueMax: 0, countPerConsumerMax: 0, bytesPerConsumerMax: 0, heapEstimateMiB: 0 },
    flowControl: { count: 0, size: 0, span: 0, paused: 0, total: 0 },
    pulls: { found: 0, noNewMsg: 0, noMatchedMsg: 0, offsetIllegal: 0, exception: 0, total: 0 },
    store: { commitLogFilesDeleted: 0, writesRefused: 0, produceFailed: 0 },
    throughput: { consumedPerSec: { mean: 0, max: 0 }, producedPerSec: { mean: 0, max: 0 } },
    latency: { consumeWait: ZERO_LATENCY, consume: ZERO_LATENCY, endToEnd: ZERO_LATENCY },
    rebalances: 0, rebalanceChanges: 0, ownershipChanges: 0, orphanQueueSeconds: 0, orderly: { suspends: 0, longestHeadBlockMs: 0 }, faults: [], perQueue: [], perConsumer: [], assignment: {}, expectations: [],
  };
}
