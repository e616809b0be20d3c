// The composition root: builds the routes, the brokers, every consumer instance slot a scenario may use,
// the producers and the transport between them from a normalised scenario, starts them, and replaces a
// consumer instance with a new incarnation when one restarts. Components talk to each other only through
// the transport; the cluster holds no state of theirs.
//
// Equal-time events run in scheduling order (the kernel's FIFO tie-break); the order of `start()` —
// brokers' hold checks, their housekeeping, consumer starts in (group, instance) order, retention, then
// storage reclamation — fixes the order of the first events, and every periodic event keeps its place.
import { Broker, type BrokerReplication } from "../broker/Broker.ts";
import { Replica } from "../broker/Replica.ts";
import { ScheduleLog } from "../broker/ScheduleMessageService.ts";
import type { MessageStore } from "../broker/MessageStore.ts";
import { NameServer } from "../protocol/NameServer.ts";
import { nodesOf, type NodeModel } from "../scenario/types.ts";
import type { BrokerObserver } from "../broker/BrokerObserver.ts";
import { BrokerFilters } from "../broker/messageFilter.ts";
import { makeStrategy, type AllocateStrategy } from "../client/allocate/strategies.ts";
import { ClientStats, type ClientObserver } from "../client/ClientObserver.ts";
import { ConsumeListeners } from "../client/ConsumeListeners.ts";
import type { LocalOffsetFile } from "../client/LocalFileOffsetStore.ts";
import { PushConsumer, type ConsumerSetup } from "../client/PushConsumer.ts";
import { ClientTimer } from "../client/timers.ts";
import { Network } from "../net/Network.ts";
import { Transport } from "../net/Transport.ts";
import { brokerAddr, clientAddr } from "../protocol/address.ts";
import { Routes } from "../protocol/routes.ts";
import type { Model } from "../scenario/types.ts";
import { Scheduler } from "../sim/Scheduler.ts";
import { RandomStreams } from "../sim/streams.ts";
import { Trace } from "../sim/Trace.ts";
import { Producers } from "./Producers.ts";
import { StorageReclaimer } from "./StorageReclaimer.ts";

/** Whoever keeps the run's books: told of every message's fate-relevant moments by brokers and clients. */
export interface ClusterObserver extends BrokerObserver, ClientObserver {}

export class Cluster {
  readonly sched: Scheduler;
  readonly streams: RandomStreams;
  readonly trace = new Trace();
  readonly routes: Routes;
  readonly net: Network;
  readonly transport: Transport;
  /** Each broker group's current master node (the node producers write to; the last one while none is up). */
  readonly brokers: Broker[] = [];
  /** Every broker node, by address: masters first (node b = broker b's first master), then replicas. */
  readonly nodes: Broker[] = [];
  readonly nodeModels: NodeModel[];
  /** The name server's broker table; null when no broker has replicas (nothing ever changes in it). */
  readonly nameServer: NameServer | null;
  /** Every role change of a node of a group with replicas: what the charts and the summary draw. */
  readonly nodeLog: { tUs: number; node: number; state: "master" | "slave" | "down" }[] = [];
  /** The current incarnation of every consumer instance slot. */
  readonly consumers: PushConsumer[] = [];
  /** Every incarnation ever created, in creation order (dead ones may still have pulls in flight). */
  readonly incarnations: PushConsumer[] = [];
  readonly producers: Producers;
  /** The application's listeners (faults change them). */
  readonly listeners: ConsumeListeners;
  readonly clientStats = new ClientStats();
  /** The brokers' filter data (tag hash codes, SQL92) and its books, shared by every node. */
  readonly filters: BrokerFilters;
  readonly reclaimer: StorageReclaimer;
  /** Each instance slot's local offset file (BROADCASTING, §12.2): its host's disk, kept across restarts. */
  readonly localOffsetFiles: LocalOffsetFile[] = [];
  /** Rebalance counters of incarnations that were replaced. */
  retiredRebalanceRuns = 0;
  retiredRebalanceChanges = 0;
  private readonly strategies: AllocateStrategy<number>[];

