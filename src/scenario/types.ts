// Scenario files: what users write (…Input) and the normalised model the simulator runs on.
// Durations and sizes in inputs use the kernel's units ("50ms", "1KiB", numbers = ms / bytes);
// the normalised model holds integers in µs and bytes.
import type { Expectation } from "./expectParser.ts";
import type { AllocateOptions, AllocateSpec } from "./allocate.ts";
import type { FaultModel } from "./faultTypes.ts";
import type { Dist } from "./distKinds.ts";
import type { BrokerConfig, ConsumerConfig } from "./defaults.ts";

export type Profile = "4.9" | "5.x";
export type ConsumeFromWhere = "CONSUME_FROM_LAST_OFFSET" | "CONSUME_FROM_FIRST_OFFSET" | "CONSUME_FROM_TIMESTAMP";
export type QueueSelect = "roundRobin" | "random" | { weights: number[] };

export interface ScenarioInput {
  $schema?: string;
  name: string;
  description?: string;
  seed?: number;
  duration?: string | number;
  sampleEvery?: string | number;
  profile?: Profile;
  brokers: BrokerInput[];
  network?: { latency?: unknown };
  topics: TopicInput[];
  groups: GroupInput[];
  faults?: unknown[];
  expect?: string[];
}

export interface BrokerInput {
  name: string;
  /** Commit-log tail counted as in memory (page cache). */
  hotBytes?: string | number;
  config?: Partial<BrokerConfig>;
}

export interface TopicInput {
  name: string;
  brokers: string[];
  queuesPerBroker?: number;
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
  queueSelect?: QueueSelect;
  rateChanges?: { at: string | number; rate: number }[];
  /** Messages already in every queue when the run starts (a backlog), born evenly over the time the
   * producer would have needed for them at its initial rate (the hour before start if the rate is 0). */
  backlog?: number;
}

export interface ListenerInput {
  consumeTime?: unknown;
  /** Probability that one consume attempt of a message returns RECONSUME_LATER. */
  failureProbability?: number;
  /** Fraction of messages that fail on every attempt (identity kept across re-deliveries). */
  poisonFraction?: number;
  /** Fraction of messages whose first consume attempt never returns (a hung listener call). */
  hangFraction?: number;
}

export interface GroupInput {
  name: string;
  instances?: number;
  /** Topic → subscription expression: "*" or "TagA || TagB". */
  subscribe: Record<string, string>;
  consumeFromWhere?: ConsumeFromWhere;
  /** yyyyMMddHHmmss relative to the run start is unusual; give a duration before start instead. */
  consumeTimestampBefore?: string | number;
  config?: Partial<ConsumerConfig>;
  listener?: ListenerInput;
  /** Virtual time at which the instances start (default 0). */
  startAt?: string | number;
  /** Pinned client ids, one per instance (may repeat: a shared id is a classic misconfiguration). */
  clientIds?: string[];
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
  config: BrokerConfig;
  /** Delay of each level in µs, index 1-based (index 0 unused). */
  delayLevelsUs: number[];
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
}

export interface ProduceModel {
  rate: number;
  arrival: "poisson" | "uniform";
  bodyBytes: Dist;
  tagWeights: number[];
  queueSelect: "roundRobin" | "random" | { weights: number[] };
  rateChanges: { atUs: number; rate: number }[];
  backlog: number;
}

export interface SubscriptionModel {
  topic: number;
  expression: string;
  /** null = "*" (every message); else the set of tag indexes accepted. */
  tagSet: Set<number> | null;
}

export interface GroupModel {
  index: number;
  name: string;
  instances: number;
  subscriptions: SubscriptionModel[];
  consumeFromWhere: ConsumeFromWhere;
  consumeTimestampBeforeUs: number;
  config: ConsumerConfig;
  consumeTime: Dist;
  failureProbability: number;
  poisonFraction: number;
  hangFraction: number;
  startAtUs: number;
  allocate: AllocateOptions;
  /** Instance slots the group may ever use (≥ instances; scale faults need more). */
  instancesMax: number;
  /** Client id of each instance slot. */
  clientIds: string[];
}
