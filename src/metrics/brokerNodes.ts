// The summary's broker nodes: every node of a broker group with replicas (master/slave or DLedger) — its
// role over time and what it did. Groups without replicas are left out: their one node's role never
// changes (a crash of one is in `faults`).
import type { Cluster } from "../model/Cluster.ts";
import type { NodeModel } from "../scenario/types.ts";

export type NodeState = "master" | "slave" | "down";

export interface BrokerNodeRow {
  /** The node's name: the group's for its first master ("broker-a"), "broker-a-s1", … for replicas. */
  name: string;
  /** Its broker group's name. */
  broker: string;
  /** Every role or state change, the state at 0 first (ms of virtual time). */
  roleTimeline: { atMs: number; state: NodeState }[];
  /** Pull requests this node answered (any role). */
  servedPulls: number;
  /** Entries in its ConsumerOffsetManager at the end (the (group, queue) offsets it holds). */
  offsetsHeld: number;
  /** Completed SlaveSynchronize runs (consumer and delay offsets fetched from the master). */
  syncs: number;
  /** Retry deliveries it made of messages some node of its group had delivered already (broker spec §6.4). */
  retryReplays: number;
}

/** The nodes of broker groups with replicas, in node order; empty when the model has none. */
export function replicatedNodes(cl: Pick<Cluster, "nodeModels" | "model">): NodeModel[] {
  return cl.nodeModels.filter((n) => cl.model.brokers[n.broker]!.replication !== undefined);
}

export function brokerNodeRows(cl: Cluster): BrokerNodeRow[] {
  return replicatedNodes(cl).map((n) => {
    const node = cl.nodes[n.index]!;
    return {
      name: n.name,
      broker: cl.model.brokers[n.broker]!.name,
      roleTimeline: cl.nodeLog.filter((e) => e.node === n.index).map((e) => ({ atMs: Math.round(e.tUs) / 1000, state: e.state })),
      servedPulls: node.processor.served,
      offsetsHeld: node.offsets.size,
      syncs: node.slaveSync?.syncs ?? 0,
      retryReplays: node.scheduleService.redelivered,
    };
  });
}

/** "master→down@60s→master@170s": a node's states, each but a first one at 0 with the second it began. */
export function roleTimelineText(timeline: readonly { atMs: number; state: string }[]): string {
  return timeline.map((e, i) => (i === 0 && e.atMs === 0 ? e.state : `${e.state}@${Math.round(e.atMs) / 1000}s`)).join("→");
}
