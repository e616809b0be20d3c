// The broker locks of an orderly CLUSTERING consumer (spec §8.1, §8.5, §10.5): lock(mq) before a queue
// is added and before an unlocked queue is consumed again, lockAll every REBALANCE_LOCK_INTERVAL over the
// ProcessQueue table, unlock when a queue is removed (4.9: after 20 s if it still had cached messages;
// 5.x: at once, or forced once its lock is 20 s old), unlockAll at shutdown. A lock answer marks every
// queue it names that has a ProcessQueue as locked now; lockAll's answer also marks the queues it left
// out as not locked.
import type { NodeContext } from "../net/Node.ts";
import { RequestCode } from "../protocol/codes.ts";
import { LockBatchRequest, UnlockBatchRequest, type LockBatchResponse } from "../protocol/commands.ts";
import type { Routes } from "../protocol/routes.ts";
import { CLIENT_CONSTANTS } from "../scenario/defaults.ts";
import type { Profile } from "../scenario/types.ts";
import type { ClientObserver } from "./ClientObserver.ts";
import type { ConsumeService } from "./ConsumeService.ts";
import type { RouteView } from "./RouteView.ts";
import type { ProcessQueue } from "./ProcessQueue.ts";
import type { RemoteBrokerOffsetStore } from "./RemoteBrokerOffsetStore.ts";
import { ClientTimer } from "./timers.ts";

/** LOCK_BATCH_MQ cookies: kind + LOCK_COOKIE_KINDS × number. */
export const LOCK_COOKIE_KINDS = 4;
export const LockCookie = { rebalance: 0, lockAll: 1, reconsume: 2 } as const;

export interface LockHost {
  readonly group: number;
  readonly clientId: string;
  readonly profile: Profile;
  readonly addr: number;
  readonly offsetStore: RemoteBrokerOffsetStore;
  readonly consumeService: ConsumeService;
  /** Trace type of a lock-state change (defined on first use). */
  lockTraceType(): number;
  /** A request that failed before it left (the broker refused the connection): its failure, now. */
  failNow(requestCode: number, cookie: number): void;
  /** Broker nodes as the instance knows them (absent in unit fakes: every broker is its own node). */
  readonly route?: RouteView;
}

export class QueueLocks {
  private lockAllSerial = 0;
  /** What each lockAll request asked, by serial (queues left out of the answer lose their lock). */
  private readonly lockAllAsked = new Map<number, number[]>();
  private readonly delayedUnlocks = new Map<number, number>();
  private delayedNext = 0;

  constructor(
    private readonly host: LockHost,
    private readonly ctx: NodeContext,
    private readonly routes: Routes,
    private readonly observer: ClientObserver,
    /** RebalanceImpl's processQueueTable. */
    private readonly table: ReadonlyMap<number, ProcessQueue>,
  ) {}

  /** lock(mq): LOCK_BATCH_MQ with one queue to its broker (time-out 1 s), answered to `kind` with `n`. */
  lock(mq: number, kind: number, n: number): void {
    this.request(this.routes.brokerOf(mq), new LockBatchRequest(this.host.group, this.host.clientId, [mq]), kind + LOCK_COOKIE_KINDS * n);
  }

  /** lockBatchMQ: a synchronous RPC; a refused connection fails it at once, a lost one at its time-out. */
  private request(group: number, req: LockBatchRequest, cookie: number): void {
    // findBrokerAddressInSubscribe(name, MASTER_ID, onlyThisBroker = true): no master, no lock (§4.5).
    const broker = this.host.route === undefined ? group : this.host.route.masterNode(req.mqs[0]!);
    if (broker < 0 || !this.ctx.canConnect(broker)) return this.host.failNow(RequestCode.LOCK_BATCH_MQ, cookie);
    this.ctx.request(broker, req, CLIENT_CONSTANTS.LOCK_RPC_TIMEOUT * 1000, cookie);
  }

  /** lockAll (§8.5): one LOCK_BATCH_MQ per broker over the table (5.x leaves dropped queues out; 4.9 does not). */
  lockAll(): void {
    for (const [broker, mqs] of this.byBroker()) {
      const serial = this.lockAllSerial++;
      this.lockAllAsked.set(serial, mqs);
      this.request(broker, new LockBatchRequest(this.host.group, this.host.clientId, mqs), LockCookie.lockAll + LOCK_COOKIE_KINDS * serial);
    }
  }

  /** The table's queues by broker, ascending; dropped ones only in 4.9 (buildProcessQueueTableByBrokerName). */
  private byBroker(): Map<number, number[]> {
    const out = new Map<number, number[]>();
    const keys = [...this.table.keys()].sort((a, b) => a - b);
    for (const mq of keys) {
      if (this.host.profile === "5.x" && this.table.get(mq)!.dropped) continue;
      const b = this.routes.brokerOf(mq);
      let list = out.get(b);
      if (!list) out.set(b, (list = []));
      list.push(mq);
    }
    return out;
  }

