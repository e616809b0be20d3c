// The summary's per-queue rows: per group × subscribed queue (its retry queues included), the owner(s),
// offsets, cache, owner history and, for an ORDERLY group, its suspends, longest head block and locks.
// (Split from summary.ts to keep files under 400 lines.)
import type { Cluster } from "../model/Cluster.ts";
import type { GroupModel } from "../scenario/types.ts";
import { broadcastCommittedOffset, runningInstances } from "./broadcastOffsets.ts";
import { lockTimeline, type LockState, type OwnerInterval } from "./Ownership.ts";
import type { Recorder } from "./Recorder.ts";
import { queueFilterBooks, type QueueFilterBooks } from "./summaryFilter.ts";

/** A queue's lock state at the end of the run: its current owners' best, or "none" without an owner. */
export type QueueLockState = LockState | "none";

/** An ORDERLY group's books on one queue (spec §8). */
export interface OrderlyQueue {
  /** Listener calls on the queue's head that returned SUSPEND_CURRENT_QUEUE_A_MOMENT (all instances). */
  suspends: number;
  /** The longest a head message stayed blocked: from its first suspend to the consume position moving
   * past it (or its consumption); one still blocked counts to the end of the run. BROADCASTING: the
   * longest of any instance's. ms. */
  longestHeadBlockMs: number;
  /**
   * CLUSTERING: the best lock state among the queue's owners at the end ("held" > "expired" > "not
   * locked"), "none" with no owner. BROADCASTING locks nothing (§8.3): "none" unless an owner reported a
   * lock.
   */
  lockState: QueueLockState;
  /** Every owner's lock states over time, in owner-interval order (expired: 30 s after the last refresh). */
  locks: { clientId: string; state: LockState; fromMs: number; toMs: number | null }[];
}

export interface QueueRow {
  group: string;
  topic: string;
  brokerName: string;
  queueId: number;
  owner: string | null;
  minOffset: number;
  maxOffset: number;
  /** The broker's committed offset for the group (−1: none). BROADCASTING (nothing on the broker): the
   * least local offset of the group's running instances, −1 if one of them has none or none runs. */
  committedOffset: number;
  /** The owner's next pull offset (CLUSTERING: the greatest among overlapping owners; BROADCASTING: the least). */
  nextOffset: number | null;
  cached: number;
  /** Seconds this group had no owner for the queue. */
  orphanSeconds: number;
  /** Who held the queue when, and the duplicates each owner consumed. */
  ownerHistory: { clientId: string; fromMs: number; toMs: number | null; duplicates: number }[];
  /** ORDERLY groups' books on the queue; null for CONCURRENTLY groups. */
  orderly: OrderlyQueue | null;
  /** What filtering cost here, when the group's subscription to the topic filters (summaryFilter.ts). */
  filter?: QueueFilterBooks;
}

const r3 = (v: number) => Math.round(v * 1000) / 1000;
const ms = (us: number) => Math.round(us / 1000);
const LOCK_RANK: Record<QueueLockState, number> = { none: 0, "not locked": 1, expired: 2, held: 3 };

export function queueRows(cl: Cluster, rec: Recorder): QueueRow[] {
  const routes = cl.routes;
  const nowUs = cl.sched.nowUs;
  const rows: QueueRow[] = [];
  for (const grp of cl.model.groups) {
    const broadcasting = grp.messageModel === "BROADCASTING";
    const running = broadcasting ? runningInstances(cl, grp.index) : [];
    const subscribed = [...grp.subscriptions.map((s) => s.topic), routes.retryTopic(grp.index)];
    for (const topic of subscribed) {
      for (const mq of routes.topicQueues(topic)) {
        const route = routes.queues[mq]!;
        const broker = cl.brokers[route.brokerIndex]!;
        const q = broker.store.queue(mq);
        let owner: string | null = null;
        let next: number | null = null;
        let cached = 0;
        for (const c of cl.consumers) {
          if (c.group !== grp.index) continue;
          const pr = c.rebalance.pullRequestOf(mq);
          if (pr === undefined) continue;
          owner = owner === null ? c.clientId : `${owner},${c.clientId}`;
          next = next === null ? pr.nextOffset : broadcasting ? Math.min(next, pr.nextOffset) : Math.max(next, pr.nextOffset);
          cached += pr.pq.msgCount;
        }
        const history = rec.ownership.intervals(grp.index, mq);
        rows.push({
          group: grp.name, topic: route.topic, brokerName: route.brokerName, queueId: route.queueId, owner,
          minOffset: q.minOffset, maxOffset: q.maxOffset,
          committedOffset: broadcasting ? broadcastCommittedOffset(running, mq) : broker.offsets.queryOffset(grp.index, mq),
          nextOffset: next, cached,
          orphanSeconds: r3(rec.ownership.orphanSeconds(grp.index, mq, nowUs, routes.topicConfigs.unreadableSpans(route.topicIndex, route.brokerIndex, route.queueId, nowUs))),
          ownerHistory: history.map((iv) => ({ clientId: iv.clientId, fromMs: ms(iv.fromUs), toMs: iv.toUs === null ? null : ms(iv.toUs), duplicates: iv.duplicates })),
          orderly: grp.consumeMode === "ORDERLY" ? orderlyQueue(rec, grp, mq, history, nowUs) : null,
          ...filterField(queueFilterBooks(cl, grp, topic, mq)),
        });
      }
    }
  }
  return rows;
}

const filterField = (filter: QueueFilterBooks | undefined) => (filter === undefined ? {} : { filter });

function orderlyQueue(rec: Recorder, grp: GroupModel, mq: number, history: readonly OwnerInterval[], nowUs: number): OrderlyQueue {
  const broadcasting = grp.messageModel === "BROADCASTING";
  let suspends = 0;
  let longestUs = 0;
  for (const s of rec.fates.subjectsOf(grp.index)) {
    suspends += rec.orderly.suspends(s, mq);
    longestUs = Math.max(longestUs, rec.orderly.longestBlockUs(s, mq, nowUs));
  }
  let lockState: QueueLockState = "none";
  const locks: OrderlyQueue["locks"] = [];
  for (const iv of history) {
    // A broadcasting owner that never reported a lock needs none: it is left out.
    if (broadcasting && iv.lock === undefined) continue;
    const spans = lockTimeline(iv, nowUs);
    for (const sp of spans) locks.push({ clientId: iv.clientId, state: sp.state, fromMs: ms(sp.fromUs), toMs: sp.toUs === null ? null : ms(sp.toUs) });
    const final = spans.at(-1)!.state;
    if (iv.toUs === null && LOCK_RANK[final] > LOCK_RANK[lockState]) lockState = final;
  }
  return { suspends, longestHeadBlockMs: r3(longestUs / 1000), lockState, locks };
}
