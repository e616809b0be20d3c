// The composition root of the pipeline model: builds topics, queues, brokers, producers and consumer
// instances from a normalised scenario, wires their event kinds onto the kernel, and owns what is
// shared between them (the queue table, held long polls, message fates).
//
// Equal-time events run in scheduling order (the kernel's FIFO tie-break); the construction order
// below — brokers' hold ticks, then the sampler, then consumer starts in (group, instance) order —
// fixes the order of the first events.
import { Broker } from "../broker/Broker.ts";
import { Producer } from "../broker/Producer.ts";
import { QueueStore } from "../broker/QueueStore.ts";
import { MessageFates } from "./MessageFates.ts";
import { PullRequest } from "../client/PullRequest.ts";
import { PushConsumer } from "../client/PushConsumer.ts";
import type { ProcessQueue } from "../client/ProcessQueue.ts";
import { Metrics } from "../metrics/Metrics.ts";
import { Network } from "../net/Network.ts";
import { BROKER_CONSTANTS } from "../scenario/defaults.ts";
import type { Model } from "../scenario/types.ts";
import { Scheduler } from "../sim/Scheduler.ts";
import { RandomStreams, type Rng } from "../sim/streams.ts";
import { Trace } from "../sim/Trace.ts";
import { makeStrategy, type AllocateStrategy } from "../client/allocate/strategies.ts";
import { offsetKey } from "../broker/Broker.ts";
import type { QueueRef } from "../scenario/faultTypes.ts";
import { Ownership } from "../metrics/Ownership.ts";
import type { Dist } from "../scenario/distributions.ts";
import { CONSUMER_ADDR_SPAN, defineTraceTypes, type Kinds, type TraceTypes } from "./kinds.ts";

export { CONSUMER_ADDR_SPAN };

export interface Marker {
  tUs: number;
  kind: "rebalance" | "fault";
  label: string;
}

interface TopicEntry {
  name: string;
  /** Global queue indexes in MessageQueue order (brokerName, queueId). */
  queues: number[];
  brokers: number[];
  /** Model topic index, or −1 for %RETRY% / %DLQ% topics. */
  modelTopic: number;
  retryOf: number; // group index for %RETRY%<group>, else −1
  dlqOf: number;
}

export class World {
  readonly sched: Scheduler;
  readonly streams: RandomStreams;
  readonly trace = new Trace();
  readonly T: TraceTypes;
  readonly kinds: Kinds;
  readonly metrics: Metrics;
  readonly net: Network;
  readonly queues: QueueStore[] = [];
  readonly brokers: Broker[] = [];
  /** The current incarnation of every consumer instance, by index. */
  readonly consumers: PushConsumer[] = [];
  /** Every incarnation ever created, by address (index + epoch × 2^20). */
  private readonly incarnations = new Map<number, PushConsumer>();
  readonly pullRequests: PullRequest[] = [];
  readonly producers: (Producer | null)[] = [];
  private readonly topics: TopicEntry[] = [];
  /** fateSlot[group][topic]: the group's fate column on that topic's queues, −1 if not subscribed. */
  private readonly fateSlot: number[][] = [];
  private readonly tagSets: (Set<number> | null)[][] = [];
  private readonly retryTopicOf: number[] = [];
  private readonly dlqTopicOf: number[] = [];
  // Long polling: held requests per queue, and how far arrivals were announced.
  private readonly held: (PullRequest[] | null)[] = [];
  private readonly heldSpare: PullRequest[][] = [];
  private readonly notifiedUpTo: Float64Array;
  /** Held pulls per topic, and the queues that got a message while held (for the arrival wake-up). */
  private heldPerTopic!: Int32Array;
  private arrivedFlag!: Uint8Array;
  private readonly arrivedQueues: number[] = [];
  private readonly arrivalArmed: boolean[] = [];
  private producedUntilUs = -1;
  /** Moments worth marking on charts: assignment changes and faults. */
  readonly markers: Marker[] = [];
  /** Rebalance counters of incarnations that were replaced. */
  retiredRebalanceRuns = 0;
  retiredRebalanceChanges = 0;
  /** Queue owners over time. */
  readonly ownership = new Ownership();
  /** Listener behaviour per group; faults may change it for a while. */
  private readonly listeners: { consumeTime: Dist; failureProbability: number }[];
  /** Per group: the allocation strategy, over global queue indexes. */
  private readonly strategies: AllocateStrategy<number>[];
  /** Brokers that accept new messages (brokerReadOnly clears it). */
  private readonly brokerWritable: Uint8Array;
  /** hangMessage faults armed per queue: the next message consumed takes this long (−1 = forever). */
  private readonly hangs = new Map<number, number>();
  /** What became of every original message, per group. */
  readonly fates: MessageFates;

