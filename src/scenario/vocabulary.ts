// What a scenario may name of a run's results: the time-series columns and their friendly aliases,
// and the summary figures. The model produces these figures and the scenario language only names
// them, so the names live here, below both: expect.ts parses and evaluates expectations over plain
// data without knowing the model that recorded it.

/** Time-series columns, one value per sample. Rates are per second over the sample interval. */
export const SERIES_COLUMNS = [
  "tSec", // sample time, seconds of virtual time
  "producedPerSec", // messages appended by producers
  "consumedPerSec", // successful listener results (duplicates included)
  "lagCommitted", // Σ broker max offset − committed offset, over groups × subscribed queues (a BROADCASTING group: its slowest running instance's local offset)
  "lagUnpulled", // Σ broker max offset − next pull offset (a BROADCASTING group: its slowest running instance's)
  "cached", // Σ messages in ProcessQueues
  "cachedBytes", // Σ body bytes in ProcessQueues
  "cachedPerQueueMax", // largest single ProcessQueue, messages
  "cachedBytesPerQueueMax", // largest single ProcessQueue, bytes
  "cachedPerConsumerMax", // largest consumer instance total, messages
  "cachedBytesPerConsumerMax", // largest consumer instance total, bytes (its heap share)
  "poolQueued", // Σ consume tasks waiting for a worker
  "poolBusy", // Σ busy consume workers
  "flowControlCountPerSec",
  "flowControlSizePerSec",
  "flowControlSpanPerSec",
  "flowControlPausedPerSec",
  "pullsPerSec",
  "endToEndP50Ms", // of messages consumed in this interval
  "endToEndP99Ms",
  "queuesOwned", // Σ ProcessQueues held (all topics, retry included)
] as const;
export type SeriesColumn = (typeof SERIES_COLUMNS)[number];

/** Friendly series names → time-series columns. The raw column names are accepted too. */
export const SERIES_ALIASES: Readonly<Record<string, SeriesColumn>> = {
  "throughput.consumed": "consumedPerSec",
  "throughput.produced": "producedPerSec",
  "lag.committed": "lagCommitted",
  "lag.unpulled": "lagUnpulled",
  "cache.count": "cached",
  "cache.bytes": "cachedBytes",
  "cache.countPerQueueMax": "cachedPerQueueMax",
  "cache.bytesPerQueueMax": "cachedBytesPerQueueMax",
  "cache.countPerConsumerMax": "cachedPerConsumerMax",
  "cache.bytesPerConsumerMax": "cachedBytesPerConsumerMax",
  "pool.queued": "poolQueued",
  "pool.busy": "poolBusy",
  "flowControl.count": "flowControlCountPerSec",
  "flowControl.size": "flowControlSizePerSec",
  "flowControl.span": "flowControlSpanPerSec",
  "flowControl.paused": "flowControlPausedPerSec",
  "pulls": "pullsPerSec",
  "latency.endToEnd.p50": "endToEndP50Ms",
  "latency.endToEnd.p99": "endToEndP99Ms",
  "queues.owned": "queuesOwned",
};

/** What an expectation reads of a run's time series: one value per sample in each column. The
 * Sampler's TimeSeries is one. */
export interface SeriesData {
  columns: Readonly<Record<SeriesColumn, readonly number[]>>;
}

/**
 * Every numeric (or boolean) figure of the run summary as a dotted path: the names an expectation may
 * compare. In the order the summary holds them, which is the order error messages list them in.
 * src/model/summary.test.ts checks that the summary has exactly these, so the list cannot drift.
 */
