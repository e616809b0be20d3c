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
  /** The 5 s local retry of messages whose send-back failed; orderly: submitConsumeRequestLater [ticket]. */
  LOCAL_RETRY = 9,
  /** Orderly: tryLockLaterAndReconsume's lock is due [ticket]. */
  TRY_LOCK_LATER = 10,
  /** Orderly, CLUSTERING: lockMQPeriodically → lockAll (1 s after start, then every 20 s). */
  LOCK_ALL = 11,
  /** Orderly, 4.9: the delayed unlock of a removed queue that still had cached messages [ticket]. */
  UNLOCK_DELAYED = 12,
  /** MQClientInstance#rebalanceLater(500) after a lock refused while adding a queue (5.x). */
  REBALANCE_LATER = 13,
  /** updateTopicRouteInfoFromNameServer (with replicas only: RouteView). */
  ROUTE_POLL = 14,
  /** The shutdown's await time ran out [1: the first time, 2: the second] (ConsumerShutdown). */
  SHUTDOWN = 15,
  /** MQClientInstance#resetOffset's 10 s sleep is over [ticket] (src/client/resetOffset.ts). */
  RESET_OFFSET_WAIT = 16,
}