  constructor(readonly model: Model, options: { maxEvents?: number } = {}) {
    this.sched = new Scheduler({ maxEvents: options.maxEvents, initialCapacity: 4096 });
    this.streams = new RandomStreams(model.seed);
    this.T = defineTraceTypes(this.trace);
    this.metrics = new Metrics(model.groups.length);
    this.kinds = this.defineKinds();
    this.buildTopicsAndQueues();
    this.fates = new MessageFates(
      this.queues, this.fateSlot, (t) => this.topics[t]!.modelTopic, (g, t) => this.tagSetOf(g, t),
      this.metrics, this.ownership, () => this.sched.nowUs,
    );
    this.notifiedUpTo = new Float64Array(this.queues.length);
    this.heldPerTopic = new Int32Array(this.topics.length);
    this.arrivedFlag = new Uint8Array(this.queues.length);
    for (let i = 0; i < this.queues.length; i++) this.held.push(null);
    for (const b of model.brokers) {
      this.brokers.push(new Broker(b, this, this.queues.filter((q) => q.brokerIndex === b.index).map((q) => q.index)));
    }
    // Every instance a group may ever run (scale faults included) exists from the start, so links and
    // streams are fixed; those beyond `instances` start only when a fault starts them.
    for (const g of model.groups) {
      for (let i = 0; i < g.instancesMax; i++) {
        const c = new PushConsumer(this.consumers.length, 0, g, i, g.clientIds[i]!, this);
        this.consumers.push(c);
        this.incarnations.set(c.addr, c);
      }
    }
    this.net = new Network(model.latency, this.streams, this.consumers.map((c) => c.clientId), model.brokers.map((b) => b.name));
    this.brokerWritable = new Uint8Array(model.brokers.length).fill(1);
    this.buildProducers();
    this.listeners = model.groups.map((g) => ({ consumeTime: g.consumeTime, failureProbability: g.failureProbability }));
    this.strategies = model.groups.map((g) =>
      makeStrategy<number>(g.allocate, (mq) => {
        const q = this.queues[mq]!;
        return { topic: q.topic, brokerName: q.brokerName, queueId: q.queueId };
      }),
    );
  }

  // ---------------------------------------------------------------- knobs for faults

  listener(group: number): { consumeTime: Dist; failureProbability: number } {
    return this.listeners[group]!;
  }

  strategyOf(group: number): AllocateStrategy<number> {
    return this.strategies[group]!;
  }

  setBrokerWritable(broker: number, writable: boolean): void {
    this.brokerWritable[broker] = writable ? 1 : 0;
  }

  queueIndexOf(ref: QueueRef): number {
    return this.topics[ref.topic]!.queues.find((q) => this.queues[q]!.brokerIndex === ref.broker && this.queues[q]!.queueId === ref.queueId)!;
  }

  armHang(ref: QueueRef, durationUs: number | null): void {
    this.hangs.set(this.queueIndexOf(ref), durationUs ?? -1);
  }

  /** The armed hang of a queue, consumed by the first message that starts on it (−2 if none). */
  takeHang(mq: number): number {
    if (this.hangs.size === 0) return -2;
    const h = this.hangs.get(mq);
    if (h === undefined) return -2;
    this.hangs.delete(mq);
    return h;
  }