  /**
   * An answer to LOCK_BATCH_MQ (null: time-out or error, nothing changes): the queues it locked are
   * locked now. Returns the locked set, or null on failure.
   */
  onAnswer(cookie: number, response: LockBatchResponse | null): ReadonlySet<number> | null {
    const kind = cookie % LOCK_COOKIE_KINDS;
    const n = Math.floor(cookie / LOCK_COOKIE_KINDS);
    const asked = kind === LockCookie.lockAll ? this.lockAllAsked.get(n) : undefined;
    if (kind === LockCookie.lockAll) this.lockAllAsked.delete(n);
    if (response === null) return null;
    const now = this.ctx.nowUs;
    const locked = new Set(response.lockOKMQSet);
    for (const mq of response.lockOKMQSet) {
      const pq = this.table.get(mq);
      if (pq === undefined) continue;
      if (!pq.locked) this.ctx.trace.emit(this.host.lockTraceType(), now, mq, this.host.addr, 1, 0);
      pq.locked = true;
      pq.lastLockTimestampUs = now;
      this.observer.lockRefreshed(this.host.group, mq, this.host.addr, now);
    }
    if (asked !== undefined) {
      for (const mq of asked) {
        const pq = this.table.get(mq);
        if (pq === undefined || locked.has(mq)) continue;
        this.setUnlocked(mq, pq);
      }
    }
    return locked;
  }

  private setUnlocked(mq: number, pq: ProcessQueue): void {
    if (!pq.locked) return;
    pq.locked = false;
    this.observer.lockLost(this.host.group, mq, this.host.addr, this.ctx.nowUs);
    this.ctx.trace.emit(this.host.lockTraceType(), this.ctx.nowUs, mq, this.host.addr, 0, 0);
  }

  /** unlock(mq, oneway): UNLOCK_BATCH_MQ for one queue. */
  unlock(mq: number): void {
    const node = this.host.route?.masterNode(mq) ?? this.routes.brokerOf(mq);
    if (node >= 0) this.ctx.send(node, new UnlockBatchRequest(this.host.group, this.host.clientId, [mq]));
  }

  /** unlockAll at shutdown (§8.1, broker spec §8.2): one UNLOCK_BATCH_MQ per broker over the table. */
  unlockAll(): void {
    for (const [, mqs] of this.byBroker()) {
      const node = this.host.route?.masterNode(mqs[0]!) ?? this.routes.brokerOf(mqs[0]!);
      if (node >= 0) this.ctx.send(node, new UnlockBatchRequest(this.host.group, this.host.clientId, mqs));
    }
  }

  /**
   * Whether removal gets the queue's consumeLock within `waitMs`: no listener call holds it, or the one
   * that does ends within the wait. The model removes at once instead of after that wait (≤ 1 s early).
   */
  private consumeLockWithin(pq: ProcessQueue, waitMs: number): boolean {
    const until = this.host.consumeService.consumeLockBusyUntil(pq);
    return until < 0 || until - this.ctx.nowUs <= waitMs * 1000;
  }

  /** removeUnnecessaryMessageQueue for an orderly CLUSTERING queue (§10.5); false: it stays in the table. */
  removeOrderly(mq: number, pq: ProcessQueue): boolean {
    const store = this.host.offsetStore;
    const now = this.ctx.nowUs;
    if (this.host.profile !== "5.x") {
      store.persist(mq);
      store.removeOffset(mq);
      if (!this.consumeLockWithin(pq, CLIENT_CONSTANTS.CONSUME_LOCK_WAIT_49)) {
        pq.tryUnlockTimes++;
        return false;
      }
      if (pq.hasTempMessage) {
        // unlockDelay: cached messages may still be consumed elsewhere soon; unlock in 20 s.
        this.delayedUnlocks.set(this.delayedNext, mq);
        this.ctx.timer(CLIENT_CONSTANTS.UNLOCK_DELAY_TIME_MILLS * 1000, ClientTimer.UNLOCK_DELAYED, this.delayedNext++);
      } else this.unlock(mq);
      return true;
    }
    store.persist(mq);
    const force = pq.dropped && now > pq.lastLockTimestampUs + CLIENT_CONSTANTS.UNLOCK_DELAY_TIME_MILLS * 1000;
    if (!force && !this.consumeLockWithin(pq, CLIENT_CONSTANTS.CONSUME_LOCK_WAIT_5X)) {
      pq.tryUnlockTimes++;
      return false;
    }
    store.persist(mq);
    store.removeOffset(mq);
    this.setUnlocked(mq, pq);
    this.unlock(mq);
    return true;
  }

  /** 4.9's delayed unlock is due (whoever holds the queue by then: the same client id loses its lock). */
  onDelayedUnlock(ticket: number): void {
    const mq = this.delayedUnlocks.get(ticket);
    if (mq === undefined) return;
    this.delayedUnlocks.delete(ticket);
    this.unlock(mq);
  }
}
