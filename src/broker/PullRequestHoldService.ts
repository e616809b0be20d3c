// PullRequestHoldService's bookkeeping (spec §13.4): the pulls a broker holds per queue, how far new
// messages were announced to them, and which queues got a message while someone was held on them
// (the reput thread's notifyMessageArriving visits only those). The processor decides what to hold and
// what to answer; this class only keeps the lists.

import type { PullMessageRequest } from "../protocol/commands.ts";

/** A PULL_MESSAGE as the broker keeps it while it works on it or holds it (the broker's PullRequest). */
export class BrokerPullRequest {
  /** The request (to answer), with its header. */
  req!: PullMessageRequest;
  /** The message filter in force for this pull: accepted tag indexes, null = every message. */
  tagSet: ReadonlySet<number> | null = null;
  holdSinceUs = 0;
  holdTimeoutUs = 0;
}

export class PullRequestHoldService {
  /** Held requests by global queue index. */
  private readonly held: (BrokerPullRequest[] | null)[];
  private readonly spareLists: BrokerPullRequest[][] = [];
  /** The offset up to which arrivals were announced to each queue's holders. */
  private readonly notifiedUpTo: Float64Array;
  /** Held requests per topic (is anyone waiting for the topic's next arrival?). */
  private readonly heldPerTopic: Int32Array;
  /** Queues that got a message while held (waiting for the arrival wake-up). */
  private readonly arrived: Uint8Array;
  private readonly free: BrokerPullRequest[] = [];

  constructor(queueCount: number, topicCount: number) {
    this.held = new Array<BrokerPullRequest[] | null>(queueCount).fill(null);
    this.notifiedUpTo = new Float64Array(queueCount);
    this.heldPerTopic = new Int32Array(topicCount);
    this.arrived = new Uint8Array(queueCount);
  }

  /** A broker-side pull record to fill (returns to the free list with `recycle`). */
  take(): BrokerPullRequest {
    return this.free.pop() ?? new BrokerPullRequest();
  }

  recycle(p: BrokerPullRequest): void {
    this.free.push(p);
  }

  /** suspendPullRequest: `maxOffset` is the queue's max offset now (arrivals before it need no notice). */
  hold(p: BrokerPullRequest, topic: number, maxOffset: number): void {
    const mq = p.req.mq;
    let list = this.held[mq];
    if (list === null || list === undefined) {
      list = this.spareLists.pop() ?? [];
      this.held[mq] = list;
    }
    if (list.length === 0 && this.notifiedUpTo[mq]! < maxOffset) this.notifiedUpTo[mq] = maxOffset;
    list.push(p);
    this.heldPerTopic[topic]!++;
  }

  heldCount(mq: number): number {
    return this.held[mq]?.length ?? 0;
  }

  heldOnTopic(topic: number): number {
    return this.heldPerTopic[topic]!;
  }

  /** Takes the held list of a queue (the caller re-holds what it keeps, then gives the list back). */
  takeHeld(mq: number, topic: number): BrokerPullRequest[] | null {
    const list = this.held[mq];
    if (list === null || list === undefined || list.length === 0) return null;
    this.held[mq] = null;
    this.heldPerTopic[topic]! -= list.length;
    return list;
  }

  giveBack(list: BrokerPullRequest[]): void {
    // pop, not `length = 0`: V8 inlines pop, while a length store calls into the runtime (measurable
    // at one give-back per arrival wake-up); the list is short (the requests held on one queue).
    while (list.length > 0) list.pop();
    this.spareLists.push(list);
  }

  /** A message was stored on `mq`: true if someone is held there and the queue was not yet marked. */
  markArrived(mq: number): boolean {
    if (this.heldCount(mq) === 0 || this.arrived[mq] === 1) return false;
    this.arrived[mq] = 1;
    return true;
  }

  /** Clears the arrival mark; returns the offset up to which arrivals were already announced. */
  takeArrived(mq: number): number {
    this.arrived[mq] = 0;
    return this.notifiedUpTo[mq]!;
  }

  setNotifiedUpTo(mq: number, offset: number): void {
    this.notifiedUpTo[mq] = offset;
  }

  /** A crashed broker forgets every held request, in queue order; `drop` learns of each one. */
  dropAll(drop: (req: PullMessageRequest) => void): void {
    for (let mq = 0; mq < this.held.length; mq++) {
      const list = this.held[mq];
      if (list === null || list === undefined) continue;
      for (const p of list) {
        drop(p.req);
        this.recycle(p);
      }
      list.length = 0;
    }
    this.heldPerTopic.fill(0);
  }
}