  injectOffsetMoved(ref: QueueRef, groups: number[], next: number | "min" | "max"): string {
    const mq = this.queueIndexOf(ref);
    const broker = this.brokers[this.queues[mq]!.brokerIndex]!;
    for (const g of groups) broker.pendingOffsetMoved.set(offsetKey(g, mq), next);
    return `next pull of ${this.queues[mq]!.topic}#${ref.queueId} answered PULL_OFFSET_MOVED → ${next}`;
  }

  truncateQueue(ref: QueueRef, offset: number | "max"): string {
    const mq = this.queueIndexOf(ref);
    this.advanceProducers(this.sched.nowUs);
    const store = this.queues[mq]!;
    const before = store.minOffset;
    this.deleteUpTo(mq, offset === "max" ? store.maxOffset : Math.min(offset, store.maxOffset));
    return `minOffset ${before} → ${store.minOffset}`;
  }

  /** Schedules the first events: hold ticks, consumer starts. The sampler is the caller's. */
  start(): void {
    for (const b of this.brokers) {
      const cfg = b.model.config;
      const periodMs = cfg.longPollingEnable ? BROKER_CONSTANTS.HOLD_CHECK_PERIOD_MS : cfg.shortPollingTimeMills;
      this.sched.scheduleIn(periodMs * 1000, this.kinds.holdTick, b.index);
    }
    for (const b of this.brokers) {
      this.sched.scheduleIn(BROKER_CONSTANTS.EXPIRY_SCAN_PERIOD_MS * 1000, this.kinds.expiryScan, b.index);
      this.sched.scheduleIn(b.model.config.flushConsumerOffsetInterval * 1000, this.kinds.offsetFlush, b.index);
    }
    for (const c of this.consumers) {
      if (c.instance < c.groupModel.instances) this.sched.scheduleAt(c.groupModel.startAtUs, this.kinds.consumerStart, c.addr);
    }
  }

  // ---------------------------------------------------------------- construction

