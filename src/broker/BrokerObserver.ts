// What a broker tells whoever keeps the run's books (the metrics layer): the fate-relevant moments of
// messages. Observers only record; nothing they do may change what the broker does.

export interface BrokerObserver {
  /** A producer's message was stored at `offset` of a scenario topic's queue. */
  messageStored(mq: number, offset: number, tag: number): void;
  /** Retention or a truncation moved the queue's minOffset from `from` to `to`: those messages are gone. */
  messagesDeleted(mq: number, from: number, to: number): void;
  /** CONSUMER_SEND_MSG_BACK was accepted for a message of `group` (it goes to a retry or the DLQ). */
  sentBack(group: number, originKey: number): void;
  /** A sent-back message entered the retry chain of `group`. */
  retrying(group: number, originKey: number): void;
  /** A sent-back message went to %DLQ%<group>. */
  deadLettered(group: number, originKey: number): void;
  /** A sent-back message was discarded (retryQueueNums 0): it will never be consumed. */
  discarded(group: number, originKey: number): void;
  /** A crash lost the commit-log tail: messages [from, to) of `mq` are gone; `from` on is reused, as generation `gen`. */
  messagesTruncated(mq: number, from: number, to: number, gen: number): void;
  /** The clean-up deleted `files` commit-log files (reason: CleanReason); messagesDeleted follows per queue. */
  commitLogDeleted(broker: number, files: number, reason: number, nowUs: number): void;
  /** A node stored a committed offset of (group, mq) — any node, slaves included (optional: books that track replays). */
  offsetCommitted?(group: number, mq: number, offset: number): void;
  /**
   * A delay level delivered, into retry queue `mq` at `offset`, a message some node of the group had
   * already delivered (a new master or a restarted one replaying since its delay-offset file, broker spec §6.4).
   */
  retryReplayed?(mq: number, offset: number, group: number, originKey: number): void;
}
