// Scenario files: what users write (…Input) and the normalised model the simulator runs on.
// Durations and sizes in inputs use the kernel's units ("50ms", "1KiB", numbers = ms / bytes);
// the normalised model holds integers in µs and bytes.
import type { Expectation } from "./expectParser.ts";
import type { AllocateOptions, AllocateSpec } from "./allocate.ts";
import type { FaultModel } from "./faultTypes.ts";
import type { Dist } from "./distKinds.ts";
import type { BrokerConfig, ConsumerConfig } from "./defaults.ts";
import type { SubscriptionGroupModel } from "./subscriptionGroup.ts";
import type { TopicConfigModel } from "./topicConfigInput.ts";
import type { MessagePropertyModel } from "./messageProperties.ts";

/** RocketMQ version whose behaviour to follow: 4.7.1–4.8.0, 4.9.8, 5.2+ (where they differ). */
export type Profile = "4.7" | "4.9" | "5.x";
export type ConsumeFromWhere = "CONSUME_FROM_LAST_OFFSET" | "CONSUME_FROM_FIRST_OFFSET" | "CONSUME_FROM_TIMESTAMP";
export type QueueSelect = "roundRobin" | "random" | { weights: number[] };
/** The listener kind: MessageListenerConcurrently or MessageListenerOrderly (spec §7, §8). */
export type ConsumeMode = "CONCURRENTLY" | "ORDERLY";
/** DefaultMQPushConsumer#messageModel (spec §10.3, §12). */
export type MessageModel = "CLUSTERING" | "BROADCASTING";

export interface ScenarioInput {
  $schema?: string;
  name: string;
  description?: string;
  seed?: number;
  duration?: string | number;
  sampleEvery?: string | number;
  profile?: Profile;
  phase?: "random" | "aligned";
  brokers: BrokerInput[];
  network?: { latency?: unknown };
  topics: TopicInput[];
  groups: GroupInput[];
  faults?: unknown[];
  expect?: string[];
  /** Local time of day at virtual time 0, "HH:MM[:SS]" (default "00:00"): places deleteWhen's hours. */
  startTime?: string;
}

export interface BrokerInput {
  name: string;
  /** Commit-log tail counted as in memory (page cache). */
  hotBytes?: string | number;
  /** Largest message body the broker accepts (default 4 MiB, as RocketMQ; 1 B to 1 GiB). Every topic on
   * the broker must have a body size that cannot draw more (give an unbounded distribution a "max"). */
  maxMessageSize?: string | number;
  config?: Partial<BrokerConfig>;
  /** Commit-log files, retention in the RocketMQ way and the disk (rocketmq-broker.md §1.1, §2). */
  store?: StoreInput;
}

/** A broker's store settings, MessageStoreConfig's names; durations and sizes take units. */
export interface StoreInput {
  /** Commit-log file size (default 1GiB). */
  mappedFileSizeCommitLog?: string | number;
  /** A file is deleted once its last message is this old (default 72h). */
  fileReservedTime?: string | number;
  /** Local hours in which expired files are deleted, ";"-separated (default "04"). */
  deleteWhen?: string;
  /** Clean-up period (default 10s; the first runs 60 s after start). */
  cleanResourceInterval?: string | number;
  /** Files deleted per clean-up at most (default 10). */
  deleteFileBatchMax?: number;
  /** Disk capacity for the commit log (default: unlimited, no disk thresholds). */
  diskBytes?: string | number;
  /** Bytes used on that disk by other data (default 0). */
  diskUsedBytes?: string | number;
  /** Percent: above it expired files are deleted at any hour (default 75). */
  diskMaxUsedSpaceRatio?: number;
  /** Percent: above it files are deleted whatever their age (default 85). */
  diskSpaceCleanForciblyRatio?: number;
  /** Percent: above it the disk is full and producers are refused (default 90). */
  diskSpaceWarningLevelRatio?: number;
}

export interface TopicInput {
  name: string;
  brokers: string[];
  queuesPerBroker?: number;
  /** TopicConfig on every broker of the topic (default queuesPerBroker, queuesPerBroker, "rw"). */
  readQueueNums?: number;
  writeQueueNums?: number;
  perm?: "rw" | "r" | "w" | "none";
  retention?: string | number;
  produce?: ProduceInput;
}

export interface ProduceInput {
  /** Messages per second for the whole topic. */
  rate: number;
  arrival?: "poisson" | "uniform";
  bodyBytes?: unknown;
  /** Tag → weight. Absent: messages carry no tag. */
  tags?: Record<string, number>;
  /** User properties → distribution (src/scenario/messageProperties.ts), for SQL92 subscriptions. */
  properties?: Record<string, unknown>;
  queueSelect?: QueueSelect;
  /** Steps { at, rate }, or the shorthands { burst: { at, rate, for } } and { ramp: { from?, to, over, at? } }
   * (expanded into steps by src/scenario/rateChanges.ts). */
  rateChanges?: RateChangeInput[];
  /** Messages already in every queue when the run starts (a backlog), born evenly over the time the
   * producer would have needed for them at its initial rate (the hour before start if the rate is 0). */
  backlog?: number;
}