  private defineKinds(): Kinds {
    const s = this.sched;
    const pr = (id: number) => this.pullRequests[id]!;
    // Consumer-side events are addressed to one incarnation (index + epoch); a crashed or replaced
    // incarnation's events are dropped here.
    const con = (addr: number) => this.live(addr);
    const brk = (i: number) => this.brokers[i]!;
    return {
      brokerPull: s.defineKind("brokerPull", (id, serial) => brk(this.queues[pr(id).mq]!.brokerIndex).onPull(pr(id), serial)),
      holdTick: s.defineKind("holdTick", (b) => brk(b).onHoldTick()),
      topicArrival: s.defineKind("topicArrival", (t) => this.onTopicArrival(t)),
      offsetUpdate: s.defineKind("offsetUpdate", (b, key, off) => brk(b).commitOffset(Math.floor(key / 1048576), key % 1048576, off, 0)),
      queryOffset: s.defineKind("queryOffset", (b, c, slot) => brk(b).onQueryOffset(c, slot)),
      heartbeat: s.defineKind("heartbeat", (b, c, reply) => brk(b).onHeartbeat(c, reply === 1)),
      sendBack: s.defineKind("sendBack", (b, c, wk) => brk(b).onSendBack(c, wk)),
      cleanSendBack: s.defineKind("cleanSendBack", (b, ticket, c) => brk(b).onCleanSendBack(ticket, c)),
      scheduleDue: s.defineKind("scheduleDue", (b, level) => brk(b).scheduleService.onDue(level)),
      consumerStart: s.defineKind("consumerStart", (c) => con(c)?.start()),
      pullDispatch: s.defineKind("pullDispatch", (id) => con(pr(id).consumerAddr)?.pullMessage(pr(id))),
      pullResponse: s.defineKind("pullResponse", (id, serial) => {
        const p = pr(id);
        const c = con(p.consumerAddr);
        if (c) c.onPullResponse(p, serial);
        else this.abandonPull(p, serial);
      }),
      pullTimeout: s.defineKind("pullTimeout", (id, serial) => {
        const p = pr(id);
        const c = con(p.consumerAddr);
        if (c) c.onPullTimeout(p, serial);
        else this.abandonPull(p, serial);
      }),
      offsetIllegalFix: s.defineKind("offsetIllegalFix", (id) => con(pr(id).consumerAddr)?.onOffsetIllegalFix(pr(id))),
      queryOffsetResponse: s.defineKind("queryOffsetResponse", (c, slot, serial) => con(c)?.rebalance.onQueryAnswer(slot, serial)),
      heartbeatResponse: s.defineKind("heartbeatResponse", (c) => con(c)?.onHeartbeatResponse()),
      notifyIdsChanged: s.defineKind("notifyIdsChanged", (c) => con(c)?.rebalance.wakeup()),
      rebalance: s.defineKind("rebalance", (c) => con(c)?.rebalance.onTimer()),
      persistAll: s.defineKind("persistAll", (c) => con(c)?.onPersistAll()),
      heartbeatTimer: s.defineKind("heartbeatTimer", (c) => con(c)?.onHeartbeatTimer()),
      cleanExpired: s.defineKind("cleanExpired", (c) => con(c)?.onCleanExpired()),
      consumeDone: s.defineKind("consumeDone", (c, wk) => con(c)?.consumeService.onConsumeDone(wk)),
      sendBackResponse: s.defineKind("sendBackResponse", (c, wk, ok) => con(c)?.consumeService.onSendBackResponse(wk, ok === 1)),
      localRetry: s.defineKind("localRetry", (c, t) => con(c)?.consumeService.onLocalRetry(t)),
      unregister: s.defineKind("unregister", (b, c) => brk(b).onUnregister(c)),
      consumerListRequest: s.defineKind("consumerListRequest", (b, c, serial) => brk(b).onConsumerListRequest(c, serial)),
      consumerListResponse: s.defineKind("consumerListResponse", (c, serial, ok) => con(c)?.rebalance.onConsumerList(serial, ok === 1)),
      channelClosed: s.defineKind("channelClosed", (b, c) => brk(b).onChannelClosed(c)),
      expiryScan: s.defineKind("expiryScan", (b) => brk(b).onExpiryScan()),
      offsetFlush: s.defineKind("offsetFlush", (b) => brk(b).onOffsetFlush()),
      sample: -1, // defined by the sampler
    };
  }

  private buildTopicsAndQueues(): void {
    const m = this.model;
    const brokerName = (b: number) => m.brokers[b]!.name;
    const addTopic = (name: string, brokers: number[], perBroker: number, modelTopic: number, retryOf: number, dlqOf: number, fateSlots: number) => {
      const index = this.topics.length;
      const sorted = [...brokers].sort((a, b) => (brokerName(a) < brokerName(b) ? -1 : brokerName(a) > brokerName(b) ? 1 : 0));
      const queues: number[] = [];
      for (const b of sorted) {
        for (let q = 0; q < perBroker; q++) {
          const store = new QueueStore(this.queues.length, name, brokerName(b), q, index, b, fateSlots);
          this.queues.push(store);
          queues.push(store.index);
        }
      }
      this.topics.push({ name, queues, brokers: sorted, modelTopic, retryOf, dlqOf });
      this.arrivalArmed.push(false);
      return index;
    };
    for (let g = 0; g < m.groups.length; g++) {
      this.fateSlot.push(new Array(m.topics.length).fill(-1));
      this.tagSets.push([]);
    }
    for (const t of m.topics) {
      let slots = 0;
      for (const g of m.groups) {
        const sub = g.subscriptions.find((s) => s.topic === t.index);
        if (sub) this.fateSlot[g.index]![t.index] = slots++;
      }
      addTopic(t.name, t.brokers, t.queuesPerBroker, t.index, -1, -1, slots);
    }
    const allBrokers = m.brokers.map((b) => b.index);
    for (const g of m.groups) {
      // %RETRY%<group>: created on every broker by heartbeats, retryQueueNums queues each (§9.2, §13.8).
      const perBroker = Math.max(1, m.brokers[0]!.config.retryQueueNums);
      this.retryTopicOf.push(addTopic(`%RETRY%${g.name}`, allBrokers, perBroker, -1, g.index, -1, 0));
      this.dlqTopicOf.push(addTopic(`%DLQ%${g.name}`, allBrokers, 1, -1, -1, g.index, 0));
    }
    for (const g of m.groups) {
      const sets: (Set<number> | null)[] = new Array(this.topics.length).fill(null);
      for (const s of g.subscriptions) sets[s.topic] = s.tagSet;
      this.tagSets[g.index] = sets;
    }
  }