  constructor(
    readonly model: Model,
    readonly observer: ClusterObserver,
    options: { maxEvents?: number; routes?: Routes } = {},
  ) {
    this.sched = new Scheduler({ maxEvents: options.maxEvents, initialCapacity: 4096 });
    this.streams = new RandomStreams(model.seed);
    this.routes = options.routes ?? new Routes(model);
    const slots = model.groups.flatMap((g) => g.clientIds.slice(0, g.instancesMax));
    this.nodeModels = nodesOf(model);
    this.nameServer = this.nodeModels.length > model.brokers.length ? new NameServer(model.brokers.length) : null;
    this.net = new Network(model.latency, this.streams, slots, this.nodeModels.map((n) => n.name));
    this.transport = new Transport(this.sched, this.net, this.trace, this.streams);
    this.listeners = new ConsumeListeners(model.groups, model.seed);
    this.strategies = model.groups.map((g) =>
      makeStrategy<number>(g.allocate, (mq) => {
        const q = this.routes.queues[mq]!;
        return { topic: q.topic, brokerName: q.brokerName, queueId: q.queueId };
      }),
    );
    this.producers = new Producers(model, this.routes, this.brokers, this.sched, this.streams);
    const groupStores: MessageStore[] = [];
    this.filters = new BrokerFilters(model, this.routes.queues.length);
    const groupLogs: ScheduleLog[] = [];
    for (const n of this.nodeModels) {
      const b = model.brokers[n.broker]!;
      const addr = brokerAddr(n.index);
      let replication: BrokerReplication | undefined;
      if (b.replication !== undefined) {
        const syncMaster = b.replication.brokerRole === "SYNC_MASTER" && model.profile !== "5.x";
        const replica = new Replica(b.replication, n.brokerId, this.routes.queues.length, b.replication.lag, this.streams.get(`broker/${n.name}/replication`), syncMaster);
        groupLogs[n.broker] ??= new ScheduleLog(b.delayLevelsUs.length);
        replication = { node: n.index, replica, nameServer: this.nameServer!, store: groupStores[n.broker] ?? null, scheduleLog: groupLogs[n.broker]! };
      }
      const broker = new Broker(this.transport.context(addr), b, this.routes, model.profile, this.producers, observer, replication);
      if (model.phase === "random") broker.phases = this.streams.get(`phase/broker/${n.name}`);
      groupStores[n.broker] ??= broker.store;
      broker.processor.filters = this.filters;
      broker.processor.checks.groups.load(model.groups); // the groups' SubscriptionGroupConfig
      this.transport.attach(addr, broker);
      this.nodes.push(broker);
      if (n.brokerId === 0) this.brokers.push(broker);
      if (this.nameServer !== null && b.replication !== undefined) {
        this.nameServer.register(n.broker, n.brokerId, n.index);
        this.nodeLog.push({ tUs: 0, node: n.index, state: n.brokerId === 0 ? "master" : "slave" });
      }
    }
    if (this.nameServer !== null) {
      for (const n of this.nodeModels) if (model.brokers[n.broker]!.replication === undefined) this.nameServer.register(n.broker, 0, n.index);
    }
    // Every instance a group may ever run (scale faults included) exists from the start, so links and
    // streams are fixed; those beyond `instances` start only when a fault starts them.
    for (const g of model.groups) {
      for (let i = 0; i < g.instancesMax; i++) this.incarnate(this.consumers.length, 0, i, g.clientIds[i]!, g.index);
    }
    this.producers.seedBacklogs(model);
    this.reclaimer = new StorageReclaimer(this);
  }

  /** Schedules the first events: hold checks, housekeeping, consumer starts, retention, reclamation. */
  start(): void {
    for (const b of this.nodes) b.startHoldService();
    for (const b of this.nodes) b.startHousekeeping();
    for (const c of this.consumers) {
      if (c.instance < c.groupModel.instances) c.ctx.timerAt(c.groupModel.startAtUs, ClientTimer.START);
    }
    for (const b of this.nodes) b.startRetention();
    this.reclaimer.start();
  }

  /** Brings lazy state (produced messages) up to now, so observers see every message born so far. */
  settle(): void {
    this.producers.advanceTo(this.sched.nowUs);
  }

