// A group's "allocate" setting: which allocation strategy (spec §11) its consumers use, with what
// options. Validated here into plain AllocateOptions; src/client/allocate builds the strategy from them.
import { ALLOCATE_DEFAULTS } from "./defaults.ts";
import { describeValue, expectedGot, InputError } from "./errors.ts";
import { isRecord } from "./read.ts";

/** A queue by name: the fields of RocketMQ's MessageQueue. */
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

/** A validated setting of any strategy but MACHINE_ROOM_NEARBY (which cannot nest inside itself). */
export type AllocateInnerOptions =
  | { strategy: "AVG" | "AVG_BY_CIRCLE" }
  | { strategy: "CONSISTENT_HASH"; virtualNodes: number }
  | { strategy: "CONFIG"; messageQueueList: readonly MessageQueueName[] }
  | { strategy: "MACHINE_ROOM"; consumeridcs: readonly string[] };

/** A validated "allocate" setting: the strategy's name and every option it takes, defaults filled in. */
export type AllocateOptions = AllocateInnerOptions | { strategy: "MACHINE_ROOM_NEARBY"; inner: AllocateInnerOptions; roomSeparator: string };

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
 * Validates a scenario's "allocate" setting into AllocateOptions. Throws InputError, located at
 * `path`, for an unknown name, an option the strategy does not take, or a bad option value.
 */
export function normalizeAllocate(spec: unknown, path = "allocate"): AllocateOptions {
  const options = normalizeSpec(spec, path);
  const name = options.strategy as (typeof ALLOCATE_STRATEGY_NAMES)[number];
  switch (name) {
    case "AVG":
    case "AVG_BY_CIRCLE":
      return { strategy: name };
    case "CONSISTENT_HASH":
      return { strategy: name, virtualNodes: virtualNodesOf(options.virtualNodes, `${path}.virtualNodes`) ?? ALLOCATE_DEFAULTS.virtualNodes };
    case "CONFIG":
      return { strategy: name, messageQueueList: messageQueueListOf(options.messageQueueList, `${path}.messageQueueList`) };
    case "MACHINE_ROOM":
      return { strategy: name, consumeridcs: consumeridcsOf(options.consumeridcs, `${path}.consumeridcs`) };
    case "MACHINE_ROOM_NEARBY":
      return nearbyOptions(options, path);
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
    throw new InputError(path, expectedGot(`a strategy name or an object with "strategy"`, spec));
  }
  const record = spec as Record<string, unknown>;
  const strategy = record["strategy"];
  if (typeof strategy !== "string") {
    throw new InputError(`${path}.strategy`, expectedGot(`one of ${ALLOCATE_STRATEGY_NAMES.join(", ")}`, strategy));
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
    throw new InputError(path, expectedGot(`an integer ≥ 0`, value));
  }
  return value;
}

function consumeridcsOf(value: unknown, path: string): string[] {
  if (!Array.isArray(value) || !value.every((room) => typeof room === "string")) {
    throw new InputError(path, expectedGot(`a list of machine room names`, value));
  }
  return [...(value as string[])];
}

function messageQueueListOf(value: unknown, path: string): MessageQueueName[] {
  if (!Array.isArray(value)) throw new InputError(path, expectedGot(`a list of {topic, brokerName, queueId}`, value));
  value.forEach((item: unknown, i) => {
    const q = item as Partial<Record<string, unknown>> | null;
    const ok =
      typeof q === "object" && q !== null && typeof q["topic"] === "string" && typeof q["brokerName"] === "string" &&
      typeof q["queueId"] === "number" && Number.isInteger(q["queueId"]) && q["queueId"] >= 0;
    if (!ok) throw new InputError(`${path}.${i}`, expectedGot(`{topic, brokerName, queueId ≥ 0}`, item));
  });
  return (value as MessageQueueName[]).map(({ topic, brokerName, queueId }) => ({ topic, brokerName, queueId }));
}

function nearbyOptions(options: SpecObject, path: string): AllocateOptions {
  if (options.inner === undefined) {
    throw new InputError(`${path}.inner`, `MACHINE_ROOM_NEARBY needs the strategy to use within a room, e.g. "AVG"`);
  }
  const inner0: unknown = options.inner;
  const innerName = typeof inner0 === "string" ? inner0 : isRecord(inner0) ? inner0["strategy"] : undefined;
  if (typeof innerName === "string" && (innerName === "MACHINE_ROOM_NEARBY" || innerName.startsWith(NEARBY_PREFIX))) {
    throw new InputError(`${path}.inner`, "MACHINE_ROOM_NEARBY cannot nest inside itself");
  }
  // Not MACHINE_ROOM_NEARBY: both its name and its shorthand were rejected just above.
  const inner = normalizeAllocate(options.inner, `${path}.inner`) as AllocateInnerOptions;
  const separator = options.roomSeparator ?? ALLOCATE_DEFAULTS.roomSeparator;
  if (typeof separator !== "string" || separator === "") {
    throw new InputError(`${path}.roomSeparator`, expectedGot(`a non-empty string`, separator));
  }
  return { strategy: "MACHINE_ROOM_NEARBY", inner, roomSeparator: separator };
}
