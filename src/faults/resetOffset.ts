// The resetOffset fault: the operator runs `mqadmin resetOffsetByTime` (ResetOffsetByTimeCommand →
// DefaultMQAdminExtImpl#resetOffsetByTimestamp). The tool walks the topic's route, broker by broker, and
// sends each broker's master INVOKE_BROKER_TO_RESET_OFFSET (src/broker/resetOffset.ts does the broker's
// part); an answer other than SUCCESS throws and ends the command, except CONSUMER_NOT_ONLINE, on which
// the tool falls back to ResetOffsetByTimeOldCommand: UPDATE_CONSUMER_OFFSET per queue on every broker
// (resetOffsetByTimestampOld). A broker that is down fails the command at that point. The admin tool's
// own round trips are not modelled: the fault acts at its `at`, the pushes then cross the network.
import { brokerAddr } from "../protocol/address.ts";
import { ResponseCode } from "../protocol/codes.ts";
import type { ResetConsumerClientOffsetRequest } from "../protocol/resetOffset.ts";
import {
  broker2ClientResetOffset, queuesHere, resetOffsetOld, serverSideResetOffset, type ResetOffsetRequest,
} from "../broker/resetOffset.ts";
import type { Cluster } from "../model/Cluster.ts";
import type { FaultModel } from "../scenario/faultTypes.ts";

type ResetOffsetFault = Extract<FaultModel, { kind: "resetOffset" }>;

/** Applies the reset now; returns what it did, for the fault record. */
export function applyResetOffset(cl: Cluster, f: ResetOffsetFault): string {
  const now = cl.sched.nowUs;
  const routes = cl.routes;
  cl.producers.advanceTo(now);
  const req: ResetOffsetRequest = {
    group: f.group, topic: f.topic, force: f.force,
    // "earliest" is a timestamp older than every message (a seeded backlog is born before t = 0).
    timestampUs: f.to === "latest" ? -1 : f.to === "earliest" ? Number.NEGATIVE_INFINITY : "timeUs" in f.to ? f.to.timeUs : 0,
    offset: typeof f.to === "object" && "offset" in f.to ? f.to.offset : null,
  };
  if (cl.model.groups[f.group]!.messageModel === "BROADCASTING") return "not done: a BROADCASTING group keeps its offsets on its clients (the broker has none to reset)";
  const topicQueues = routes.topicQueues(f.topic);
  const brokers = [...new Set(topicQueues.map((mq) => routes.brokerOf(mq)))].sort((a, b) => a - b);
  const onAssigned = (mq: number, offset: number) => cl.observer.offsetReset?.(f.group, mq, offset);
  const parts: string[] = [];
  for (const g of brokers) {
    const b = cl.brokers[g]!;
    const name = cl.model.brokers[g]!.name;
    if (b.down) return [...parts, `${name} is down: the command failed there`].join("; ");
    const queues = queuesHere(b, topicQueues, (mq) => routes.brokerOf(mq));
    if (cl.model.profile === "5.x") {
      const answer = serverSideResetOffset(b, queues, req, now, onAssigned);
      if (answer.code !== ResponseCode.SUCCESS) return [...parts, `${name}: ${answer.remark}`].join("; ");
      parts.push(`${name}: ${describeTable(answer.offsetTable, cl)} (pending, answered to the next pull as PULL_OFFSET_MOVED)`);
      continue;
    }
    const ctx = cl.transport.context(brokerAddr(b.node));
    const answer = broker2ClientResetOffset(b, queues, req, (addr: number, msg: ResetConsumerClientOffsetRequest) => ctx.send(addr, msg));
    if (answer.code === ResponseCode.CONSUMER_NOT_ONLINE) return [...parts, `${name}: no consumer online — ${resetOld(cl, brokers, topicQueues, req, onAssigned)}`].join("; ");
    if (answer.code !== ResponseCode.SUCCESS) return [...parts, `${name}: ${answer.remark}: the command failed`].join("; ");
    parts.push(`${name}: ${describeTable(answer.offsetTable, cl)} pushed to ${answer.pushedTo} client(s)`);
  }
  return parts.join("; ");
}

/** resetOffsetByTimestampOld over every broker of the topic (brokers down are skipped: their RPC fails). */
function resetOld(cl: Cluster, brokers: number[], topicQueues: readonly number[], req: ResetOffsetRequest, onAssigned: (mq: number, offset: number) => void): string {
  const parts: string[] = [];
  for (const g of brokers) {
    const b = cl.brokers[g]!;
    if (b.down) break;
    const queues = queuesHere(b, topicQueues, (mq) => cl.routes.brokerOf(mq));
    const table = resetOffsetOld(b, queues, req, cl.model.profile, cl.sched.nowUs, onAssigned);
    parts.push(`${cl.model.brokers[g]!.name}: ${describeTable(table, cl)}`);
  }
  return `resetOffsetByTimeOld committed ${parts.join(", ")}`;
}

function describeTable(table: ReadonlyMap<number, number>, cl: Cluster): string {
  if (table.size === 0) return "no queue";
  return [...table].map(([mq, offset]) => `#${cl.routes.queues[mq]!.queueId} → ${offset}`).join(", ");
}
