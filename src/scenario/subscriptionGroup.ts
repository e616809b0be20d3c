// A group's broker-side settings (SubscriptionGroupConfig, `groups[].subscriptionGroup` in a scenario)
// and the fields of the updateSubscriptionGroup fault (mqadmin updateSubGroup) that changes them at a
// time. Defaults are RocketMQ's (src/broker/SubscriptionGroupManager.ts); the broker applies them.
import { InputError } from "./errors.ts";
import { checkKeys, isRecord, readInt, show } from "./read.ts";

/** SubscriptionGroupConfig fields a scenario may set per group; absent: RocketMQ's default. */
export interface SubscriptionGroupModel {
  /** false: every pull of the group is answered NO_PERMISSION (default true). */
  consumeEnable?: boolean;
  /** false: a BROADCASTING group's pulls are answered NO_PERMISSION (default true). */
  consumeBroadcastEnable?: boolean;
  /** %RETRY%<group> queues; 0: send-backs are answered SUCCESS and dropped (default: the broker's retryQueueNums, 1). */
  retryQueueNums?: number;
  /** DLQ threshold for clients that send no maxReconsumeTimes (none the model has; default 16). */
  retryMaxTimes?: number;
}

/** Most retry attempts a group may be configured for (RocketMQ has no cap; this bounds typos). */
export const RETRY_MAX_TIMES_MAX = 1000;
/** Most %RETRY% queues per broker (routes allocate them all). */
export const RETRY_QUEUE_NUMS_MAX = 64;

const GROUP_KEYS = ["consumeEnable", "consumeBroadcastEnable", "retryQueueNums", "retryMaxTimes"];

/** `groups[i].subscriptionGroup`, validated; undefined when absent. */
export function normalizeSubscriptionGroup(raw: unknown, path: string): SubscriptionGroupModel | undefined {
  if (raw === undefined) return undefined;
  if (!isRecord(raw)) throw new InputError(path, `must be an object with any of ${GROUP_KEYS.join(", ")}`);
  checkKeys(raw, GROUP_KEYS, path);
  const out: SubscriptionGroupModel = {};
  if (raw.consumeEnable !== undefined) out.consumeEnable = readBool(raw, "consumeEnable", `${path}.consumeEnable`);
  if (raw.consumeBroadcastEnable !== undefined) out.consumeBroadcastEnable = readBool(raw, "consumeBroadcastEnable", `${path}.consumeBroadcastEnable`);
  if (raw.retryQueueNums !== undefined) out.retryQueueNums = readInt(raw, "retryQueueNums", `${path}.retryQueueNums`, 0, RETRY_QUEUE_NUMS_MAX);
  if (raw.retryMaxTimes !== undefined) out.retryMaxTimes = readInt(raw, "retryMaxTimes", `${path}.retryMaxTimes`, 0, RETRY_MAX_TIMES_MAX);
  return out;
}

export function readBool(obj: Record<string, unknown>, key: string, path: string): boolean {
  const v = obj[key];
  if (typeof v !== "boolean") throw new InputError(path, `must be true or false, got ${show(v)}`);
  return v;
}

/** What an updateSubscriptionGroup fault sets (absent fields are left as they are). */
export interface SubscriptionGroupUpdate {
  consumeEnable?: boolean;
  consumeBroadcastEnable?: boolean;
  retryMaxTimes?: number;
}

/** The fields of an updateSubscriptionGroup fault besides kind, at, group and broker; at least one. */
export function readSubscriptionGroupUpdate(f: Record<string, unknown>, path: string): SubscriptionGroupUpdate {
  const out: SubscriptionGroupUpdate = {};
  if (f.consumeEnable !== undefined) out.consumeEnable = readBool(f, "consumeEnable", `${path}.consumeEnable`);
  if (f.consumeBroadcastEnable !== undefined) out.consumeBroadcastEnable = readBool(f, "consumeBroadcastEnable", `${path}.consumeBroadcastEnable`);
  if (f.retryMaxTimes !== undefined) out.retryMaxTimes = readInt(f, "retryMaxTimes", `${path}.retryMaxTimes`, 0, RETRY_MAX_TIMES_MAX);
  if (Object.keys(out).length === 0) throw new InputError(path, "give at least one of consumeEnable, consumeBroadcastEnable, retryMaxTimes");
  return out;
}