  private buildProducers(): void {
    const m = this.model;
    for (const t of m.topics) {
      if (!t.produce) {
        this.producers.push(null);
        continue;
      }
      const topicQueues = this.topics[t.index]!.queues;
      const sink = { appendProduced: (q: number, bornUs: number, body: number, tag: number) => this.appendProduced(topicQueues[q]!, bornUs, body, tag) };
      const p = new Producer(t.produce, topicQueues.length, sink, this.streams.get(`topic/${t.name}/arrival`), this.streams.get(`topic/${t.name}/attributes`), 0);
      // The backlog is born as if the producer had run ahead at its initial rate (an hour if that is 0).
      const backlogTotal = t.produce.backlog * topicQueues.length;
      const spanUs = t.produce.rate > 0 ? Math.round((backlogTotal / t.produce.rate) * 1e6) : 3600e6;
      p.seedBacklog(t.produce.backlog, 0, spanUs);
      this.producers.push(p);
    }
    // Retry/DLQ topics have no producers.
    for (let i = m.topics.length; i < this.topics.length; i++) this.producers.push(null);
  }

  // ---------------------------------------------------------------- producers and retention

  private appendProduced(mq0: number, bornUs: number, bodyBytes: number, tag: number): void {
    let mq = mq0;
    const b0 = this.queues[mq]!.brokerIndex;
    if (this.brokerWritable[b0] === 0 || this.net.isBrokerDown(b0)) {
      // The send fails on that broker; the producer's retry picks a queue of another one.
      const qs = this.topics[this.queues[mq]!.topicIndex]!.queues;
      const i = qs.indexOf(mq);
      let found = -1;
      for (let k = 1; k < qs.length && found < 0; k++) {
        const cand = qs[(i + k) % qs.length]!;
        const b = this.queues[cand]!.brokerIndex;
        if (this.brokerWritable[b] === 1 && !this.net.isBrokerDown(b)) found = cand;
      }
      if (found < 0) {
        this.metrics.produceFailed++;
        return;
      }
      mq = found;
    }
    const store = this.queues[mq]!;
    const broker = this.brokers[store.brokerIndex]!;
    broker.commitLogTail += broker.storedSize(bodyBytes, store.topic);
    store.append(bornUs, broker.commitLogTail, bodyBytes, tag, -1, 0, 0);
    const held = this.held[mq];
    if (held !== null && held !== undefined && held.length > 0 && this.arrivedFlag[mq] === 0) {
      this.arrivedFlag[mq] = 1;
      this.arrivedQueues.push(mq);
    }
    this.metrics.producedTotal++;
    const groups = this.model.groups;
    for (let g = 0; g < groups.length; g++) {
      if (this.fateSlot[g]![store.topicIndex]! < 0) continue;
      const f = this.metrics.fates[g]!;
      f.produced++;
      const set = this.tagSets[g]![store.topicIndex]!;
      if (set !== null && !set.has(tag)) f.filtered++;
    }
  }

  /** Produces every message born up to `nowUs` on every topic (commit-log order stays time order). */
  advanceProducers(nowUs: number): void {
    if (nowUs === this.producedUntilUs) return;
    this.producedUntilUs = nowUs;
    for (const p of this.producers) if (p !== null && p.nextArrivalUs <= nowUs) p.advanceTo(nowUs);
  }

