// The composition root: builds the routes, the brokers, every consumer instance slot a scenario may use,
// the producers and the transport between them from a normalised scenario, starts them, and replaces a
// consumer instance with a new incarnation when one restarts. Components talk to each other only through
// the transport; the cluster holds no state of theirs.
//
// Equal-time events run in scheduling order (the kernel's FIFO tie-break); the order of `start()` —
// brokers' hold checks, their housekeeping, consumer starts in (group, instance) order, retention, then
// storage reclamation — fixes the order of the first events, and every periodic event keeps its place.
import { Broker } from "../broker/Broker.ts";
import type { BrokerObserver } from "../broker/BrokerObserver.ts";
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
  readonly brokers: Broker[] = [];
  /** The current incarnation of every consumer instance slot. */
  readonly consumers: PushConsumer[] = [];
  /** Every incarnation ever created, in creation order (dead ones may still have pulls in flight). */
  readonly incarnations: PushConsumer[] = [];
  readonly producers: Producers;
  /** The application's listeners (faults change them). */
  readonly listeners: ConsumeListeners;
  readonly clientStats = new ClientStats();
  readonly reclaimer: StorageReclaimer;
  /** Each instance slot's local offset file (BROADCASTING, §12.2): its host's disk, kept across restarts. */
  readonly localOffsetFiles: LocalOffsetFile[] = [];
  /** Rebalance counters of incarnations that were replaced. */
  retiredRebalanceRuns = 0;
  retiredRebalanceChanges = 0;
  private readonly strategies: AllocateStrategy<number>[];

  constructor(
    readonly model: Model,
    private readonly observer: ClusterObserver,
    options: { maxEvents?: number; routes?: Routes } = {},
  ) {
    this.sched = new Scheduler({ maxEvents: options.maxEvents, initialCapacity: 4096 });
    this.streams = new RandomStreams(model.seed);
    this.routes = options.routes ?? new Routes(model);
    const slots = model.groups.flatMap((g) => g.clientIds.slice(0, g.instancesMax));
    this.net = new Network(model.latency, this.streams, slots, model.brokers.map((b) => b.name));
    this.transport = new Transport(this.sched, this.net, this.trace, this.streams);
    this.listeners = new ConsumeListeners(model.groups, model.seed);
    this.strategies = model.groups.map((g) =>
      makeStrategy<number>(g.allocate, (mq) => {
        const q = this.routes.queues[mq]!;
        return { topic: q.topic, brokerName: q.brokerName, queueId: q.queueId };
      }),
    );
    this.producers = new Producers(model, this.routes, this.brokers, this.sched, this.streams);
    for (const b of model.brokers) {
      const addr = brokerAddr(b.index);
      const broker = new Broker(this.transport.context(addr), b, this.routes, model.profile, this.producers, observer);
      this.transport.attach(addr, broker);
      this.brokers.push(broker);
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
    for (const b of this.brokers) b.startHoldService();
    for (const b of this.brokers) b.startHousekeeping();
    for (const c of this.consumers) {
      if (c.instance < c.groupModel.instances) c.ctx.timerAt(c.groupModel.startAtUs, ClientTimer.START);
    }
    for (const b of this.brokers) b.startRetention();
    this.reclaimer.start();
  }

  /** Brings lazy state (produced messages) up to now, so observers see every message born so far. */
  settle(): void {
    this.producers.advanceTo(this.sched.nowUs);
  }

  /** Replaces a consumer instance with a fresh incarnation (a restarted JVM), not yet started. */
  reincarnate(slot: number, clientId?: string): PushConsumer {
    const old = this.consumers[slot]!;
    this.retiredRebalanceRuns += old.rebalance.runs;
    this.retiredRebalanceChanges += old.rebalance.changes;
    return this.incarnate(slot, old.epoch + 1, old.instance, clientId ?? old.clientId, old.group);
  }

  private incarnate(slot: number, epoch: number, instance: number, clientId: string, group: number): PushConsumer {
    const setup: ConsumerSetup = {
      routes: this.routes, profile: this.model.profile, brokerCount: this.brokers.length, listeners: this.listeners,
      stats: this.clientStats, observer: this.observer, strategy: this.strategies[group]!,
      localOffsetFile: (this.localOffsetFiles[slot] ??= new Map()),
    };
    const addr = clientAddr(slot, epoch);
    const c = new PushConsumer(this.transport.context(addr), slot, epoch, this.model.groups[group]!, instance, clientId, setup);
    this.transport.attach(addr, c);
    this.consumers[slot] = c;
    this.incarnations.push(c);
    return c;
  }

  /** A broker process dies: it forgets what it held; requests it owed answers to fail at their time-outs. */
  /** Crashes broker b; with `loseSinceUs` its commit-log tail stored since then is lost. Returns the messages lost. */
  crashBroker(b: number, loseSinceUs = Infinity): number {
    const lost = this.brokers[b]!.crash(loseSinceUs);
    this.transport.setBrokerDown(b, true);
    this.producers.brokerStateChanged();
    return lost;
  }

  restartBroker(b: number): void {
    this.brokers[b]!.restart();
    this.transport.setBrokerDown(b, false);
    this.producers.brokerStateChanged();
  }

  /** A broker's permission changed (read-only or writable again): the producers' routes follow at their poll. */
  setBrokerWritable(b: number, writable: boolean): void {
    this.brokers[b]!.setWritable(writable);
    this.producers.brokerStateChanged();
  }
}
