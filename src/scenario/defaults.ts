// Every default of the model, in one place. Values and units follow the RocketMQ source as recorded in
// ../shared/spec/rocketmq-consumer.md (section numbers cited per block). Config keys keep RocketMQ's
// field names and RocketMQ's units (ms, minutes, MiB) so users can paste their client settings.
import type { StoreModel } from "./types.ts";

/** Push-consumer fields, spec §0.1 and ClientConfig §0.2. Units as in RocketMQ. */
export interface ConsumerConfig {
  consumeThreadMin: number; // threads; the only figure that sets concurrency (§6)
  consumeThreadMax: number; // threads; no effect with the unbounded task queue (§6)
  adjustThreadPoolNumsThreshold: number; // messages; read by a no-op (§12.4)
  consumeConcurrentlyMaxSpan: number; // queue-offset span (§2 step 8)
  pullThresholdForQueue: number; // messages cached per queue (§2 step 6)
  pullThresholdSizeForQueue: number; // MiB of bodies per queue (§2 step 7)
  pullThresholdForTopic: number; // messages per topic, −1 = off (§10.4)
  pullThresholdSizeForTopic: number; // MiB per topic, −1 = off (§10.4)
  pullInterval: number; // ms between a FOUND pull and the next (§4.3)
  consumeMessageBatchMaxSize: number; // messages per listener call (§7.1)
  pullBatchSize: number; // messages asked per pull (§2.2)
  pullBatchSizeInBytes: number; // bytes; sent, ignored by the broker (§0.1)
  postSubscriptionWhenPull: boolean;
  maxReconsumeTimes: number; // −1 ⇒ 16 for concurrent consumption (§9.1)
  suspendCurrentQueueTimeMillis: number; // ms, orderly only
  consumeTimeout: number; // MINUTES (§3.7)
  awaitTerminationMillisWhenShutdown: number; // ms
  pollNameServerInterval: number; // ms (§0.2)
  heartbeatBrokerInterval: number; // ms (§0.2)
  persistConsumerOffsetInterval: number; // ms (§0.2, §12.4)
  pullTimeDelayMillsWhenException: number; // ms, effective 1000 since 4.6.0 (§2.1)
  mqClientApiTimeout: number; // ms
}

export const CONSUMER_CONFIG_DEFAULTS: Readonly<ConsumerConfig> = Object.freeze({
  consumeThreadMin: 20,
  consumeThreadMax: 20,
  adjustThreadPoolNumsThreshold: 100_000,
  consumeConcurrentlyMaxSpan: 2000,
  pullThresholdForQueue: 1000,
  pullThresholdSizeForQueue: 100,
  pullThresholdForTopic: -1,
  pullThresholdSizeForTopic: -1,
  pullInterval: 0,
  consumeMessageBatchMaxSize: 1,
  pullBatchSize: 32,
  pullBatchSizeInBytes: 256 * 1024,
  postSubscriptionWhenPull: false,
  maxReconsumeTimes: -1,
  suspendCurrentQueueTimeMillis: 1000,
  consumeTimeout: 15,
  awaitTerminationMillisWhenShutdown: 0,
  pollNameServerInterval: 30_000,
  heartbeatBrokerInterval: 30_000,
  persistConsumerOffsetInterval: 5000,
  pullTimeDelayMillsWhenException: 1000,
  mqClientApiTimeout: 3000,
});

/**
 * Ranges from DefaultMQPushConsumerImpl#checkConfig (spec §15.5) where RocketMQ has one; the rest are
 * our own sanity limits, documented as such in the schema.
 */
export const CONSUMER_CONFIG_RANGES: Readonly<Record<keyof ConsumerConfig, readonly [number, number] | "boolean">> = {
  consumeThreadMin: [1, 1000],
  consumeThreadMax: [1, 1000],
  adjustThreadPoolNumsThreshold: [1, 100_000_000],
  consumeConcurrentlyMaxSpan: [1, 65535],
  pullThresholdForQueue: [1, 65535],
  pullThresholdSizeForQueue: [1, 1024],
  pullThresholdForTopic: [-1, 6_553_500],
  pullThresholdSizeForTopic: [-1, 102_400],
  // checkConfig allows [0, 65535] at start, but setPullInterval on a running consumer is unchecked;
  // the model accepts up to an hour so the pull-expiry rescue of a long interval can be shown.
  pullInterval: [0, 3_600_000],
  consumeMessageBatchMaxSize: [1, 1024],
  pullBatchSize: [1, 1024],
  pullBatchSizeInBytes: [1, 1024 * 1024 * 1024],
  postSubscriptionWhenPull: "boolean",
  maxReconsumeTimes: [-1, 16_384],
  suspendCurrentQueueTimeMillis: [10, 30_000],
  consumeTimeout: [1, 1440],
  awaitTerminationMillisWhenShutdown: [0, 3_600_000],
  pollNameServerInterval: [10, 3_600_000],
  heartbeatBrokerInterval: [10, 3_600_000],
  persistConsumerOffsetInterval: [10, 3_600_000],
  pullTimeDelayMillsWhenException: [1, 3_600_000],
  mqClientApiTimeout: [1, 3_600_000],
};

