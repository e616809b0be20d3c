// Storage reclamation: the simulator's own memory management, not RocketMQ behaviour (a broker keeps
// its commit log until retention deletes it). Every second, after retention, it frees the stored
// messages of each scenario queue below the lowest offset anything may still read: every group's
// committed offset (0 for a group without one), and — of every live instance — its ProcessQueues'
// first messages, its in-memory offsets, the messages in its consume workers, and every pull
// request's next offset and in-flight offset (of dead incarnations too, until their pulls end).
//
// Like a garbage collector it must see every reference, so it sits where everything is visible.
// Freeing is visible to the model through the store's physicalMin (retention raises minOffset to it):
// a rewind below the floor reads as OFFSET_ILLEGAL. Making reclamation invisible is the message store's
// next step.
import type { Cluster } from "./Cluster.ts";

export const RECLAIM_PERIOD_US = 1_000_000;

export class StorageReclaimer {
  private readonly kind: number;
  private readonly ordinary: number[] = [];
  private readonly floor: Float64Array;

  constructor(private readonly cluster: Cluster) {
    this.kind = cluster.sched.defineKind("reclaimStorage", () => this.onTick());
    for (const q of cluster.routes.queues) if (cluster.routes.isOrdinary(q.index)) this.ordinary.push(q.index);
    this.floor = new Float64Array(cluster.routes.queues.length);
  }

  start(): void {
    this.cluster.sched.scheduleIn(RECLAIM_PERIOD_US, this.kind);
  }

  private onTick(): void {
    this.reclaim();
    this.cluster.sched.scheduleIn(RECLAIM_PERIOD_US, this.kind);
  }

  /** Frees every scenario queue's storage below its floor. */
  reclaim(): void {
    const cl = this.cluster;
    const floor = this.floor;
    floor.fill(Infinity);
    const lower = (mq: number, o: number) => {
      if (o >= 0 && o < floor[mq]!) floor[mq] = o;
    };
    for (const grp of cl.model.groups) {
      for (const sub of grp.subscriptions) {
        for (const mq of cl.routes.topicQueues(sub.topic)) {
          const committed = cl.brokers[cl.routes.brokerOf(mq)]!.offsets.queryOffset(grp.index, mq);
          lower(mq, committed >= 0 ? committed : 0);
        }
      }
    }
    for (const c of cl.consumers) {
      if (!c.alive) continue; // nothing of a dead incarnation reads the store again
      for (const [mq, pq] of c.rebalance.processQueues()) lower(mq, pq.firstKey);
      for (const [mq, off] of c.offsetStore.entries()) lower(mq, off);
      c.consumeService.forEachInFlight((mq, o) => lower(mq, o));
    }
    for (const c of cl.incarnations) {
      for (const pr of c.pullRequests) {
        if (pr.inFlight) lower(pr.mq, pr.reqOffset);
        if (!pr.pq.dropped) lower(pr.mq, pr.nextOffset);
      }
    }
    for (const mq of this.ordinary) {
      const f = floor[mq]!;
      if (f !== Infinity) cl.brokers[cl.routes.brokerOf(mq)]!.store.reclaimBelow(mq, f);
    }
  }
}
