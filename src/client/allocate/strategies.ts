// The allocation strategies by RocketMQ name (AllocateMessageQueueStrategy#getName), spec §11, and
// the translation of a scenario's "allocate" setting into one of them.
import { InputError, describeValue } from "../../scenario/errors.ts";
import { allocateAveragely } from "./averagely.ts";
import { allocateAveragelyByCircle } from "./averagelyByCircle.ts";
import { allocateByConfig } from "./byConfig.ts";
import { allocateByMachineRoom } from "./byMachineRoom.ts";
import { AllocateError } from "./check.ts";
import { allocateConsistentHash } from "./consistentHash.ts";
import { allocateMachineRoomNearby } from "./machineRoomNearby.ts";

/**
 * The queues of mqAll that currentCid should own. Inputs arrive sorted (spec §10.3); a consumer not
 * in cidAll gets nothing; an empty currentCid, mqAll or cidAll throws AllocateError (except CONFIG).
 */
export type AllocateStrategy<T> = (currentCid: string, mqAll: readonly T[], cidAll: readonly string[]) => T[];

/** What a strategy may know of a queue: the fields of RocketMQ's MessageQueue. */
export interface MessageQueueName {
  topic: string;
  brokerName: string;
  queueId: number;
}

/**
 * A scenario's "allocate" setting: a strategy name, or an object naming one with its options.
 * - AVG, AVG_BY_CIRCLE: no options.
 * - CONSISTENT_HASH: `virtualNodes`, virtual nodes per consumer, integer ≥ 0, default 10 (RocketMQ's).
 * - CONFIG: `messageQueueList`, the queues every consumer gets (required).
 * - MACHINE_ROOM: `consumeridcs`, the rooms consumed from, matched against the part of a brokerName
 *   before "@" in "<room>@<broker>" (required).
 * - MACHINE_ROOM_NEARBY: `inner`, the strategy used within a room (required; any setting but another
 *   MACHINE_ROOM_NEARBY); `roomSeparator`, default "-": a broker's room is its brokerName up to the
 *   first separator, a consumer's room its client id up to the first separator (the resolver of
 *   RocketMQ's AllocateMachineRoomNearByTest; RocketMQ makes users write their own). The string
 *   "MACHINE_ROOM_NEARBY-<inner name>", RocketMQ's getName(), is accepted as a shorthand.
 */
export type AllocateSpec =
  | string
  | {
      strategy: string;
      virtualNodes?: number;
      messageQueueList?: readonly MessageQueueName[];
      consumeridcs?: readonly string[];
      inner?: AllocateSpec;
      roomSeparator?: string;
    };

export const ALLOCATE_STRATEGY_NAMES = ["AVG", "AVG_BY_CIRCLE", "CONSISTENT_HASH", "CONFIG", "MACHINE_ROOM", "MACHINE_ROOM_NEARBY"] as const;

const OPTIONS_BY_NAME: Record<(typeof ALLOCATE_STRATEGY_NAMES)[number], readonly string[]> = {
  AVG: [],
  AVG_BY_CIRCLE: [],
  CONSISTENT_HASH: ["virtualNodes"],
  CONFIG: ["messageQueueList"],
  MACHINE_ROOM: ["consumeridcs"],
  MACHINE_ROOM_NEARBY: ["inner", "roomSeparator"],
};

const NEARBY_PREFIX = "MACHINE_ROOM_NEARBY-";

/**
 * Builds the strategy a scenario names. Throws InputError, located at `path`, for an unknown name,
 * an option the strategy does not take, or a bad option value.
 *
 * CONFIG answers the configured queues that are in the mqAll it is given, in configured order. The
 * model can only hand out queues it knows; RocketMQ returns the list as is, but its rebalance of
 * each topic ends up owning the same queues whenever the configured ones exist in the route.
 */
export function makeStrategy<T>(spec: AllocateSpec, queueName: (mq: T) => MessageQueueName, path = "allocate"): AllocateStrategy<T> {
  const options = normalizeSpec(spec, path);
  const name = options.strategy as (typeof ALLOCATE_STRATEGY_NAMES)[number];
  switch (name) {
    case "AVG":
      return allocateAveragely;
    case "AVG_BY_CIRCLE":
      return allocateAveragelyByCircle;
    case "CONSISTENT_HASH":
      return allocateConsistentHash(queueName, { virtualNodeCount: virtualNodesOf(options.virtualNodes, `${path}.virtualNodes`) });
    case "CONFIG":
      return configStrategy(messageQueueListOf(options.messageQueueList, `${path}.messageQueueList`), queueName);
    case "MACHINE_ROOM":
      return allocateByMachineRoom(consumeridcsOf(options.consumeridcs, `${path}.consumeridcs`), (mq: T) => queueName(mq).brokerName);
    case "MACHINE_ROOM_NEARBY":
      return nearbyStrategy(options, queueName, path);
  }
}

type SpecObject = Exclude<AllocateSpec, string>;