/** Client-side constants that RocketMQ exposes only as system properties (spec §0.3, §0.4). */
export const CLIENT_CONSTANTS = Object.freeze({
  PULL_TIME_DELAY_MILLS_WHEN_CACHE_FLOW_CONTROL: 50,
  PULL_TIME_DELAY_MILLS_WHEN_BROKER_FLOW_CONTROL: 20,
  PULL_TIME_DELAY_MILLS_WHEN_SUSPEND: 1000,
  BROKER_SUSPEND_MAX_TIME_MILLIS: 15_000,
  CONSUMER_TIMEOUT_MILLIS_WHEN_SUSPEND: 30_000,
  PULL_MAX_IDLE_TIME: 120_000,
  REBALANCE_WAIT_INTERVAL: 20_000,
  REBALANCE_MIN_INTERVAL: 1000,
  OFFSET_ILLEGAL_FIX_DELAY_49: 10_000,
  NEW_QUEUE_PULL_DELAY_5X: 500,
  LOCAL_CONSUME_RETRY_DELAY: 5000,
  CLEAN_EXPIRED_MAX_LOOP: 16,
  PERSIST_INITIAL_DELAY: 10_000,
  HEARTBEAT_INITIAL_DELAY: 1000,
  SEND_BACK_EXPIRED_DELAY_LEVEL: 3,
  // Orderly consumption (§0.4, §8, §10.5).
  /** ProcessQueue REBALANCE_LOCK_MAX_LIVE_TIME: a lock not refreshed for this long counts as expired. */
  REBALANCE_LOCK_MAX_LIVE_TIME: 30_000,
  /** REBALANCE_LOCK_INTERVAL: lockAll's period; its first run is LOCK_ALL_INITIAL_DELAY after start. */
  REBALANCE_LOCK_INTERVAL: 20_000,
  LOCK_ALL_INITIAL_DELAY: 1000,
  /** Time-out of LOCK_BATCH_MQ / UNLOCK_BATCH_MQ. */
  LOCK_RPC_TIMEOUT: 1000,
  /** ConsumeMessageOrderlyService MAX_TIME_CONSUME_CONTINUOUSLY. */
  MAX_TIME_CONSUME_CONTINUOUSLY: 60_000,
  /** RebalancePushImpl UNLOCK_DELAY_TIME_MILLS: 4.9's delayed unlock; 5.x's forced removal. */
  UNLOCK_DELAY_TIME_MILLS: 20_000,
  /** How long removal waits for a queue's consumeLock: 4.9 tryLock(1000), 5.x writeLock().tryLock(500). */
  CONSUME_LOCK_WAIT_49: 1000,
  CONSUME_LOCK_WAIT_5X: 500,
  /** rebalanceLater's delay after a new queue could not be locked (5.x). */
  REBALANCE_LATER_ON_LOCK_FAIL: 500,
  /** maxReconsumeTimes −1 for an orderly consumer: Integer.MAX_VALUE (§0.1). */
  ORDERLY_MAX_RECONSUME_TIMES: 2_147_483_647,
});

/** Options of the allocation strategies (spec §11) that a group's "allocate" setting may leave out. */
export const ALLOCATE_DEFAULTS = Object.freeze({
  /** CONSISTENT_HASH: virtual nodes per consumer, as RocketMQ's no-argument constructor. */
  virtualNodes: 10,
  /** MACHINE_ROOM_NEARBY: a name's room is the part before the first separator. */
  roomSeparator: "-",
});

/** Broker / store defaults, spec §0.5. */
export interface BrokerConfig {
  longPollingEnable: boolean;
  shortPollingTimeMills: number; // ms
  maxTransferBytesOnMessageInMemory: number; // bytes
  maxTransferCountOnMessageInMemory: number; // messages
  maxTransferBytesOnMessageInDisk: number; // bytes
  maxTransferCountOnMessageInDisk: number; // messages
  maxFilterMessageSize: number; // bytes of consume-queue units scanned
  retryQueueNums: number; // retry queues per group
  retryMaxTimes: number; // used when the request carries none
  messageDelayLevel: string; // "1s 5s 10s …" (18 levels)
  flushConsumerOffsetInterval: number; // ms
  channelExpiredTimeout: number; // ms
  /** RocketMQ 4.7.1–4.9.3: OFFSET_OVERFLOW_BADLY on a queue whose min is 0 answers next = 0 (broker spec §3.1 row 4). */
  overflowBadlyToZero: boolean;
  /** Pulls may be served by a slave: a master suggests one when the data left memory (broker spec §4.4);
   * a 5.x slave refuses every pull without it (§3.3). */
  slaveReadEnable: boolean;
  /** A slave corrects out-of-range offsets like a master (§3.1 corr, §3.4). */
  offsetCheckInSlave: boolean;
  /** SQL92 subscriptions are served (BrokerConfig.enablePropertyFilter); off, their pulls get SYSTEM_ERROR. */
  enablePropertyFilter: boolean;
}

