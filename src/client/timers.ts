// The timer codes of a consumer instance (NodeContext#timer's `code`; the argument is in brackets).
export const enum ClientTimer {
  /** DefaultMQPushConsumer#start at the group's start time. */
  START = 1,
  /** PullMessageService takes a request put off by executePullRequestLater [pull request id]. */
  PULL_DISPATCH = 2,
  /** The OFFSET_ILLEGAL fix task (10 s later in 4.9, at once in 5.x) [pull request id]. */
  OFFSET_ILLEGAL_FIX = 3,
  /** RebalanceService's wait is over. */
  REBALANCE = 4,
  /** persistAllConsumerOffset. */
  PERSIST_ALL = 5,
  /** sendHeartbeatToAllBroker. */
  HEARTBEAT = 6,
  /** cleanExpiredMsg. */
  CLEAN_EXPIRED = 7,
  /** A listener call returns [worker]. */
  CONSUME_DONE = 8,
  /** The 5 s local retry of messages whose send-back failed [ticket]. */
  LOCAL_RETRY = 9,
}