export const SUMMARY_FIGURES: readonly string[] = [
  "seed", "complete", "simulatedMs", "events", "traceRecords",
  "messages.produced", "messages.filtered", "messages.consumed", "messages.duplicates",
  "messages.sentBack", "messages.dlq", "messages.lost", "messages.dropped", "messages.skippedAtStart", "messages.inFlight", "messages.cached",
  "messages.retrying", "messages.unpulled",
  "replays.rollback", "replays.reset", "replays.rebalance", "replays.retryReplay",
  "lag.committed.final", "lag.committed.max", "lag.unpulled.final", "lag.unpulled.max",
  "cache.countPerQueueMax", "cache.bytesPerQueueMax", "cache.countPerConsumerMax",
  "cache.bytesPerConsumerMax", "cache.heapEstimateMiB",
  "flowControl.count", "flowControl.size", "flowControl.span", "flowControl.paused",
  "flowControl.total",
  "pulls.found", "pulls.noNewMsg", "pulls.noMatchedMsg", "pulls.offsetIllegal", "pulls.exception",
  "pulls.total",
  "store.commitLogFilesDeleted", "store.writesRefused", "store.produceFailed",
  "throughput.consumedPerSec.mean", "throughput.consumedPerSec.max",
  "throughput.producedPerSec.mean", "throughput.producedPerSec.max",
  "latency.consumeWait.count", "latency.consumeWait.meanMs", "latency.consumeWait.p50Ms",
  "latency.consumeWait.p90Ms", "latency.consumeWait.p99Ms", "latency.consumeWait.maxMs",
  "latency.consume.count", "latency.consume.meanMs", "latency.consume.p50Ms",
  "latency.consume.p90Ms", "latency.consume.p99Ms", "latency.consume.maxMs",
  "latency.endToEnd.count", "latency.endToEnd.meanMs", "latency.endToEnd.p50Ms",
  "latency.endToEnd.p90Ms", "latency.endToEnd.p99Ms", "latency.endToEnd.maxMs",
  "rebalances", "rebalanceChanges", "ownershipChanges", "orphanQueueSeconds",
  "orderly.suspends", "orderly.longestHeadBlockMs",
];

/**
 * Why a duplicate was consumed again (summary `replays`, and each group's `groups[].replays`; their sum
 * is messages.duplicates): a node's stale offset table (`rollback`), a start or an OFFSET_ILLEGAL fix
 * that put the queue back without the stored offset (`reset`), the consumed-but-uncommitted tail after a
 * restart or reassignment (`rebalance`), or a retry a delay level delivered twice (`retryReplay`). The
 * summary has them only for a model with replicas; the names are accepted for any scenario (they read
 * as NaN, so fail, without replicas).
 */
export const REPLAY_CAUSES = ["rollback", "reset", "rebalance", "retryReplay"] as const;
export type ReplayCause = (typeof REPLAY_CAUSES)[number];

/** The figures of each summary `groups[]` entry (and of each BROADCASTING instance in its `instances`). */
export const GROUP_FIGURES: readonly string[] = [
  "produced", "filtered", "consumed", "duplicates", "dlq", "lost", "dropped", "skippedAtStart", "inFlight", "cached", "retrying", "unpulled",
];

/**
 * Per-group names a scenario may compare (the expectation language resolves a `groups` entry by its
 * group name; the summary keeps groups in an array): `groups.<group>.<figure>`,
 * `groups.<group>.replays.<cause>` (REPLAY_CAUSES; in the summary only with replicas, so pass
 * `replays: false` for a model without them) and for a BROADCASTING group
 * `groups.<group>.instances.<instance>.<figure>` (instance number: client ids are no names).
 */
export function groupFigureNames(groups: readonly { name: string; messageModel: string; instancesMax: number }[], replays = true): string[] {
  const out: string[] = [];
  for (const g of groups) {
    for (const f of GROUP_FIGURES) out.push(`groups.${g.name}.${f}`);
    if (replays) for (const c of REPLAY_CAUSES) out.push(`groups.${g.name}.replays.${c}`);
    if (g.messageModel !== "BROADCASTING") continue;
    for (let i = 0; i < g.instancesMax; i++) for (const f of GROUP_FIGURES) out.push(`groups.${g.name}.instances.${i}.${f}`);
  }
  return out;
}
