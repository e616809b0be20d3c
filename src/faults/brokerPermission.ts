// Applies the brokerPermission and updateSubscriptionGroup faults (src/scenario/faultBrokerPermission.ts).
//
// brokerPermission (mqadmin updateBrokerConfig -k brokerPermission): every node of the broker group
// takes the new permission at once — pulls check it first (PullMessageProcessor, spec §13.1 step 1) —
// and AdminBrokerProcessor#updateBrokerConfig re-registers with the name server at once (4.9.7), so
// producers leave an unwritable broker at their next route poll, the path brokerReadOnly takes. That
// registration gives every topic perm = brokerPermission (BrokerController#registerBrokerAll), so
// consumers drop an unreadable broker's queues at their next route poll (TopicConfigs#registeredPerm);
// until then their pulls there are answered NO_PERMISSION.
// updateSubscriptionGroup (mqadmin updateSubGroup): the group's row changes on the broker(s) at once —
// on every node of a group with replicas, where RocketMQ's slaves would take the master's table at their
// next SlaveSynchronize#syncAll (syncSubscriptionGroupConfig, every 10 s; 4.9.7) — a simplification.
// Both remember what they replaced, and a fault with `for` puts it back at its end.
import type { Cluster } from "../model/Cluster.ts";
import { isReadable, isWriteable, PERM_RW } from "../protocol/topicConfig.ts";
import type { FaultModel } from "../scenario/faultTypes.ts";
import type { SubscriptionGroupUpdate } from "../scenario/subscriptionGroup.ts";
import { permName } from "./updateTopic.ts";

type PermissionFault = Extract<FaultModel, { kind: "brokerPermission" | "updateSubscriptionGroup" }>;

export class BrokerPermissionFaults {
  /** What each fault (by index) replaced: a brokerPermission, or a group's fields per broker. */
  private readonly replaced = new Map<number, number | SubscriptionGroupUpdate[]>();

  constructor(private readonly cl: Cluster) {}

  start(f: PermissionFault): string {
    if (f.kind === "brokerPermission") {
      this.replaced.set(f.index, this.permOf(f.broker));
      return this.setPerm(f.broker, f.perm);
    }
    const brokers = this.brokersOf(f.broker);
    this.replaced.set(f.index, brokers.map((b) => this.groupsOf(b).snapshot(f.group, f.update)));
    for (const b of brokers) for (const n of this.cl.groupNodes(b)) n.processor.checks.groups.update(f.group, f.update);
    return `${describe(f.update)} for group ${this.cl.model.groups[f.group]!.name} on ${brokers.length} broker(s)`;
  }

  end(f: PermissionFault): string {
    const before = this.replaced.get(f.index);
    if (before === undefined) return "";
    this.replaced.delete(f.index);
    if (f.kind === "brokerPermission") return `back to ${this.setPerm(f.broker, before as number)}`;
    const brokers = this.brokersOf(f.broker);
    brokers.forEach((b, i) => {
      for (const n of this.cl.groupNodes(b)) n.processor.checks.groups.update(f.group, (before as SubscriptionGroupUpdate[])[i]!);
    });
    return `${describe((before as SubscriptionGroupUpdate[])[0]!)} again`;
  }

  private setPerm(broker: number, perm: number): string {
    for (const n of this.cl.groupNodes(broker)) n.processor.checks.brokerPermission = perm;
    // The broker re-registers every topic with this perm (registerBrokerAll): consumers drop an unreadable
    // broker's queues at their next route poll and the following rebalance, and take them back likewise.
    this.cl.routes.topicConfigs.setBrokerPermission(broker, perm, this.cl.sched.nowUs);
    for (const c of this.cl.consumers) c.route.topicConfigChanged();
    // Producers only hear of a change of writability (their route poll), as with brokerReadOnly.
    if (this.cl.brokers[broker]!.writable !== isWriteable(perm)) this.cl.setBrokerWritable(broker, isWriteable(perm));
    const reads = isReadable(perm) ? "pulls served" : "pulls answered NO_PERMISSION";
    const writes = isWriteable(perm) ? "writable" : "producers leave it at their next route poll (≤ 30 s)";
    return `brokerPermission ${permName(perm)}: ${reads}, ${writes}`;
  }

  private permOf(broker: number): number {
    return this.cl.brokers[broker]?.processor.checks.brokerPermission ?? PERM_RW;
  }

  private groupsOf(broker: number) {
    return this.cl.brokers[broker]!.processor.checks.groups;
  }

  private brokersOf(broker: number): number[] {
    return broker >= 0 ? [broker] : this.cl.brokers.map((_, i) => i);
  }
}

function describe(u: SubscriptionGroupUpdate): string {
  const parts: string[] = [];
  if (u.consumeEnable !== undefined) parts.push(`consumeEnable ${u.consumeEnable}`);
  if (u.consumeBroadcastEnable !== undefined) parts.push(`consumeBroadcastEnable ${u.consumeBroadcastEnable}`);
  if (u.retryMaxTimes !== undefined) parts.push(`retryMaxTimes ${u.retryMaxTimes}`);
  return parts.join(", ");
}
