// The `resetOffset` fault (issue 19): the operator's `mqadmin resetOffsetByTime -g G -t T -s <when>` at a
// virtual time —
//   { "kind": "resetOffset", "at": "20m", "group": "G1", "topic": "TopicTest", "to": <target>, "force": true }
// where <target> is
//   "earliest"            every queue back to its min offset (a timestamp older than every message);
//   "latest"              every queue to its max offset (mqadmin's timestamp −1: getMaxOffsetInQueue);
//   { "time": "5m" }      the virtual instant 5 min into the run (store time, which the model equals to born time);
//   { "ago": "10m" }      10 min before the fault's `at` (mqadmin's "now − 10 min");
//   { "offset": 1200 }    that offset on every queue of the topic, clamped to [min, max] per queue (mqadmin's
//                         `-o` is per queue and 5.x only; the model applies it to each queue).
// `force` (default true, as mqadmin's `-f`): without it the 4.x broker moves only queues whose target is
// below the group's committed offset (Broker2Client#resetOffset); 5.x's server-side reset ignores it.
import { describeValue, InputError, listChoices, missing } from "./errors.ts";
import type { FaultModel } from "./faultTypes.ts";
import { isRecord, readInt, readString, show } from "./read.ts";
import { parseDurationUs } from "./units.ts";

interface Base {
  index: number;
  label: string;
  atUs: number;
}

/** The keys a resetOffset fault takes besides kind and at. */
export const RESET_OFFSET_KEYS = ["group", "topic", "to", "force"];

const TO_FORMS = '"earliest", "latest", { "time": "5m" } (a virtual time into the run), { "ago": "10m" } (before the fault\'s at) or { "offset": 1200 }';

export function normalizeResetOffset(
  f: Record<string, unknown>, path: string, base: Base,
  groups: readonly { name: string }[], topics: readonly { name: string }[],
): FaultModel {
  const groupName = readString(f, "group", `${path}.group`);
  const group = groups.findIndex((g) => g.name === groupName);
  if (group < 0) throw new InputError(`${path}.group`, `unknown group ${describeValue(groupName)}; groups are: ${listChoices(groups.map((g) => g.name))}`);
  const topicName = readString(f, "topic", `${path}.topic`);
  const topic = topics.findIndex((t) => t.name === topicName);
  if (topic < 0) throw new InputError(`${path}.topic`, `unknown topic ${describeValue(topicName)}; topics are: ${listChoices(topics.map((t) => t.name))}`);
  let force = true;
  if (f.force !== undefined) {
    if (typeof f.force !== "boolean") throw new InputError(`${path}.force`, `must be true or false, got ${show(f.force)}`);
    force = f.force;
  }
  const label = `resetOffset ${groupName} ${topicName} → ${describeTo(f.to)}`;
  return { ...base, label, kind: "resetOffset", group, topic, to: readTo(f.to, `${path}.to`, base.atUs), force };
}

function readTo(to: unknown, where: string, atUs: number): "latest" | "earliest" | { timeUs: number } | { offset: number } {
  if (to === "latest" || to === "earliest") return to;
  if (to === undefined) throw new InputError(where, missing(`a reset target: ${TO_FORMS}`));
  if (!isRecord(to)) throw new InputError(where, `${show(to)} is not a reset target; give ${TO_FORMS}`);
  const keys = Object.keys(to);
  if (keys.length !== 1 || !["time", "ago", "offset"].includes(keys[0]!)) {
    throw new InputError(where, `must have exactly one of "time", "ago" or "offset"; give ${TO_FORMS}`);
  }
  if (to.offset !== undefined) return { offset: readInt(to, "offset", `${where}.offset`, 0, 2 ** 31) };
  if (to.time !== undefined) return { timeUs: parseDurationUs(to.time, `${where}.time`) };
  const agoUs = parseDurationUs(to.ago, `${where}.ago`);
  // A negative timestamp would read as "latest" to a 5.x broker (timestamp < 0 → max offset): refuse it.
  if (agoUs > atUs) throw new InputError(`${where}.ago`, `reaches ${(agoUs - atUs) / 1e6} s before the run starts (the fault is at ${atUs / 1e6} s); use "earliest" or a shorter duration`);
  return { timeUs: atUs - agoUs };
}

function describeTo(to: unknown): string {
  if (typeof to === "string") return to;
  if (!isRecord(to)) return "?";
  if (to.time !== undefined) return `time ${String(to.time)}`;
  if (to.ago !== undefined) return `${String(to.ago)} ago`;
  return `offset ${String(to.offset)}`;
}