  /** Deletes messages older than the topic's retention, in order; counts unconsumed ones as lost. */
  applyRetention(mq: number): void {
    const store = this.queues[mq]!;
    const topic = this.topics[store.topicIndex]!;
    if (topic.modelTopic < 0) return; // retry and DLQ queues keep their messages for the run
    const cutoffUs = this.sched.nowUs - this.model.topics[topic.modelTopic]!.retentionUs;
    let min = Math.max(store.minOffset, store.physicalMin); // freed chunks held only settled messages
    const max = store.maxOffset;
    if (min >= max || store.bornUs(min) >= cutoffUs) {
      if (min > store.minOffset && min <= max) store.minOffset = min;
      return;
    }
    while (min < max && store.bornUs(min) < cutoffUs) min++;
    this.deleteUpTo(mq, min);
  }

  /**
   * An OFFSET_ILLEGAL fix moved a group's offset forward to `offset`: messages below it that the group
   * has not settled will never be pulled again — they are lost too (skipped by the reset).
   */
  skipTo(group: number, mq: number, offset: number): void {
    const store = this.queues[mq]!;
    this.fates.markLost(group, mq, store.minOffset, Math.min(offset, store.maxOffset));
  }

  /** Moves minOffset up to `offset`, marking messages no group has settled as lost. */
  private deleteUpTo(mq: number, offset: number): void {
    const store = this.queues[mq]!;
    if (offset <= store.minOffset) return;
    for (let g = 0; g < this.model.groups.length; g++) this.fates.markLost(g, mq, store.minOffset, offset);
    store.minOffset = offset;
    this.trace.emit(this.T.retention, this.sched.nowUs, mq, offset);
  }

