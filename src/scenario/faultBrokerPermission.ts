// Two broker-side permission faults (issue 19), normalised here; src/faults/brokerPermission.ts applies them.
//   { "kind": "brokerPermission", "at": "1m", "target": "broker-a", "perm": "rw" | "r" | "w" | "none", "for": "30s" }
//     mqadmin updateBrokerConfig -k brokerPermission: "r" is what brokerReadOnly does; without PERM_READ
//     every pull is answered NO_PERMISSION, without PERM_WRITE producers leave the broker at their next
//     route poll. With `for`, the permission before the fault comes back at its end.
//   { "kind": "updateSubscriptionGroup", "at": "1m", "group": "G1", "broker": "broker-a",
//     "consumeEnable": false, "consumeBroadcastEnable": false, "retryMaxTimes": 3, "for": "60s" }
//     mqadmin updateSubGroup: on one broker, or every broker when `broker` is left out; at least one
//     field. With `for`, the fields it changed get their values before the fault back at its end.
import { describeValue, InputError, listChoices } from "./errors.ts";
import type { FaultModel } from "./faultTypes.ts";
import { readString } from "./read.ts";
import { readSubscriptionGroupUpdate } from "./subscriptionGroup.ts";
import { readPerm } from "./topicConfigInput.ts";
import { parseDurationUs } from "./units.ts";

interface Base {
  index: number;
  label: string;
  atUs: number;
}

export const BROKER_PERMISSION_KEYS = ["target", "perm", "for"];
export const UPDATE_SUBSCRIPTION_GROUP_KEYS = ["group", "broker", "consumeEnable", "consumeBroadcastEnable", "retryMaxTimes", "for"];

export function normalizeBrokerPermission(f: Record<string, unknown>, path: string, base: Base, brokers: readonly string[]): FaultModel {
  return { ...base, kind: "brokerPermission", broker: brokerIndex(f, "target", path, brokers), perm: readPerm(f, "perm", path), forUs: optDuration(f, path) };
}

export function normalizeUpdateSubscriptionGroup(
  f: Record<string, unknown>, path: string, base: Base, groups: readonly { name: string }[], brokers: readonly string[],
): FaultModel {
  const name = readString(f, "group", `${path}.group`);
  const group = groups.findIndex((g) => g.name === name);
  if (group < 0) throw new InputError(`${path}.group`, `unknown group ${describeValue(name)}; groups are: ${listChoices(groups.map((g) => g.name))}`);
  const broker = f.broker === undefined ? -1 : brokerIndex(f, "broker", path, brokers);
  // The generic label names a target; this fault names a group (and a broker).
  const label = `updateSubscriptionGroup ${name}${broker < 0 ? "" : `@${brokers[broker]}`}`;
  return { ...base, label, kind: "updateSubscriptionGroup", group, broker, update: readSubscriptionGroupUpdate(f, path), forUs: optDuration(f, path) };
}

function brokerIndex(f: Record<string, unknown>, key: string, path: string, brokers: readonly string[]): number {
  const name = readString(f, key, `${path}.${key}`);
  const i = brokers.indexOf(name);
  if (i < 0) throw new InputError(`${path}.${key}`, `unknown broker ${describeValue(name)}; brokers are: ${listChoices(brokers)}`);
  return i;
}

function optDuration(f: Record<string, unknown>, path: string): number | null {
  if (f.for === undefined) return null;
  const us = parseDurationUs(f.for, `${path}.for`);
  if (us <= 0) throw new InputError(`${path}.for`, "must be greater than 0");
  return us;
}