  /** Replaces a consumer instance with a fresh incarnation (a restarted JVM), not yet started. */
  reincarnate(slot: number, clientId?: string): PushConsumer {
    const old = this.consumers[slot]!;
    // Replaced before it ever started: its pending initial START must not bring it up beside the new one.
    if (old.state === "CREATE_JUST") old.alive = false;
    this.retiredRebalanceRuns += old.rebalance.runs;
    this.retiredRebalanceChanges += old.rebalance.changes;
    return this.incarnate(slot, old.epoch + 1, old.instance, clientId ?? old.clientId, old.group);
  }

  /**
   * Starts a fresh incarnation when its slot's initial start is still ahead (a group's startAt), else
   * now; returns whether the start was deferred.
   */
  startIncarnation(c: PushConsumer): boolean {
    if (c.instance < c.groupModel.instances && this.sched.nowUs < c.groupModel.startAtUs) {
      c.ctx.timerAt(c.groupModel.startAtUs, ClientTimer.START);
      return true;
    }
    c.start();
    return false;
  }

  private incarnate(slot: number, epoch: number, instance: number, clientId: string, group: number): PushConsumer {
    const setup: ConsumerSetup = {
      routes: this.routes, profile: this.model.profile, listeners: this.listeners,
      stats: this.clientStats, observer: this.observer, strategy: this.strategies[group]!,
      localOffsetFile: (this.localOffsetFiles[slot] ??= new Map()), nameServer: this.nameServer, randomPhase: this.model.phase === "random",
    };
    const addr = clientAddr(slot, epoch);
    const c = new PushConsumer(this.transport.context(addr), slot, epoch, this.model.groups[group]!, instance, clientId, setup);
    this.transport.attach(addr, c);
    this.consumers[slot] = c;
    this.incarnations.push(c);
    return c;
  }

  /** Crashes broker b's master node (see crashNode). */
  crashBroker(b: number, loseSinceUs = Infinity): number {
    return this.crashNode(this.brokers[b]!.node, loseSinceUs);
  }

  restartBroker(b: number): void {
    this.restartNode(this.brokers[b]!.node);
  }

  /**
   * A broker node's process dies: it forgets what it held; requests it owed answers to fail at their
   * time-outs. The name server drops it at once (its channel closed, broker spec §4.5); a master's
   * slaves lose their HA link. With `loseSinceUs` the commit-log tail stored since then is lost.
   * Returns the messages lost.
   */
  crashNode(n: number, loseSinceUs = Infinity): number {
    const node = this.nodes[n]!;
    const lost = node.crash(loseSinceUs);
    this.transport.setBrokerDown(n, true);
    if (node.replica !== null) {
      const wasActing = node.replica.acting;
      node.replica.acting = false;
      if (!node.isSlave) for (const s of this.groupNodes(node.index)) s.replica!.breakLink(this.sched.nowUs);
      this.nameServerChanged(() => this.nameServer!.unregister(n));
      this.nodeLog.push({ tUs: this.sched.nowUs, node: n, state: "down" });
      if ((!node.isSlave || wasActing) && node.replica.model.actingMaster && this.brokers[node.index]!.down) this.actAsMaster(node.index);
    }
    this.producers.brokerStateChanged();
    return lost;
  }

  /** The node's process starts again with what its disk held; a master that was replaced returns as a slave. */
  restartNode(n: number): void {
    const node = this.nodes[n]!;
    const b = node.index;
    if (node.replica !== null && !node.isSlave && this.brokers[b] !== node) node.becomeSlave(this.freeBrokerId(b));
    const acting = node.replica !== null && this.brokers[b] === node ? this.groupNodes(b).find((x) => x.replica!.acting) : undefined;
    node.restart(acting);
    if (acting !== undefined) {
      // The master is online again (after its pre-online sync): the acting slave steps back to its id.
      acting.replica!.acting = false;
      this.nameServerChanged(() => this.nameServer!.register(b, acting.replica!.brokerId, acting.node));
    }
    this.transport.setBrokerDown(n, false);
    if (node.replica !== null) {
      if (!node.isSlave) for (const s of this.groupNodes(b)) if (s !== node) s.replica!.healLink();
      this.nameServerChanged(() => this.nameServer!.register(b, node.replica!.brokerId, n));
      this.nodeLog.push({ tUs: this.sched.nowUs, node: n, state: node.isSlave ? "slave" : "master" });
    }
    this.producers.brokerStateChanged();
  }