  /** searchOffset(timestamp): the first offset born at or after it (minOffset if older than all). */
  searchOffset(mq: number, timestampUs: number): number {
    const store = this.queues[mq]!;
    let lo = Math.max(store.minOffset, store.physicalMin);
    let hi = store.maxOffset;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (store.bornUs(mid) < timestampUs) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  // ---------------------------------------------------------------- long polling bookkeeping

  holdPull(pr: PullRequest): void {
    let list = this.held[pr.mq];
    if (list === null || list === undefined) {
      list = this.heldSpare.pop() ?? [];
      this.held[pr.mq] = list;
    }
    if (list.length === 0) {
      const store = this.queues[pr.mq]!;
      if (this.notifiedUpTo[pr.mq]! < store.maxOffset) this.notifiedUpTo[pr.mq] = store.maxOffset;
    }
    list.push(pr);
    this.heldPerTopic[this.queues[pr.mq]!.topicIndex]!++;
    // Arrivals wake held pulls only with long polling on (§13.4); short polling waits for its tick.
    const store = this.queues[pr.mq]!;
    if (this.brokers[store.brokerIndex]!.model.config.longPollingEnable) this.armArrival(store.topicIndex);
  }

  heldCount(mq: number): number {
    return this.held[mq]?.length ?? 0;
  }

  /** Takes the held list of a queue (the broker re-holds what it keeps). */
  takeHeld(mq: number): PullRequest[] | null {
    const list = this.held[mq];
    if (list === null || list === undefined || list.length === 0) return null;
    this.held[mq] = null;
    this.heldPerTopic[this.queues[mq]!.topicIndex]! -= list.length;
    return list;
  }

  recycleHeld(list: PullRequest[]): void {
    this.heldSpare.push(list);
  }

  /** Wakes held long polls at the topic's next arrival, if anyone is held on it. */
  private armArrival(topic: number): void {
    if (this.arrivalArmed[topic]) return;
    const p = this.producers[topic];
    if (!p || p.nextArrivalUs === Infinity) return;
    this.arrivalArmed[topic] = true;
    this.sched.scheduleAt(Math.max(p.nextArrivalUs, this.sched.nowUs), this.kinds.topicArrival, topic);
  }

  /** The reput thread's notifyMessageArriving for each new message of the topic's held queues. */
  private onTopicArrival(topic: number): void {
    this.arrivalArmed[topic] = false;
    this.advanceProducers(this.sched.nowUs);
    // Only queues that received a message while someone was held on them (noted at append time).
    const arrived = this.arrivedQueues;
    for (let i = 0; i < arrived.length; i++) {
      const mq = arrived[i]!;
      this.arrivedFlag[mq] = 0;
      const store = this.queues[mq]!;
      const broker = this.brokers[store.brokerIndex]!;
      for (let o = this.notifiedUpTo[mq]!; o < store.maxOffset && this.heldCount(mq) > 0; o++) {
        broker.notifyMessageArriving(mq, o + 1, store.tag(o));
      }
      this.notifiedUpTo[mq] = store.maxOffset;
    }
    arrived.length = 0;
    if (this.heldPerTopic[topic]! > 0) this.armArrival(topic);
  }

  // ---------------------------------------------------------------- topics and routes

  topicName(topic: number): string {
    return this.topics[topic]!.name;
  }
  topicQueues(topic: number): readonly number[] {
    return this.topics[topic]!.queues;
  }
  isRetryTopic(topic: number): boolean {
    return this.topics[topic]!.retryOf >= 0;
  }
  retryTopic(group: number): number {
    return this.retryTopicOf[group]!;
  }
  retryQueue(group: number, broker: number): number {
    const t = this.topics[this.retryTopicOf[group]!]!;
    return t.queues.find((q) => this.queues[q]!.brokerIndex === broker)!;
  }
  dlqQueue(group: number, broker: number): number {
    const t = this.topics[this.dlqTopicOf[group]!]!;
    return t.queues.find((q) => this.queues[q]!.brokerIndex === broker)!;
  }
  /** Tag filter of a group on a topic; null = every message. */
  tagSetOf(group: number, topic: number): Set<number> | null {
    return this.tagSets[group]![topic] ?? null;
  }
  /** Model topic index of an ordinary topic, −1 for retry/DLQ. */
  modelTopicOf(topic: number): number {
    return this.topics[topic]!.modelTopic;
  }

  /** A random broker of the topic's route (findConsumerIdList asks one; the draw is seeded). */
  topicBroker(topic: number, pick: Rng): number {
    const brokers = this.topics[topic]!.brokers;
    return brokers[Math.floor(pick() * brokers.length)]!;
  }

  /**
   * The pull of a dead incarnation has ended (its answer or time-out reached nobody): it no longer
   * holds message storage back from being freed.
   */
  abandonPull(pr: PullRequest, serial = pr.reqSerial): void {
    if (pr.reqSerial !== serial) return;
    pr.inFlight = false;
    pr.pq.release();
  }

  /** A pull that will never be answered: the client's RPC times out (a dead client's simply ends). */
  pullUnanswered(pr: PullRequest): void {
    const c = this.live(pr.consumerAddr);
    if (c) c.pullLost(pr);
    else this.abandonPull(pr);
  }

  /** The current incarnation at `addr` if it is alive, else null (its events are stale). */
  live(addr: number): PushConsumer | null {
    const c = this.consumers[addr % CONSUMER_ADDR_SPAN];
    return c !== undefined && c.addr === addr && c.alive ? c : null;
  }

  /** The incarnation at `addr`, alive or not (a request it sent may still be on the wire). */
  incarnation(addr: number): PushConsumer {
    return this.incarnations.get(addr)!;
  }

  /** Replaces a consumer instance with a fresh incarnation (a restarted JVM), not yet started. */
  reincarnate(index: number, clientId?: string): PushConsumer {
    const old = this.consumers[index]!;
    this.retiredRebalanceRuns += old.rebalance.runs;
    this.retiredRebalanceChanges += old.rebalance.changes;
    const c = new PushConsumer(index, old.epoch + 1, old.groupModel, old.instance, clientId ?? old.clientId, this);
    this.consumers[index] = c;
    this.incarnations.set(c.addr, c);
    return c;
  }

  newPullRequest(c: PushConsumer, mq: number, pq: ProcessQueue, nextOffset: number): PullRequest {
    const pr = new PullRequest(this.pullRequests.length, c.index, c.addr, c.group, mq, pq, nextOffset, c.config.pullBatchSize);
    this.pullRequests.push(pr);
    return pr;
  }

}
