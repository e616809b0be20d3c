// The `updateTopic` fault (issue 19): `mqadmin updateTopic` on one broker at a time —
// { "kind": "updateTopic", "at": "2m", "target": "Topic@broker-a", "readQueueNums": 4, "writeQueueNums": 4,
//   "perm": "rw" | "r" | "w" | "none" }. Any of the three may be left out (it keeps its value), not all.
import { describeValue, InputError, listChoices } from "./errors.ts";
import type { FaultModel } from "./faultTypes.ts";
import { readString } from "./read.ts";
import { readPerm, readQueueNums } from "./topicConfigInput.ts";

interface Base {
  index: number;
  label: string;
  atUs: number;
}

/** The keys an updateTopic fault takes besides kind and at. */
export const UPDATE_TOPIC_KEYS = ["target", "readQueueNums", "writeQueueNums", "perm"];

export function normalizeUpdateTopic(
  f: Record<string, unknown>, path: string, base: Base,
  topics: readonly { name: string; brokers: readonly number[] }[], brokers: readonly string[],
): FaultModel {
  const where = `${path}.target`;
  const target = readString(f, "target", where);
  const m = /^(.+)@([^@#]+)$/.exec(target);
  if (!m) throw new InputError(where, `${describeValue(target)} must name a topic on a broker, like "TopicTest@broker-a"`);
  const topic = topics.findIndex((t) => t.name === m[1]);
  if (topic < 0) throw new InputError(where, `unknown topic ${describeValue(m[1])}; topics are: ${listChoices(topics.map((t) => t.name))}`);
  const broker = brokers.indexOf(m[2]!);
  if (broker < 0 || !topics[topic]!.brokers.includes(broker)) {
    const on = topics[topic]!.brokers.map((b) => brokers[b]!);
    throw new InputError(where, `topic ${m[1]} is not on broker ${describeValue(m[2])}; it is on: ${listChoices(on)}`);
  }
  if (f.readQueueNums === undefined && f.writeQueueNums === undefined && f.perm === undefined) {
    throw new InputError(path, "give at least one of readQueueNums (1–1024), writeQueueNums (1–1024) or perm (\"rw\", \"r\", \"w\", \"none\")");
  }
  return {
    ...base, kind: "updateTopic", topic, broker,
    readQueueNums: f.readQueueNums === undefined ? null : readQueueNums(f, "readQueueNums", path),
    writeQueueNums: f.writeQueueNums === undefined ? null : readQueueNums(f, "writeQueueNums", path),
    perm: f.perm === undefined ? null : readPerm(f, "perm", path),
  };
}