export const BROKER_CONFIG_DEFAULTS: Readonly<BrokerConfig> = Object.freeze({
  longPollingEnable: true,
  shortPollingTimeMills: 1000,
  maxTransferBytesOnMessageInMemory: 262_144,
  maxTransferCountOnMessageInMemory: 32,
  maxTransferBytesOnMessageInDisk: 65_536,
  maxTransferCountOnMessageInDisk: 8,
  maxFilterMessageSize: 16_000,
  retryQueueNums: 1,
  retryMaxTimes: 16,
  messageDelayLevel: "1s 5s 10s 30s 1m 2m 3m 4m 5m 6m 7m 8m 9m 10m 20m 30m 1h 2h",
  flushConsumerOffsetInterval: 5000,
  channelExpiredTimeout: 120_000,
  overflowBadlyToZero: false,
  slaveReadEnable: false,
  offsetCheckInSlave: false,
  enablePropertyFilter: false,
});

export const BROKER_CONSTANTS = Object.freeze({
  /** PullRequestHoldService period with long polling on (spec §13.4). */
  HOLD_CHECK_PERIOD_MS: 5000,
  /** Consume-queue unit size, bytes (spec §0.5). */
  CQ_UNIT_SIZE: 20,
  /** ClientHousekeepingService scan period (§0.5, §13.8). */
  EXPIRY_SCAN_PERIOD_MS: 10_000,
  /** Cap on bytes in one getMessage result (5.x, spec §13.2). */
  MAX_PULL_MSG_SIZE: 128 * 1024 * 1024,
  /** Bytes a stored message takes besides its body and topic: RocketMQ's fixed header (91) plus a
   * typical properties block. Only used to place messages in the commit log for the "hot" test. */
  STORE_OVERHEAD_BYTES: 91 + 64,
});

/**
 * Accepted range of a broker's maxMessageSize, bytes. The upper end is our own limit, not RocketMQ's
 * (an int there): at most 1 GiB keeps every per-message size, stored in 32-bit columns with room for a
 * header or a +1 marker, far from overflowing (a 4 GiB body once stored as 0 bytes).
 */
export const MAX_MESSAGE_SIZE_RANGE: readonly [number, number] = [1, 1024 ** 3];

/** Scenario-level defaults. */
export const SCENARIO_DEFAULTS = Object.freeze({
  phase: "random" as "random" | "aligned",
  seed: 1,
  duration: "10m",
  sampleEvery: "1s",
  profile: "4.9" as const,
  /** 40 % of a 16 GiB broker's RAM: the commit-log tail counted as page cache (spec §0.5). */
  hotBytes: Math.floor(0.4 * 16 * 1024 ** 3),
  /** Largest message body a broker accepts, bytes: MessageStoreConfig#maxMessageSize and the producer's
   * DefaultMQProducer#maxMessageSize (checked by Validators#checkMessage) are both 1024 * 1024 * 4. */
  maxMessageSize: 4 * 1024 ** 2,
  networkLatency: { dist: "lognormal", median: "300us", p99: "2ms" } as const,
  queuesPerBroker: 8,
  instances: 1,
  consumeFromWhere: "CONSUME_FROM_LAST_OFFSET" as const,
  /** consumeTimestamp default: 30 minutes before the consumer starts (spec §0.1). */
  consumeTimestampBackMs: 30 * 60_000,
  consumeTime: { dist: "exponential", mean: "5ms" } as const,
  bodyBytes: "1KiB",
  arrival: "poisson" as const,
  queueSelect: "roundRobin" as const,
  /** Hard cap on events per run, so a runaway scenario reports instead of hanging. */
  maxEvents: 2_000_000_000,
});

/** A broker's store, RocketMQ's MessageStoreConfig defaults (broker spec §1.1, §2, §12). */
export const STORE_DEFAULTS: Readonly<Omit<StoreModel, "startTimeUs">> = Object.freeze({
  tailHistoryUs: 0,
  mappedFileSizeCommitLog: 1024 ** 3,
  fileReservedTimeUs: 72 * 3_600_000_000,
  deleteWhenHours: [4],
  cleanResourceIntervalUs: 10_000_000,
  deleteFileBatchMax: 10,
  diskBytes: Infinity,
  diskOtherBytes: 0,
  diskMaxUsedSpaceRatio: 0.75,
  diskSpaceCleanForciblyRatio: 0.85,
  diskSpaceWarningLevelRatio: 0.9,
});
/** The first clean-up runs this long after the store starts (addScheduleTask's initial delay, §2.1). */
export const CLEAN_FIRST_DELAY_US = 60_000_000;