export type RateChangeInput =
  | { at: string | number; rate: number }
  | { burst: { at: string | number; rate: number; for: string | number } }
  | { ramp: { from?: number; to: number; over: string | number; at?: string | number } };

export interface ListenerInput {
  consumeTime?: unknown;
  /** Probability that one consume attempt of a message returns RECONSUME_LATER. */
  failureProbability?: number;
  /** Fraction of messages that fail on every attempt (identity kept across re-deliveries). */
  poisonFraction?: number;
  /** Fraction of messages whose first consume attempt never returns (a hung listener call). */
  hangFraction?: number;
  /** ORDERLY only: ConsumeOrderlyContext#autoCommit as the listener leaves it (default true). */
  autoCommit?: boolean;
  /** ORDERLY only: what a successful call returns, "SUCCESS" (default) or "COMMIT". */
  successResult?: "SUCCESS" | "COMMIT";
  /** ORDERLY only: what a failed call returns, "SUSPEND_CURRENT_QUEUE_A_MOMENT" (default) or "ROLLBACK". */
  failureResult?: "SUSPEND_CURRENT_QUEUE_A_MOMENT" | "ROLLBACK";
}

/** An orderly listener's results and its context's autoCommit (spec §8.4). */
export interface OrderlyResults {
  autoCommit: boolean;
  successResult: "SUCCESS" | "COMMIT";
  failureResult: "SUSPEND_CURRENT_QUEUE_A_MOMENT" | "ROLLBACK";
}

export interface GroupInput {
  name: string;
  instances?: number;
  /** Topic → subscription expression: "*" or "TagA || TagB". */
  subscribe: Record<string, string | { sql: string }>;
  consumeFromWhere?: ConsumeFromWhere;
  /** "CONCURRENTLY" (default) or "ORDERLY": which listener the application registers. */
  consumeMode?: ConsumeMode;
  /** "CLUSTERING" (default) or "BROADCASTING". */
  messageModel?: MessageModel;
  /** yyyyMMddHHmmss relative to the run start is unusual; give a duration before start instead. */
  consumeTimestampBefore?: string | number;
  config?: Partial<ConsumerConfig>;
  listener?: ListenerInput;
  /** Virtual time at which the instances start (default 0). */
  startAt?: string | number;
  /** Pinned client ids, one per instance (may repeat: a shared id is a classic misconfiguration). */
  clientIds?: string[];
  /** The brokers' SubscriptionGroupConfig for the group (src/scenario/subscriptionGroup.ts). */
  subscriptionGroup?: SubscriptionGroupModel;
  /** Allocation strategy: "AVG" (default), "AVG_BY_CIRCLE", { "strategy": "CONSISTENT_HASH", "virtualNodes": 3 }, … */
  allocate?: AllocateSpec;
}

// ---------------------------------------------------------------------------------------------
// Normalised model

export interface Model {
  name: string;
  description: string;
  seed: number;
  durationUs: number;
  sampleEveryUs: number;
  profile: Profile;
  /**
   * "random": every broker and client process started at an arbitrary instant, so each periodic task's
   * first run falls at a random point of its period (from the node's own stream); "aligned": all start
   * together at t = 0 (teaching scenarios whose timings are derived by hand). Absent: aligned.
   */
  phase?: "random" | "aligned";
  latency: Dist;
  brokers: BrokerModel[];
  topics: TopicModel[];
  groups: GroupModel[];
  faults: FaultModel[];
  expect: string[];
  /** `expect`, parsed. */
  expectations: Expectation[];
  /** The input, as validated, for reports. */
  input: ScenarioInput;
}

export interface BrokerModel {
  index: number;
  name: string;
  hotBytes: number;
  /** Bytes; every body of every topic on the broker is at most this (checked by normalizeScenario). */
  maxMessageSize: number;
  config: BrokerConfig;
  /** Delay of each level in µs, index 1-based (index 0 unused). */
  delayLevelsUs: number[];
  /** The message store: commit-log files, retention and disk (broker spec §1–§2). */
  store: StoreModel;
  /** The group's replicas (broker spec §4, §5); absent: one node, the master. */
  replication?: ReplicationModel;
}

/**
 * A broker group with replicas: node 0 is the master (brokerId 0) at the start, nodes 1… its slaves
 * (classic HA, §4) or the DLedger followers (§5). Every node has its own offsets, delay-offset table,
 * consumer registry and held pulls; they share one commit log, of which a slave holds the prefix
 * replicated so far.
 */
export interface ReplicationModel {
  mode: "classic" | "dledger";
  /** ASYNC_MASTER (default) or SYNC_MASTER (§4.2; with 5.x's inSyncReplicas 1 both answer at once). */
  brokerRole: "ASYNC_MASTER" | "SYNC_MASTER";
  /** Nodes besides the master. */
  replicas: number;
  /** Time from a master's append to the slave holding it (HA transfer + dispatch), per transfer. */
  lag: Dist;
  /**
   * 5.x slave-acting-master (RIP-32, broker spec §4.10: enableSlaveActingMaster with the name server's
   * supportActingMaster): while the master is gone the lowest live slave is presented as brokerId 0.
   */
  actingMaster: boolean;
}