  /**
   * A slave of group b becomes its master (roleSwap by hand, a controller's failover, a DLedger
   * election — broker spec §4.9–§4.11, §5): the first live slave by brokerId takes id 0 with what it
   * has — consumer offsets and delay offsets of its last sync plus commits sent to it directly; in
   * classic mode the log's tail it never received is gone (a DLedger node holds every committed
   * entry). The old master, up or down, is a slave from now on. Returns a description, or null when no
   * slave is up.
   */
  promoteSlave(b: number, electedRoles: boolean): string | null {
    const old = this.brokers[b]!;
    const next = this.groupNodes(b).filter((x) => x.isSlave && !x.down).sort((x, y) => x.replica!.brokerId - y.replica!.brokerId)[0];
    if (next === undefined) return null;
    const now = this.sched.nowUs;
    let lost = 0;
    if (next.replica!.model.mode === "classic") {
      this.settle();
      lost = next.loseTail(next.replica!.replicatedUpTo(now) + 1e-6);
    }
    const nextId = next.replica!.brokerId;
    for (const x of this.groupNodes(b)) if (electedRoles) x.replica!.electedRoles = true;
    old.becomeSlave(nextId);
    next.becomeMaster();
    this.brokers[b] = next;
    for (const s of this.groupNodes(b)) if (s !== next) (next.down ? s.replica!.breakLink(now) : s.replica!.healLink());
    this.nameServerChanged(() => {
      this.nameServer!.register(b, 0, next.node);
      if (!old.down) this.nameServer!.register(b, nextId, old.node);
    });
    this.nodeLog.push({ tUs: now, node: next.node, state: "master" });
    if (!old.down) this.nodeLog.push({ tUs: now, node: old.node, state: "slave" });
    this.producers.brokerStateChanged();
    return `${this.nodeModels[next.node]!.name} is master${lost > 0 ? `; ${lost} message(s) it never received are gone` : ""}`;
  }

  /**
   * 5.x slave-acting-master (broker spec §4.10): the group's master is gone, so its smallest live slave
   * is presented to clients as brokerId 0 — consumers commit, query and lock there; producers see no
   * writable queue (its registration wipes PERM_WRITE). Its special services (the schedule service via
   * EscapeBridge) are not modelled: delayed messages wait for the master.
   */
  private actAsMaster(b: number): void {
    const s = this.groupNodes(b).filter((x) => x.isSlave && !x.down).sort((x, y) => x.replica!.brokerId - y.replica!.brokerId)[0];
    if (s === undefined) return;
    s.replica!.acting = true;
    this.nameServerChanged(() => this.nameServer!.register(b, 0, s.node));
  }

  /** replicationStall: the slave's (or every slave's, node −1) HA link stops or heals. */
  setReplicationStalled(b: number, node: number, stalled: boolean): void {
    for (const s of this.groupNodes(b)) {
      if (!s.isSlave || (node >= 0 && s.node !== node)) continue;
      if (stalled) s.replica!.breakLink(this.sched.nowUs);
      else if (!this.brokers[b]!.down) s.replica!.healLink();
    }
  }

  /** The nodes of broker group b. */
  groupNodes(b: number): Broker[] {
    return this.nodes.filter((x) => x.index === b);
  }

  private freeBrokerId(b: number): number {
    const used = new Set(this.groupNodes(b).map((x) => x.replica!.brokerId));
    for (let id = 1; ; id++) if (!used.has(id)) return id;
  }

  /** Applies a change to the name server's table; consumers see it at their next route poll. */
  private nameServerChanged(change: () => void): void {
    change();
    for (const c of this.consumers) c.route.nameServerChanged();
  }

  /** A broker's permission changed (read-only or writable again): the producers' routes follow at their poll. */
  setBrokerWritable(b: number, writable: boolean): void {
    this.brokers[b]!.setWritable(writable);
    this.producers.brokerStateChanged();
  }
}
