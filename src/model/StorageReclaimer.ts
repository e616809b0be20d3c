// Storage reclamation: the simulator's own memory management, not RocketMQ behaviour (a broker keeps
// its commit log until retention deletes it). Every second it reclaims the columns of each scenario
// queue's stored messages below the lowest offset anything holds now: every group's committed offset,
// and — of every live instance — its ProcessQueues' first messages, its in-memory offsets, the messages
// in its consume workers, and every pull request's next offset and in-flight offset (of dead
// incarnations too, until their pulls end). A group with no committed offset holds nothing.
//
// Reclaiming is invisible to the model (QueueStore re-creates reclaimed messages when they are read
// again: a rewind, a new group from the first offset), so the roots only decide how much is re-created
// rather than kept; like a garbage collector's, they sit where everything is visible.
import type { Cluster } from "./Cluster.ts";

export const RECLAIM_PERIOD_US = 1_000_000;
/**
 * A queue holding more chunks than this also has its backlog above the readers reclaimed, but for the
 * chunk each pull reads next and the one after (8 chunks = 32 768 messages, ~1.3 MB of columns): memory
 * follows what is being read, not how far behind a consumer is. Re-created when a pull gets there.
 */
export const LIVE_CHUNK_BUDGET = 8;

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
    this.releaseCheckpoints();
    this.cluster.sched.scheduleIn(RECLAIM_PERIOD_US, this.kind);
  }

  /** Reclaims every scenario queue's storage below its floor, and above it beyond the budget. */
  reclaim(): void {
    const cl = this.cluster;
    const floor = this.floors();
    let over: number[] | null = null;
    for (const mq of this.ordinary) {
      const f = floor[mq]!;
      const store = cl.brokers[cl.routes.brokerOf(mq)]!.store;
      if (f !== Infinity) store.reclaimBelow(mq, f);
      if (store.queue(mq).liveChunks > LIVE_CHUNK_BUDGET) (over ??= []).push(mq);
    }
    if (over === null) return;
    const readers = this.readers();
    for (const mq of over) {
      const f = floor[mq]!;
      cl.brokers[cl.routes.brokerOf(mq)]!.store.reclaimAboveExcept(mq, f === Infinity ? 0 : f, readers.get(mq) ?? []);
    }
  }

  /** Lets each producer forget the checkpoints below the lowest draw its topic's queues still store. */
  private releaseCheckpoints(): void {
    const cl = this.cluster;
    const producers = cl.producers.producers;
    for (let topic = 0; topic < producers.length; topic++) {
      const p = producers[topic];
      if (!p) continue;
      let low = Infinity;
      for (const mq of cl.routes.topicQueues(topic)) {
        if (!cl.routes.isOrdinary(mq)) continue;
        const d = cl.brokers[cl.routes.brokerOf(mq)]!.store.queue(mq).lowestDraw();
        if (d < low) low = d;
      }
      if (low !== Infinity) p.releaseCheckpointsBelow(Math.min(low, p.draws));
    }
  }

  /** Per queue, the offsets pulls will read next: every pull in flight and every live pull request's next offset. */
  private readers(): Map<number, number[]> {
    const out = new Map<number, number[]>();
    const add = (mq: number, o: number) => {
      const list = out.get(mq);
      if (list === undefined) out.set(mq, [o]);
      else list.push(o);
    };
    this.forEachPullOffset(add);
    return out;
  }

  /** Every pull in flight's offset and every live pull request's next offset, dead incarnations' too
   * (their pulls still in flight read the store when answered). */
  private forEachPullOffset(fn: (mq: number, offset: number) => void): void {
    for (const c of this.cluster.incarnations) {
      for (const pr of c.pullRequests) {
        if (pr.inFlight) fn(pr.mq, pr.reqOffset);
        if (!pr.pq.dropped) fn(pr.mq, pr.nextOffset);
      }
    }
  }

  /** Per global queue, the lowest offset anything holds now (Infinity: nothing). Valid until the next call. */
  floors(): Float64Array {
    const cl = this.cluster;
    const floor = this.floor;
    floor.fill(Infinity);
    const lower = (mq: number, o: number) => {
      if (o >= 0 && o < floor[mq]!) floor[mq] = o;
    };
    for (const grp of cl.model.groups) {
      for (const sub of grp.subscriptions) {
        for (const mq of cl.routes.topicQueues(sub.topic)) {
          lower(mq, cl.brokers[cl.routes.brokerOf(mq)]!.offsets.queryOffset(grp.index, mq));
        }
      }
    }
    for (const c of cl.consumers) {
      if (!c.alive) continue; // nothing of a dead incarnation reads the store again
      for (const [mq, pq] of c.rebalance.processQueues()) lower(mq, pq.firstKey);
      for (const [mq, off] of c.offsetStore.entries()) lower(mq, off);
      c.consumeService.forEachInFlight((mq, o) => lower(mq, o));
    }
    this.forEachPullOffset(lower);
    return floor;
  }
}
