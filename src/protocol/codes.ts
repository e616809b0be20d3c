// The remoting vocabulary broker and client share: request codes, response codes and the pull request's
// sysFlag bits, with RocketMQ's names and numbers (CM/protocol/RequestCode.java, ResponseCode.java,
// CM/sysflag/PullSysFlag.java; spec §2.2, §4.1).

/** RequestCode: what a request asks for. Only the codes the model exchanges are listed. */
export const enum RequestCode {
  SEND_MESSAGE = 10,
  PULL_MESSAGE = 11,
  QUERY_CONSUMER_OFFSET = 14,
  UPDATE_CONSUMER_OFFSET = 15,
  HEART_BEAT = 34,
  UNREGISTER_CLIENT = 35,
  CONSUMER_SEND_MSG_BACK = 36,
  GET_CONSUMER_LIST_BY_GROUP = 38,
  NOTIFY_CONSUMER_IDS_CHANGED = 40,
  LOCK_BATCH_MQ = 41,
  UNLOCK_BATCH_MQ = 42,
  /**
   * A slave's SlaveSynchronize#syncAll (broker spec §4.7): GET_ALL_CONSUMER_OFFSET (43), asked together
   * with GET_ALL_DELAY_OFFSET (45) in one round trip — the model needs both answers from the same moment.
   */
  GET_ALL_CONSUMER_OFFSET = 43,
  /** Broker2Client#resetOffset's push to each online client of the group (4.x path, src/broker/resetOffset.ts). */
  RESET_CONSUMER_CLIENT_OFFSET = 220,
  /**
   * Not a RocketMQ request: the network layer telling a broker that a client's TCP connection closed
   * (Netty's channelInactive, which ClientHousekeepingService handles like UNREGISTER_CLIENT, §13.8).
   */
  CHANNEL_CLOSED = -1,
}

/** ResponseCode: the outcome a response carries (spec §4.1, §13.3). */
export const enum ResponseCode {
  SUCCESS = 0,
  SYSTEM_ERROR = 1,
  SYSTEM_BUSY = 2,
  NO_PERMISSION = 16,
  TOPIC_NOT_EXIST = 17,
  PULL_NOT_FOUND = 19,
  PULL_RETRY_IMMEDIATELY = 20,
  PULL_OFFSET_MOVED = 21,
  QUERY_NOT_FOUND = 22,
  SUBSCRIPTION_PARSE_FAILED = 23,
  SUBSCRIPTION_NOT_EXIST = 24,
  SUBSCRIPTION_NOT_LATEST = 25,
  SUBSCRIPTION_GROUP_NOT_EXIST = 26,
  FILTER_DATA_NOT_EXIST = 27,
  FILTER_DATA_NOT_LATEST = 28,
  /** 29 since 5.3.2 (commit b5cf3ca90a, which also made PullMessageProcessor answer an illegal queueId with it). */
  INVALID_PARAMETER = 29,
  /** Broker2Client#resetOffset: the group has no online channel here. */
  CONSUMER_NOT_ONLINE = 206,
  FLOW_CONTROL = 215,
}

/** PullSysFlag bits of PULL_MESSAGE's header (spec §2.2). */
export const PullSysFlag = {
  FLAG_COMMIT_OFFSET: 0x1,
  FLAG_SUSPEND: 0x2,
  FLAG_SUBSCRIPTION: 0x4,
  FLAG_CLASS_FILTER: 0x8,
} as const;