/** The spec as an object whose strategy is a known name and whose keys that strategy accepts. */
function normalizeSpec(spec: unknown, path: string): SpecObject {
  if (typeof spec === "string") {
    if (spec.startsWith(NEARBY_PREFIX)) return { strategy: "MACHINE_ROOM_NEARBY", inner: spec.slice(NEARBY_PREFIX.length) };
    checkName(spec, path);
    return { strategy: spec };
  }
  if (typeof spec !== "object" || spec === null || Array.isArray(spec)) {
    throw new InputError(path, `expected a strategy name or an object with "strategy", got ${describeValue(spec)}`);
  }
  const record = spec as Record<string, unknown>;
  const strategy = record["strategy"];
  if (typeof strategy !== "string") {
    throw new InputError(`${path}.strategy`, `expected one of ${ALLOCATE_STRATEGY_NAMES.join(", ")}, got ${describeValue(strategy)}`);
  }
  checkName(strategy, `${path}.strategy`);
  const allowed = OPTIONS_BY_NAME[strategy as keyof typeof OPTIONS_BY_NAME];
  for (const key of Object.keys(record).sort()) {
    if (key !== "strategy" && !allowed.includes(key)) {
      const accepted = allowed.length === 0 ? "no options" : `only ${allowed.join(", ")}`;
      throw new InputError(`${path}.${key}`, `${strategy} takes ${accepted}`);
    }
  }
  return record as SpecObject;
}

function checkName(name: string, path: string): void {
  if (!(ALLOCATE_STRATEGY_NAMES as readonly string[]).includes(name)) {
    throw new InputError(path, `unknown allocation strategy ${describeValue(name)}; expected one of ${ALLOCATE_STRATEGY_NAMES.join(", ")}`);
  }
}

function virtualNodesOf(value: unknown, path: string): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "number" || !Number.isInteger(value) || value < 0) {
    throw new InputError(path, `expected an integer ≥ 0, got ${describeValue(value)}`);
  }
  return value;
}

function consumeridcsOf(value: unknown, path: string): string[] {
  if (!Array.isArray(value) || !value.every((room) => typeof room === "string")) {
    throw new InputError(path, `expected a list of machine room names, got ${describeValue(value)}`);
  }
  return value as string[];
}

function messageQueueListOf(value: unknown, path: string): MessageQueueName[] {
  if (!Array.isArray(value)) throw new InputError(path, `expected a list of {topic, brokerName, queueId}, got ${describeValue(value)}`);
  value.forEach((item: unknown, i) => {
    const q = item as Partial<Record<string, unknown>> | null;
    const ok =
      typeof q === "object" && q !== null && typeof q["topic"] === "string" && typeof q["brokerName"] === "string" &&
      typeof q["queueId"] === "number" && Number.isInteger(q["queueId"]) && q["queueId"] >= 0;
    if (!ok) throw new InputError(`${path}.${i}`, `expected {topic, brokerName, queueId ≥ 0}, got ${describeValue(item)}`);
  });
  return value as MessageQueueName[];
}

function configStrategy<T>(messageQueueList: readonly MessageQueueName[], queueName: (mq: T) => MessageQueueName): AllocateStrategy<T> {
  const keyOf = (q: MessageQueueName) => `${q.topic}\u0000${q.brokerName}\u0000${q.queueId}`;
  const order = new Map<string, number>();
  messageQueueList.forEach((q, i) => {
    if (!order.has(keyOf(q))) order.set(keyOf(q), i);
  });
  return (currentCid, mqAll, cidAll) => {
    const present = mqAll.filter((mq) => order.has(keyOf(queueName(mq))));
    present.sort((a, b) => order.get(keyOf(queueName(a)))! - order.get(keyOf(queueName(b)))!);
    return allocateByConfig(present)(currentCid, mqAll, cidAll);
  };
}

function nearbyStrategy<T>(options: SpecObject, queueName: (mq: T) => MessageQueueName, path: string): AllocateStrategy<T> {
  if (options.inner === undefined) {
    throw new InputError(`${path}.inner`, `MACHINE_ROOM_NEARBY needs the strategy to use within a room, e.g. "AVG"`);
  }
  const innerName = typeof options.inner === "string" ? options.inner : (options.inner as { strategy?: unknown }).strategy;
  if (typeof innerName === "string" && (innerName === "MACHINE_ROOM_NEARBY" || innerName.startsWith(NEARBY_PREFIX))) {
    throw new InputError(`${path}.inner`, "MACHINE_ROOM_NEARBY cannot nest inside itself");
  }
  const inner = makeStrategy(options.inner, queueName, `${path}.inner`);
  const separator = options.roomSeparator ?? "-";
  if (typeof separator !== "string" || separator === "") {
    throw new InputError(`${path}.roomSeparator`, `expected a non-empty string, got ${describeValue(separator)}`);
  }
  // Up to the first separator, or the whole name when there is none (Java's split(sep)[0]). Not
  // split(): every consumer's rebalance resolves every cid, and the arrays made that dominate.
  const roomOf = (name: string) => {
    const end = name.indexOf(separator);
    return end < 0 ? name : name.slice(0, end);
  };
  return allocateMachineRoomNearby(inner, {
    brokerDeployIn: (mq) => {
      // Checked here too, because only here can the error name the broker rather than a queue handle.
      const q = queueName(mq);
      const room = roomOf(q.brokerName);
      if (!room) throw new AllocateError(`Machine room is null for mq ${q.topic}@${q.brokerName}#${q.queueId} (roomSeparator ${JSON.stringify(separator)})`);
      return room;
    },
    consumerDeployIn: roomOf,
  });
}
