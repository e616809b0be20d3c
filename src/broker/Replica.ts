// A broker node's place in its group (broker spec §4, §5): its brokerId (0 = master), how much of the
// master's commit log it holds, where it believes the master is, and when it copies the master's
// offsets (SlaveSynchronize, §4.7). One per node of a group with replicas; a broker without replicas
// has none and is always its group's master.
//
// Replication is a lag, not a byte stream: a slave holds every message the master stored up to
// `now − lag` (one draw of the group's lag per look), never going back; while the HA link is down (the
// master crashed, a replicationStall) the point stays where it was and catches up when it heals. The
// nodes share one commit log (MessageStore) and a slave reads its prefix: the copy below the point.
import type { Rng } from "../sim/streams.ts";
import type { Dist } from "../scenario/distKinds.ts";
import type { Profile, ReplicationModel } from "../scenario/types.ts";
import type { QueueStore } from "./QueueStore.ts";

/** registerNameServerPeriod 30 s, the first 10 s after start (BrokerController#start; §4.7). */
export const REGISTER_FIRST_US = 10_000_000;
export const REGISTER_PERIOD_US = 30_000_000;

/**
 * SlaveSynchronize's cadence (§4.7, §5): the timer's first run and period, and the least time since the
 * last sync for a run to sync. 4.x: every 10 s from 3 s. 5.x classic slave: a 3 s task from 10 s that
 * syncs when more than 60 s passed (lastSyncTimeMs starts at construction); DLedger followers and
 * controller-mode slaves: the same task gated at 10 s.
 */
export function syncCadenceUs(profile: Profile, electedRoles: boolean): { firstUs: number; periodUs: number; gateUs: number } {
  if (profile !== "5.x") return { firstUs: 3_000_000, periodUs: 10_000_000, gateUs: 0 };
  return { firstUs: 10_000_000, periodUs: 3_000_000, gateUs: electedRoles ? 10_000_000 : 60_000_000 };
}

export class Replica {
  /** brokerId: 0 the master, ≥ 1 a slave. */
  brokerId: number;
  /** The master's address from this node's last registration (−1: none, or itself). */
  masterAddr = -1;
  /** When SlaveSynchronize last copied the master's tables (µs); −1 never. */
  lastSyncUs = 0;
  /** Whether roles are elected (DLedger, or a controller after a failover): the sync gate is 10 s in 5.x. */
  electedRoles: boolean;
  /**
   * 5.x slave-acting-master (§4.10): this slave is the group's smallest live id while the master is
   * gone, so minBrokerIdInGroup ≠ 0 — it answers pulls like a master would (held when caught up).
   */
  acting = false;
  /** Master appends up to this time are in this node's commit log. */
  private upToUs = 0;
  private linkDown = false;
  /** The slave's max offset per queue as last computed (never decreases but by a truncation). */
  private readonly cap: Float64Array;

  constructor(
    readonly model: ReplicationModel,
    brokerId: number,
    queueCount: number,
    private readonly lag: Dist,
    private readonly rng: Rng,
    /** 4.x SYNC_MASTER (5.x's inSyncReplicas 1 acknowledges like ASYNC_MASTER, §4.2). */
    private readonly syncMaster = false,
  ) {
    this.brokerId = brokerId;
    this.electedRoles = model.mode === "dledger";
    this.cap = new Float64Array(queueCount);
  }

  get isSlave(): boolean {
    return this.brokerId !== 0;
  }

  /** How far this node's copy of the commit log reaches (time of the master's last append it holds). */
  replicatedUpTo(nowUs: number): number {
    if (!this.linkDown) {
      // A 4.x SYNC_MASTER answers a send only once a slave holds it (§4.2): nothing acknowledged is missing.
      const t = this.syncMaster ? nowUs : nowUs - this.lag.sample(this.rng);
      if (t > this.upToUs) this.upToUs = t;
    }
    return this.upToUs;
  }

  /** The HA link breaks (the master died, a stall): the copy stops where it is now. */
  breakLink(nowUs: number): void {
    if (this.linkDown) return;
    this.replicatedUpTo(nowUs);
    this.linkDown = true;
  }

  /** The HA link is back: the copy catches up from now on. */
  healLink(): void {
    this.linkDown = false;
  }

  get haLinkDown(): boolean {
    return this.linkDown;
  }

  /** A slave's max offset of a queue: the messages of the shared log it holds. */
  visibleMax(q: QueueStore, mq: number, nowUs: number): number {
    const upTo = this.replicatedUpTo(nowUs);
    let c = this.cap[mq]!;
    if (c > q.maxOffset) c = q.maxOffset; // the log lost its tail
    // The first message born after upTo: every one before it is held.
    c = q.firstBornAtOrAfter(c, upTo + 1e-6);
    this.cap[mq] = c;
    return c;
  }

  /** It is made master: it now holds everything the group's log has (the tail beyond it was cut). */
  promoted(): void {
    this.brokerId = 0;
    this.linkDown = false;
  }

  demoted(brokerId: number, nowUs: number): void {
    this.brokerId = brokerId;
    this.upToUs = nowUs;
    this.cap.fill(0);
  }
}