/** One broker process: a member of a broker group. */
export interface NodeModel {
  /** Masters first, in broker order (node b is broker b's first master), then every group's replicas. */
  index: number;
  /** The master keeps the broker's name; replicas are "<broker>-s1", "<broker>-s2", … */
  name: string;
  broker: number;
  /** brokerId at the start: 0 master, ≥ 1 slave. */
  brokerId: number;
}

/** Every broker node of a model, masters first (so a model without replicas has node b = broker b). */
export function nodesOf(model: Pick<Model, "brokers">): NodeModel[] {
  const nodes: NodeModel[] = model.brokers.map((b) => ({ index: b.index, name: b.name, broker: b.index, brokerId: 0 }));
  for (const b of model.brokers) {
    for (let r = 1; r <= (b.replication?.replicas ?? 0); r++) nodes.push({ index: nodes.length, name: `${b.name}-s${r}`, broker: b.index, brokerId: r });
  }
  return nodes;
}

/** A broker's store settings, normalised (broker spec §1.1, §2; defaults in STORE_DEFAULTS). */
export interface StoreModel {
  /** mappedFileSizeCommitLog, bytes (1 GiB). */
  mappedFileSizeCommitLog: number;
  /** fileReservedTime, µs (72 h). */
  fileReservedTimeUs: number;
  /** deleteWhen as local hours ("04" → [4]). */
  deleteWhenHours: number[];
  /** Local time of day at virtual time 0, µs after midnight (the scenario's startTime). */
  startTimeUs: number;
  /** cleanResourceInterval, µs (10 s); the first clean-up runs 60 s after start. */
  cleanResourceIntervalUs: number;
  /** deleteFileBatchMax: files deleted per clean-up at most (10). */
  deleteFileBatchMax: number;
  /** Disk capacity for the commit log, bytes; Infinity = no disk model. */
  diskBytes: number;
  /** Bytes already used on that disk by other data. */
  diskOtherBytes: number;
  /** diskMaxUsedSpaceRatio (0.75), diskSpaceCleanForciblyRatio (0.85), diskSpaceWarningLevelRatio (0.90). */
  diskMaxUsedSpaceRatio: number;
  diskSpaceCleanForciblyRatio: number;
  diskSpaceWarningLevelRatio: number;
  /** How far back the store remembers where each append began (the longest brokerCrash `lose` aimed at
   * it; 0 = none): what a tail loss needs to roll the commit log back exactly. */
  tailHistoryUs: number;
}

export interface TopicModel {
  index: number;
  name: string;
  brokers: number[];
  queuesPerBroker: number;
  retentionUs: number;
  produce: ProduceModel | null;
  /** Tag names; a message's tag is an index into this list, −1 for no tag. */
  tags: string[];
  /** readQueueNums / writeQueueNums / perm on every broker of the topic; absent: queuesPerBroker, "rw". */
  config?: TopicConfigModel;
}

export interface ProduceModel {
  rate: number;
  arrival: "poisson" | "uniform";
  bodyBytes: Dist;
  tagWeights: number[];
  queueSelect: "roundRobin" | "random" | { weights: number[] };
  rateChanges: { atUs: number; rate: number }[];
  backlog: number;
  /** DefaultMQProducer#setSendLatencyFaultEnable (broker spec §7.3): avoid a broker a send failed on. */
  sendLatencyFaultEnable?: boolean;
  /** Properties every message carries (values derived per message, never stored); absent: none. */
  properties?: MessagePropertyModel[];
}

export interface SubscriptionModel {
  topic: number;
  expression: string;
  /** null = "*" (every message); else the set of tag indexes accepted. */
  tagSet: Set<number> | null;
  /** With a tag set: SubscriptionData#codeSet, the tags' String.hashCode the broker matches (src/scenario/subscriptionFilter.ts). */
  codeSet?: Set<number>;
  /** A SQL92 subscription's expression (then tagSet is null); the broker compiles and evaluates it. */
  sql?: string;
}

export interface GroupModel {
  index: number;
  name: string;
  instances: number;
  subscriptions: SubscriptionModel[];
  consumeFromWhere: ConsumeFromWhere;
  consumeMode: ConsumeMode;
  messageModel: MessageModel;
  consumeTimestampBeforeUs: number;
  config: ConsumerConfig;
  consumeTime: Dist;
  failureProbability: number;
  poisonFraction: number;
  hangFraction: number;
  orderlyResults: OrderlyResults;
  startAtUs: number;
  allocate: AllocateOptions;
  /** Instance slots the group may ever use (≥ instances; scale faults need more). */
  instancesMax: number;
  /** Client id of each instance slot. */
  clientIds: string[];
  /** The brokers' SubscriptionGroupConfig settings for the group; absent: RocketMQ's defaults. */
  subscriptionGroup?: SubscriptionGroupModel;
}
