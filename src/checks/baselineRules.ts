// What each summary figure means to a baseline comparison (issue 17): which way is better, and which
// figures are end-of-run snapshots too noisy to compare as they are. Data, read by baselineCompare.ts;
// the README's baseline section lists the same tables.
//
// Paths are dotted key paths as in baseline.ts, matched from the start: a rule matches a figure when its
// segments match the figure's first segments; `*` matches any one segment, a leading `**` any number of
// leading segments (`**.lost` is messages.lost, groups.0.lost, groups.0.instances.1.lost). The first
// rule that matches wins, so the exceptions come before the general rules.

export type Direction = "higher" | "lower" | "neutral";

export interface DirectionRule {
  path: string;
  direction: Direction;
  why: string;
}

/**
 * Which way a figure is better. Lower is better for what hurts (lag, latency, memory, losses,
 * retries, refusals); higher for the consumption rate; neither for counts of what happened (messages
 * produced and consumed, pulls, rebalances, flow-control events — more or fewer is not in itself
 * better) and for inputs. Anything not listed is neutral.
 */
export const DIRECTION_RULES: readonly DirectionRule[] = [
  { path: "latency.*.count", direction: "neutral", why: "how many messages were timed, a count" },
  { path: "throughput.consumedPerSec", direction: "higher", why: "messages consumed per second" },
  { path: "throughput.producedPerSec", direction: "neutral", why: "the offered load, an input of the scenario" },
  { path: "lag", direction: "lower", why: "backlog" },
  { path: "latency", direction: "lower", why: "time a message waits or is processed" },
  { path: "cache", direction: "lower", why: "memory held by the consumers" },
  { path: "**.heapEstimateMiB", direction: "lower", why: "memory held by the consumers" },
  { path: "**.lost", direction: "lower", why: "messages lost" },
  { path: "**.dropped", direction: "lower", why: "messages dropped" },
  { path: "**.dlq", direction: "lower", why: "messages sent to the dead-letter queue" },
  { path: "**.duplicates", direction: "lower", why: "messages consumed twice" },
  { path: "**.replays", direction: "lower", why: "duplicates by cause" },
  { path: "messages.sentBack", direction: "lower", why: "consume failures sent back for retry" },
  { path: "store.writesRefused", direction: "lower", why: "producer sends a broker refused" },
  { path: "store.produceFailed", direction: "lower", why: "producer sends that found no broker" },
  { path: "pulls.exception", direction: "lower", why: "pulls that failed" },
  { path: "pulls.offsetIllegal", direction: "lower", why: "pulls from an offset the broker no longer has" },
  { path: "orphanQueueSeconds", direction: "lower", why: "time queues had no owner" },
  { path: "perQueue.*.orphanSeconds", direction: "lower", why: "time the queue had no owner" },
  { path: "**.longestHeadBlockMs", direction: "lower", why: "an orderly queue's longest blocked head" },
];

/**
 * End-of-run snapshots: the state at the run's last instant, which moves with every pull, consume
 * batch and offset commit, so a harmless change of timing moves it far beyond any tolerance. `skip`:
 * not compared; `scaleOf`: compared with an absolute tolerance — the worse-direction tolerance applied
 * to the baseline's value of that figure (the run's peak), so a final lag of 1 200 against 900 passes
 * when the peak was 40 000. A --tolerance-for naming the figure at least as precisely compares it
 * like any other.
 */
export const SNAPSHOT_RULES: readonly { path: string; why: string; scaleOf?: string }[] = [
  { path: "perQueue.*.cached", why: "a ProcessQueue's content at the last instant: it swings between 0 and pullThresholdForQueue + pullBatchSize with every pull and consume batch" },
  { path: "perQueue.*.nextOffset", why: "the next pull offset at the last instant: it jumps by pullBatchSize at each pull" },
  { path: "perQueue.*.committedOffset", why: "moves in steps at each offset persist (persistConsumerOffsetInterval, 5 s); lag and messages.consumed carry the progress" },
  { path: "perConsumer.*.cached", why: "an instance's cache at the last instant (as perQueue.*.cached)" },
  { path: "perConsumer.*.cachedBytes", why: "an instance's cached bytes at the last instant (as perQueue.*.cached)" },
  { path: "perConsumer.*.heapEstimateMiB", why: "an instance's estimated cache heap at the last instant (as perConsumer.*.cachedBytes); cache.heapEstimateMiB is the run's peak" },
  { path: "messages.inFlight", why: "messages inside a listener call at the last instant" },
  { path: "messages.cached", why: "messages in ProcessQueues at the last instant" },
  { path: "groups.*.inFlight", why: "as messages.inFlight, per group" },
  { path: "groups.*.cached", why: "as messages.cached, per group" },
  { path: "groups.*.instances.*.inFlight", why: "as messages.inFlight, per instance" },
  { path: "groups.*.instances.*.cached", why: "as messages.cached, per instance" },
  { path: "lag.committed.final", why: "the committed lag at the last instant moves with every commit", scaleOf: "lag.committed.max" },
  { path: "lag.unpulled.final", why: "the unpulled lag at the last instant moves with every pull", scaleOf: "lag.unpulled.max" },
  { path: "messages.unpulled", why: "the unpulled backlog at the last instant moves with every pull", scaleOf: "lag.unpulled.max" },
  { path: "groups.*.unpulled", why: "as messages.unpulled, per group", scaleOf: "lag.unpulled.max" },
  { path: "groups.*.instances.*.unpulled", why: "as messages.unpulled, per instance", scaleOf: "lag.unpulled.max" },
];

/** Whether a rule path matches a figure's path (see the head comment). */
export function rulePathMatches(rule: string, path: readonly string[]): boolean {
  const segments = rule.split(".");
  if (segments[0] === "**") {
    for (let start = 0; start <= path.length; start++) if (prefixMatches(segments.slice(1), path.slice(start))) return true;
    return false;
  }
  return prefixMatches(segments, path);
}

function prefixMatches(segments: readonly string[], path: readonly string[]): boolean {
  if (segments.length > path.length) return false;
  return segments.every((s, i) => s === "*" || s === path[i]);
}

export function directionOf(path: readonly string[]): DirectionRule | null {
  return DIRECTION_RULES.find((r) => rulePathMatches(r.path, path)) ?? null;
}

export function snapshotRuleOf(path: readonly string[]): (typeof SNAPSHOT_RULES)[number] | null {
  return SNAPSHOT_RULES.find((r) => rulePathMatches(r.path, path)) ?? null;
}
