// The updateTopic fault (issue 19): `mqadmin updateTopic` against one broker. The broker's
// TopicConfigManager takes the new config at once and re-registers with the name server in the same
// request (AdminBrokerProcessor#updateAndCreateTopic → updateTopicConfig, then
// registerIncrementBrokerData in 4.9.7, registerIncrementBrokerData / registerSingleTopicAll in 5.1.4),
// so the broker's own checks and the name server change immediately; clients see it only at their next
// route poll (pollNameServerInterval, 30 s), and a changed subscribe set waits for the next rebalance.
import type { Cluster } from "../model/Cluster.ts";
import type { FaultModel } from "../scenario/faultTypes.ts";
import { isReadable, isWriteable } from "../protocol/topicConfig.ts";

type UpdateTopic = Extract<FaultModel, { kind: "updateTopic" }>;

export function permName(perm: number): string {
  return (isReadable(perm) ? "r" : "") + (isWriteable(perm) ? "w" : "") || "none";
}

/** Applies the change; returns what it did, for the fault record. */
export function applyUpdateTopic(cl: Cluster, f: UpdateTopic): string {
  const tc = cl.routes.topicConfigs;
  const now = cl.sched.nowUs;
  // Production is lazy: messages born before the change meet the broker's old config.
  cl.producers.advanceTo(now);
  const read = tc.readQueueNums(f.topic, f.broker);
  const write = tc.writeQueueNums(f.topic, f.broker);
  const perm = tc.perm(f.topic, f.broker);
  const nextRead = f.readQueueNums ?? read;
  const nextWrite = f.writeQueueNums ?? write;
  const nextPerm = f.perm ?? perm;
  tc.update(f.topic, f.broker, nextRead, nextWrite, nextPerm, now);
  cl.producers.brokerStateChanged();
  for (const c of cl.consumers) c.route.topicConfigChanged();
  const show = (what: string, a: number | string, b: number | string) => (a === b ? `${what} ${a}` : `${what} ${a} → ${b}`);
  return `${show("readQueueNums", read, nextRead)}, ${show("writeQueueNums", write, nextWrite)}, ${show("perm", permName(perm), permName(nextPerm))}: clients follow at their next route poll (≤ 30 s)`;
}
