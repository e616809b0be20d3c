// Faults are data: each entry of a scenario's `faults` list, normalised. The plan
// (src/faults/plan.ts) schedules them; the model components expose the knobs they turn.
import type { Dist } from "./distKinds.ts";
import type { SubscriptionGroupUpdate } from "./subscriptionGroup.ts";

export type CrashMode = "connectionClosed" | "vanished";

interface Base {
  /** Position in the scenario's faults list. */
  index: number;
  /** Human-readable one-liner for charts and the summary. */
  label: string;
  atUs: number;
}

export type FaultModel =
  | (Base & { kind: "consumerStart" | "consumerStop" | "resume"; consumers: number[] })
  | (Base & { kind: "consumerCrash"; consumers: number[]; mode: CrashMode; restartAfterUs: number | null; /** the host's disk is gone with it: a BROADCASTING instance's local offset file is lost */ loseLocalOffsets: boolean })
  | (Base & { kind: "pause"; consumers: number[]; forUs: number | null })
  | (Base & { kind: "scale"; group: number; instances: number })
  | (Base & { kind: "duplicateClientId"; consumer: number; sameAs: number })
  | (Base & { kind: "brokerCrash"; /** the group */ broker: number; /** the node (NodeModel index) */ node: number; restartAfterUs: number | null; /** commit-log tail lost, µs back from the crash */ loseUs: number | null })
  | (Base & { kind: "brokerReadOnly"; broker: number; forUs: number | null })
  | (Base & { kind: "roleSwap" | "failover" | "leaderChange"; broker: number; restartAfterUs: number | null })
  | (Base & { kind: "sendBackFailure"; broker: number; forUs: number | null; probability: number; mode: "error" | "timeout" })
  | (Base & { kind: "lostWakeup"; broker: number; /** one queue, or null: every queue of the broker */ queue: QueueRef | null; forUs: number | null; probability: number })
  | (Base & { kind: "replicationStall"; broker: number; /** the slave node whose copy stops; −1: every replica */ node: number; forUs: number | null })
  | (Base & { kind: "offsetQueryError"; broker: number; forUs: number | null; code: "SYSTEM_BUSY" | "SYSTEM_ERROR"; probability: number })
  | (Base & { kind: "latency"; clients: number[]; brokers: number[]; forUs: number | null; extraUs: number; latency: Dist | null })
  | (Base & { kind: "loss"; clients: number[]; brokers: number[]; forUs: number | null; probability: number })
  | (Base & { kind: "partition"; clients: number[]; brokers: number[]; forUs: number | null })
  | (Base & { kind: "offsetIllegal"; queue: QueueRef; groups: number[]; nextBeginOffset: number | "min" | "max" })
  | (Base & { kind: "truncate"; queue: QueueRef; offset: number | "max" })
  | (Base & { kind: "hangMessage"; queue: QueueRef; durationUs: number | null })
  | (Base & { kind: "consumeTime"; group: number; forUs: number | null; consumeTime: Dist })
  | (Base & { kind: "failureProbability"; group: number; forUs: number | null; probability: number })
  | (Base & { kind: "resetOffset"; group: number; topic: number; /** see src/scenario/faultResetOffset.ts */ to: "latest" | "earliest" | { timeUs: number } | { offset: number }; force: boolean })
  | (Base & { kind: "updateTopic"; topic: number; broker: number; /** null: unchanged */ readQueueNums: number | null; writeQueueNums: number | null; /** PermName bits, null: unchanged */ perm: number | null })
  | (Base & { kind: "brokerPermission"; broker: number; /** PermName bits */ perm: number; forUs: number | null })
  | (Base & { kind: "updateSubscriptionGroup"; group: number; /** −1: every broker */ broker: number; update: SubscriptionGroupUpdate; forUs: number | null });

/** A queue named as `Topic@broker#queueId`, resolved to model indexes. */
export interface QueueRef {
  topic: number;
  broker: number;
  queueId: number;
}

export const FAULT_KINDS = [
  "consumerStart", "consumerStop", "consumerCrash", "scale", "pause", "resume", "duplicateClientId",
  "brokerCrash", "brokerReadOnly", "roleSwap", "failover", "leaderChange", "replicationStall", "lostWakeup", "sendBackFailure",
  "offsetQueryError", "latency", "loss", "partition", "offsetIllegal", "truncate",
  "hangMessage", "consumeTime", "failureProbability", "updateTopic", "resetOffset", "brokerPermission", "updateSubscriptionGroup",
] as const;
