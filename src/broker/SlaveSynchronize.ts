// SlaveSynchronize (broker spec §4.7) and the registration that tells a node where its master is: a
// node of a group with replicas registers every 30 s (first after 10 s) and learns the master's address
// from the answer; while it is a slave it asks that master for its consumer offsets and delay offsets
// on its sync cadence (syncCadenceUs) and replaces its own with them. A returning master reads only its
// own files (§4.9): nothing flows from a slave back to a master.
import type { NodeContext } from "../net/Node.ts";
import { RequestCode } from "../protocol/codes.ts";
import { GetAllConsumerOffsetRequest, type GetAllConsumerOffsetResponse } from "../protocol/commands.ts";
import type { NameServer } from "../protocol/NameServer.ts";
import type { Profile } from "../scenario/types.ts";
import type { ConsumerOffsetManager } from "./ConsumerOffsetManager.ts";
import { REGISTER_FIRST_US, REGISTER_PERIOD_US, syncCadenceUs, type Replica } from "./Replica.ts";
import type { ScheduleMessageService } from "./ScheduleMessageService.ts";

/** The time-out of the sync RPCs (mqClientApiTimeout-like, BrokerOuterAPI's 3 s). */
export const SYNC_RPC_TIMEOUT_US = 3_000_000;

export class SlaveSynchronize {
  /** Completed syncs (for the summary). */
  syncs = 0;
  private inFlight = false;

  constructor(
    private readonly ctx: NodeContext,
    private readonly replica: Replica,
    private readonly nameServer: NameServer,
    private readonly group: number,
    private readonly profile: Profile,
    private readonly offsets: ConsumerOffsetManager,
    private readonly schedule: ScheduleMessageService,
    private readonly timers: { register: number; sync: number },
  ) {}

  /** Both timers, from the node's start. */
  start(): void {
    this.ctx.timer(REGISTER_FIRST_US, this.timers.register);
    this.ctx.timer(syncCadenceUs(this.profile, this.replica.electedRoles).firstUs, this.timers.sync);
  }

  /** registerBrokerAll: the answer carries the master's address (none: −1; itself: −1 too). */
  onRegister(down: boolean): void {
    if (!down) this.register();
    this.ctx.timer(REGISTER_PERIOD_US, this.timers.register);
  }

  register(): void {
    const m = this.nameServer.master(this.group);
    this.replica.masterAddr = m === this.ctx.addr ? -1 : m;
  }

  onSyncTimer(down: boolean): void {
    const cadence = syncCadenceUs(this.profile, this.replica.electedRoles);
    const now = this.ctx.nowUs;
    // A stalled HA link stands for the network between the two: the sync RPC does not get through either.
    const reachable = this.replica.masterAddr >= 0 && !this.replica.haLinkDown;
    if (!down && this.replica.isSlave && !this.inFlight && now - this.replica.lastSyncUs > cadence.gateUs && reachable) {
      if (cadence.gateUs > 0) this.replica.lastSyncUs = now; // 5.x stamps the attempt (lastSyncTimeMs)
      this.inFlight = true;
      this.ctx.request(this.replica.masterAddr, new GetAllConsumerOffsetRequest(), SYNC_RPC_TIMEOUT_US, 0);
    }
    this.ctx.timer(cadence.periodUs, this.timers.sync);
  }

  /** The master's tables (null: the RPC failed — only logged in RocketMQ). */
  onAnswer(resp: GetAllConsumerOffsetResponse | null, down: boolean): void {
    this.inFlight = false;
    if (resp === null || down || !this.replica.isSlave) return;
    this.offsets.syncFrom(resp.offsets, this.profile === "5.x" ? resp.dataVersion : undefined);
    this.schedule.syncFrom(resp.delayOffsets);
    this.replica.lastSyncUs = this.ctx.nowUs;
    this.syncs++;
  }

  /** The node died: an answer in flight will never be read. */
  reset(): void {
    this.inFlight = false;
  }

  isAnswer(requestCode: number): boolean {
    return requestCode === RequestCode.GET_ALL_CONSUMER_OFFSET;
  }
}

/** A node's tables, as the pre-online RPCs read them. */
interface NodeTables {
  readonly offsets: ConsumerOffsetManager;
  readonly scheduleService: ScheduleMessageService;
}

/**
 * BrokerPreOnlineService#prepareForMasterOnline (5.x acting master, broker spec §4.10): a returning master
 * fetches the acting slave's consumer offsets and delay offsets and adopts them when its own DataVersion
 * is not newer (compare ≤ 0; both tables judged by the offsets' version). The model reads the slave's
 * tables as its RPCs would return them.
 */
export function prepareForMasterOnline(master: NodeTables, slave: NodeTables): void {
  if (master.offsets.dataVersion > slave.offsets.dataVersion) return;
  master.offsets.syncFrom(slave.offsets.snapshot(), slave.offsets.dataVersion);
  master.scheduleService.syncFrom(slave.scheduleService.encode());
}
