// Counters and histograms the model updates as it runs. Plain mutable numbers: the hot path touches
// them once or twice per message. Sampling into time series and the final summary read them.
import { Histogram } from "../sim/Histogram.ts";

/** Per consumer group, the fate of every original message of its subscribed topics. */
export class GroupFates {
  /** Messages appended to a subscribed topic. */
  produced = 0;
  /** Of those, messages the group's tag filter excludes (never delivered). */
  filtered = 0;
  /** Messages consumed successfully at least once. */
  consumed = 0;
  /** Successful consumptions beyond a message's first. */
  duplicates = 0;
  /** Messages ending in %DLQ%<group> (never consumed successfully). */
  dlq = 0;
  /** Messages deleted by retention before any successful consumption (and not in the retry chain). */
  lost = 0;
  /** Successful consumptions, duplicates included. */
  consumeOk = 0;
}

export class Metrics {
  /** Flow-control events by kind: count, size, span, paused (FLOW_KIND order). */
  readonly flowControl = new Float64Array(4);
  readonly pulls = { found: 0, noNewMsg: 0, noMatchedMsg: 0, offsetIllegal: 0, exception: 0 };
  sentBack = 0;
  producedTotal = 0;
  /** Sends that found no writable broker for the topic (the producer gives up). */
  produceFailed = 0;
  /** Exact maxima of one ProcessQueue's cache, taken right after each put. */
  pqCountMax = 0;
  pqBytesMax = 0;
  readonly fates: GroupFates[];
  /** Whole-run latency histograms, µs. */
  readonly consumeWait = new Histogram();
  readonly consumeTime = new Histogram();
  /** End-to-end latency of samples already taken; add `endToEndInterval` for the whole run. */
  readonly endToEnd = new Histogram();
  /** End-to-end latency of the current sample interval (merged into endToEnd at each sample). */
  readonly endToEndInterval = new Histogram();

  constructor(groups: number) {
    this.fates = Array.from({ length: groups }, () => new GroupFates());
  }

  get pullsTotal(): number {
    const p = this.pulls;
    return p.found + p.noNewMsg + p.noMatchedMsg + p.offsetIllegal + p.exception;
  }
}
