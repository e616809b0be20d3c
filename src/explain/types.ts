// What the explainer answers: for a queue of a group, the intervals in which it was not progressing
// (or progressing slowly), each with the reason the trace shows, the figures behind it and the settings
// that would change it. One result object feeds both the human text and `--json`.

/** Why a queue was not progressing; the codes are stable (tools match on them). */
export const REASON = {
  /** Pulls deferred: cached message count > pullThresholdForQueue (§2 step 6). */
  flowControlCount: "flowControl.count",
  /** Pulls deferred: cached MiB > pullThresholdSizeForQueue (§2 step 7). */
  flowControlSize: "flowControl.size",
  /** Pulls deferred: lastKey − firstKey > consumeConcurrentlyMaxSpan (§2 step 8). */
  flowControlSpan: "flowControl.span",
  /** The queue belongs to no live instance of the group. */
  noOwner: "noOwner",
  /** Pulls to the queue's broker time out, are refused or answered with an error. */
  pullFailures: "pullFailures",
  /** OFFSET_ILLEGAL: the ProcessQueue is dropped; the offset is fixed and the queue recreated later. */
  offsetIllegal: "offsetIllegal",
  /** The instance is paused (pullMessage re-schedules every PULL_TIME_DELAY_MILLS_WHEN_SUSPEND). */
  paused: "paused",
  /** Orderly: the ProcessQueue is not locked at its broker (§2 step 9). */
  notLocked: "notLocked",
  /** Every consume thread (consumeThreadMin, §6) busy: messages wait in the executor queue. */
  poolSaturated: "poolSaturated",
  /** Pulls held at the broker while messages arrived behind them (short polling, a lost wake-up; broker §9). */
  longPollHold: "longPollHold",
  /** Send-backs failed: the messages are consumed again locally every 5 s and pin the committed offset (§7.3). */
  sendBackFailed: "sendBackFailed",
  /** No pull for PULL_MAX_IDLE_TIME (120 s): the ProcessQueue is dropped and recreated at a rebalance. */
  pullExpired: "pullExpired",
} as const;

export type ReasonCode = (typeof REASON)[keyof typeof REASON];

/** A setting that would change an interval, and how. */
export interface SettingAdvice {
  /** The scenario field (a group's config key, or a top-level field such as "profile"). */
  setting: string;
  /** "raise", "lower", "set" … with a sentence on what it changes and what it does not. */
  direction: "raise" | "lower" | "set";
  effect: string;
}

export interface ExplainedInterval {
  startUs: number;
  /** Exclusive end; the run's end when the condition lasted to it. */
  endUs: number;
  /** True when the condition still held at the end of the run. */
  ongoing: boolean;
  reason: ReasonCode;
  /** "stopped": nothing pulled in the interval; "slow": messages still came in pulses. */
  progress: "stopped" | "slow";
  /** One sentence with the numbers. */
  sentence: string;
  /** The figures the sentence was built from, by name (counts, offsets, thresholds, times in µs). */
  figures: Record<string, number | string>;
  settings: SettingAdvice[];
}

export interface QueueExplanation {
  /** "Topic@broker#id". */
  queue: string;
  group: string;
  /** Total time covered by the intervals (overlaps counted once), µs. */
  notProgressingUs: number;
  intervals: ExplainedInterval[];
}

export interface Explanation {
  scenario: string;
  seed: number;
  profile: string;
  /** The run's trace hash: the same as `rmqsim run` reports for this scenario, seed and duration. */
  traceHash: string;
  /** Simulated time explained, µs. */
  durationUs: number;
  /** Queues examined (before ranking and the top-N cut). */
  queuesExamined: number;
  /** The explained queues: the one asked for, or the top N by time not progressing. */
  queues: QueueExplanation[];
  /** Set when the trace capture hit its cap: later records are missing and the account may be short. */
  truncated: boolean;
  /** The trace records the account was derived from. */
  recordsUsed: number;
}

export interface ExplainOptions {
  seed?: number;
  durationUs?: number;
  /** "Topic@broker#id": explain this queue only. */
  queue?: string;
  /** Group name: explain this group only. */
  group?: string;
  /** Keep intervals overlapping [atUs, atUs + windowUs]. */
  atUs?: number;
  windowUs?: number;
  /** Without a queue: how many queues to explain, ranked by time not progressing (default 5). */
  top?: number;
}
