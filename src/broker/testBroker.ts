// A fixture for the broker's unit tests: one Broker ("broker-a") built from a small scenario, talking to
// the recording fake context (net/testContext.ts) instead of a network. The test plays everybody else:
// clients (it builds and delivers their requests at chosen virtual times and reads the broker's replies
// from ctx.replies), the producers (a fake MessageSource that stores the messages a test planned once the
// broker brings its store up to a time past their birth, and records the wake-ups the broker asks for),
// and whoever keeps the books (a recording BrokerObserver). Time only moves forward: every helper that
// acts at `atUs` first fires the broker's own timers due by then (ctx.runTimers), as the kernel would.
import { TestContext } from "../net/testContext.ts";
import { brokerAddr, clientAddr } from "../protocol/address.ts";
import { PullSysFlag, RequestCode } from "../protocol/codes.ts";
import {
  ConsumerSendMsgBackRequest, Envelope, GetConsumerListRequest, HeartbeatRequest, PullMessageRequest,
  QueryConsumerOffsetRequest, UnregisterClientRequest, UpdateConsumerOffsetRequest, type Command,
  type NotifyConsumerIdsChangedRequest, type PullMessageResponse, type SubscriptionData,
} from "../protocol/commands.ts";
import { Routes } from "../protocol/routes.ts";
import { normalizeScenario } from "../scenario/normalize.ts";
import type { Model, StoreModel } from "../scenario/types.ts";
import { Broker, BrokerTimer, type BrokerReplication } from "./Broker.ts";
import { NameServer } from "../protocol/NameServer.ts";
import { Replica } from "./Replica.ts";
import { ScheduleLog } from "./ScheduleMessageService.ts";
import type { BrokerObserver } from "./BrokerObserver.ts";
import type { MessageSource } from "./MessageStore.ts";
import type { QueueStore } from "./QueueStore.ts";

export const S = 1_000_000;
export const MS = 1000;
export { BrokerTimer };
/** Body of every message a test stores unless it says otherwise: the scenario default "1KiB". */
export const BODY_BYTES = 1024;
/** suspendTimeoutMillis of a push consumer's pull (brokerSuspendMaxTimeMillis, spec §2.2). */
export const SUSPEND_TIMEOUT_MS = 15_000;
/** maxMsgNums of a push consumer's pull (pullBatchSize, spec §0.1). */
export const PULL_BATCH_SIZE = 32;

export interface RigInput {
  seed?: number;
  profile?: "4.9" | "5.x";
  /** Merged into the one broker, "broker-a". */
  broker?: Record<string, unknown>;
  /** Merged into the default topic "T" (1 queue on broker-a, no production of its own). */
  topic?: Record<string, unknown>;
  /** Replaces the topic list. */
  topics?: Record<string, unknown>[];
  /** Merged into the default group "G" (subscribes T "*"). */
  group?: Record<string, unknown>;
  /** Replaces the group list. */
  groups?: Record<string, unknown>[];
  /** Overrides of the broker's normalised store settings. */
  store?: Partial<StoreModel>;
}

/** Which of BrokerObserver's methods was called, with its arguments. */
export type ObserverCall = [name: keyof BrokerObserver, ...args: number[]];

/** A BrokerObserver that writes every call down. */
export class RecordingObserver implements BrokerObserver {
  readonly calls: ObserverCall[] = [];
  messageStored(mq: number, offset: number, tag: number): void {
    this.calls.push(["messageStored", mq, offset, tag]);
  }
  messagesDeleted(mq: number, from: number, to: number): void {
    this.calls.push(["messagesDeleted", mq, from, to]);
  }
  sentBack(group: number, originKey: number): void {
    this.calls.push(["sentBack", group, originKey]);
  }
  retrying(group: number, originKey: number): void {
    this.calls.push(["retrying", group, originKey]);
  }
  deadLettered(group: number, originKey: number): void {
    this.calls.push(["deadLettered", group, originKey]);
  }
  discarded(group: number, originKey: number): void {
    this.calls.push(["discarded", group, originKey]);
  }
  messagesTruncated(mq: number, from: number, to: number, gen: number): void {
    this.calls.push(["messagesTruncated", mq, from, to, gen]);
  }
  commitLogDeleted(broker: number, files: number, reason: number, nowUs: number): void {
    this.calls.push(["commitLogDeleted", broker, files, reason, nowUs]);
  }
  /** The arguments of every call of one method, in call order. */
  of(name: keyof BrokerObserver): number[][] {
    return this.calls.filter((c) => c[0] === name).map((c) => c.slice(1) as number[]);
  }
}

interface PlannedMessage {
  mq: number;
  bornUs: number;
  bodyBytes: number;
  tag: number;
}

/**
 * The producers, faked: messages a test planned are stored (Broker#putMessage) when the broker advances
 * the source to their birth, in birth order; queues that got a message while a pull was held there are
 * kept for the arrival wake-up, as Producers does. Every call the broker makes is recorded.
 */
export class FakeSource implements MessageSource {
  broker: Broker | null = null;
  /** Every advanceTo(nowUs) the broker made, in order. */
  readonly advancedTo: number[] = [];
  /** Every wakeAtNextArrival the broker asked for. */
  readonly wakeRequests: { topic: number; atUs: number }[] = [];
  /** Queues that got a message while a pull was held on them, in storing order (not yet woken). */
  readonly arrived: number[] = [];
  private readonly planned: PlannedMessage[] = [];

  constructor(private readonly ctx: TestContext) {}

  /** A message to be born on `mq` at `bornUs` (stored once the broker looks at its store after that). */
  plan(mq: number, bornUs: number, tag = -1, bodyBytes = BODY_BYTES): void {
    let i = this.planned.length;
    while (i > 0 && this.planned[i - 1]!.bornUs > bornUs) i--;
    this.planned.splice(i, 0, { mq, bornUs, bodyBytes, tag });
  }

  /** Planned messages not stored yet. */
  get pending(): number {
    return this.planned.length;
  }

  advanceTo(nowUs: number): void {
    this.advancedTo.push(nowUs);
    let n = 0;
    while (n < this.planned.length && this.planned[n]!.bornUs <= nowUs) n++;
    for (const m of this.planned.splice(0, n)) {
      if (this.broker!.putMessage(m.mq, m.bornUs, m.bodyBytes, m.tag)) this.arrived.push(m.mq);
    }
  }

  wakeAtNextArrival(topic: number): void {
    this.wakeRequests.push({ topic, atUs: this.ctx.nowUs });
  }

  /** Recorded as a wake-up request for topic −1 (the fixture's wakeUp then runs it like any other). */
  arrivedUndispatched(mq: number): void {
    this.arrived.push(mq);
    this.wakeRequests.push({ topic: -1, atUs: this.ctx.nowUs });
  }

  /** Planned messages are stored with draw −1, so nothing is ever replayed from here. */
  regenerate(mq: number, draw: number): void {
    throw new Error(`FakeSource cannot replay queue ${mq} from draw ${draw}`);
  }
}

export interface PullInput {
  offset: number;
  /** Default: queue 0 of topic "T". */
  mq?: number;
  /** Client instance slot (address clientAddr(slot, epoch)). */
  slot?: number;
  epoch?: number;
  group?: number;
  /** Sets the COMMIT_OFFSET bit with this offset; undefined or −1 leaves it clear. */
  commitOffset?: number;
  subVersion?: number;
  maxMsgNums?: number;
  suspendTimeoutMillis?: number;
  /** Sets the SUBSCRIPTION bit with this expression (null = "*"); undefined leaves it clear. */
  subscription?: ReadonlySet<number> | null;
}

export interface SendBackInput {
  /** The queue and offset the client consumed the message from. */
  mq: number;
  offset: number;
  group?: number;
  slot?: number;
  delayLevel?: number;
  maxReconsumeTimes?: number;
  /** Sent oneway (cleanExpiredMsg's sendChecked): the broker must not answer. */
  oneway?: boolean;
  /** The message's columns as the client holds them; default: read from the store at (mq, offset). */
  originKey?: number;
  originBornUs?: number;
  bodyBytes?: number;
  tag?: number;
  reconsumeTimes?: number;
}

/** A pull's answer, flattened for toMatchObject. */
export interface PullAnswer {
  atUs: number;
  code: number;
  nextBeginOffset: number;
  minOffset: number;
  maxOffset: number;
  count: number;
  offsets: number[];
}

export class BrokerFixture {
  readonly ctx: TestContext;
  readonly model: Model;
  readonly routes: Routes;
  readonly source: FakeSource;
  readonly observer: RecordingObserver = new RecordingObserver();
  readonly broker: Broker;
  private cookie = 0;
  /** wakeRequests already answered by a wakeUp. */
  private wakesSeen = 0;

  /** With `broker.replicas`: the group's name-server table and schedule log (shared by its node fixtures). */
  readonly nameServer: NameServer | null = null;
  readonly scheduleLog: ScheduleLog | null = null;
  /** This fixture's node address (0: the master; a slave fixture's is 1, 2). */
  readonly node: number;

  /**
   * Builds the broker and starts its timers as the cluster does (hold check, housekeeping, retention).
   * With `slaveOf`, builds node `brokerId` of the same group instead (input ignored): a slave sharing
   * the master fixture's store, schedule log, source, observer and name server, on its own clock.
   */
  constructor(input: RigInput = {}, slaveOf?: { master: BrokerFixture; brokerId: number }) {
    const topics = input.topics ?? [{ name: "T", brokers: ["broker-a"], queuesPerBroker: 1, produce: { rate: 0 }, ...input.topic }];
    const groups = input.groups ?? [{ name: "G", subscribe: { T: "*" }, ...input.group }];
    this.model = slaveOf?.master.model ?? normalizeScenario({
      name: "rig", seed: input.seed ?? 1, profile: input.profile ?? "4.9",
      brokers: [{ name: "broker-a", ...input.broker }], topics, groups,
    });
    if (slaveOf === undefined) Object.assign(this.model.brokers[0]!.store, input.store);
    this.node = slaveOf?.brokerId ?? 0;
    this.ctx = new TestContext(brokerAddr(this.node), this.model.seed);
    this.routes = slaveOf?.master.routes ?? new Routes(this.model);
    this.source = slaveOf?.master.source ?? new FakeSource(this.ctx);
    if (slaveOf !== undefined) this.observer = slaveOf.master.observer;
    const b = this.model.brokers[0]!;
    let replication: BrokerReplication | undefined;
    if (b.replication !== undefined) {
      this.nameServer = slaveOf?.master.nameServer ?? new NameServer(1);
      this.scheduleLog = slaveOf?.master.scheduleLog ?? new ScheduleLog(b.delayLevelsUs.length);
      const replica = new Replica(b.replication, this.node, this.routes.queues.length, b.replication.lag, this.ctx.rng(`replication/${this.node}`));
      replication = { node: this.node, replica, nameServer: this.nameServer, store: slaveOf?.master.broker.store ?? null, scheduleLog: this.scheduleLog };
      this.nameServer.register(0, this.node, this.node);
    }
    this.broker = new Broker(this.ctx, b, this.routes, this.model.profile, this.source, this.observer, replication);
    if (slaveOf === undefined) this.source.broker = this.broker;
    this.broker.startHoldService();
    this.broker.startHousekeeping();
    this.broker.startRetention();
  }

  /** Global queue index of queue `i` of topic `topic`. */
  queueOf(topic: number, i = 0): number {
    return this.routes.topicQueues(topic)[i]!;
  }
  retryQueue(group: number): number {
    return this.routes.retryQueue(group, 0);
  }
  dlqQueue(group: number): number {
    return this.routes.dlqQueue(group, 0);
  }
  store(mq: number): QueueStore {
    return this.broker.store.queue(mq);
  }

  /** Fires the broker's timers due by `untilUs`, in order; the clock ends at `untilUs`. */
  runUntil(untilUs: number): void {
    if (untilUs < this.ctx.nowUs) throw new RangeError(`fixture: ${untilUs} µs is before now (${this.ctx.nowUs} µs)`);
    this.ctx.runTimers(this.broker, untilUs);
  }

  /**
   * Seeds `count` messages on `mq` born evenly over the `spanUs` before t = 0 (the i-th at
   * ⌊−span + i × span / count⌋, as Producer#seedBacklog), stored straight away.
   */
  seedBacklog(count: number, opts: { mq?: number; spanUs?: number; tag?: (i: number) => number; bodyBytes?: number } = {}): void {
    const mq = opts.mq ?? this.queueOf(0);
    const spanUs = opts.spanUs ?? 3600 * S;
    const step = spanUs / count;
    for (let i = 0; i < count; i++) {
      this.broker.putMessage(mq, Math.floor(-spanUs + i * step), opts.bodyBytes ?? BODY_BYTES, opts.tag?.(i) ?? -1);
    }
  }

  /** Plans `count` messages on `mq`, the k-th (k = 1…count) born at k × periodUs (an evenly spaced producer). */
  produceEvery(periodUs: number, count: number, opts: { mq?: number; tag?: (k: number) => number } = {}): void {
    for (let k = 1; k <= count; k++) this.source.plan(opts.mq ?? this.queueOf(0), k * periodUs, opts.tag?.(k) ?? -1);
  }

  /**
   * The producers' arrival wake-up (Producers#onArrival) at `atUs`: stores what was born by then and
   * tells the broker's processor of every queue that got a message while held. Throws if the broker
   * asked for no wake-up since the last one: an arrival nobody waits for wakes nobody.
   */
  wakeUp(atUs: number): void {
    if (this.source.wakeRequests.length === this.wakesSeen) throw new Error(`fixture: the broker asked for no arrival wake-up before ${atUs} µs`);
    this.runUntil(atUs);
    this.wakesSeen = this.source.wakeRequests.length;
    this.source.advanceTo(atUs);
    for (const mq of this.source.arrived.splice(0)) this.broker.processor.onArrived(mq);
  }

  // ---------------------------------------------------------------- the clients' side

  /**
   * Hands `msg` to the broker at `atUs` as the transport would: a request DELIVERED, from the client's
   * address; afterwards a request must be answered or deferred and a oneway message must not be.
   */
  deliver<T extends Command>(atUs: number, msg: T, from: number, oneway = false): T {
    this.runUntil(atUs);
    msg.envelope = oneway ? Envelope.ONEWAY : Envelope.DELIVERED;
    msg.from = from;
    msg.to = brokerAddr(this.node);
    msg.stamp.cookie = ++this.cookie;
    msg.stamp.sentUs = atUs;
    this.broker.receive(msg);
    const answered = this.ctx.replies.some((r) => r.request === msg);
    if (oneway && answered) throw new Error(`fixture: the broker answered oneway message code ${msg.code}`);
    if (!oneway && !answered && !this.ctx.deferred.includes(msg)) {
      throw new Error(`fixture: the broker neither answered nor deferred request code ${msg.code}`);
    }
    return msg;
  }

  /** A PULL_MESSAGE (SUSPEND bit set, 15 s) reaching the broker at `atUs`. */
  pull(atUs: number, p: PullInput): PullMessageRequest {
    const req = new PullMessageRequest();
    req.consumerGroup = p.group ?? 0;
    req.mq = p.mq ?? this.queueOf(0);
    req.queueOffset = p.offset;
    req.maxMsgNums = p.maxMsgNums ?? PULL_BATCH_SIZE;
    const commit = p.commitOffset ?? -1;
    req.sysFlag = PullSysFlag.FLAG_SUSPEND | (commit >= 0 ? PullSysFlag.FLAG_COMMIT_OFFSET : 0);
    req.commitOffset = commit >= 0 ? commit : 0;
    req.suspendTimeoutMillis = p.suspendTimeoutMillis ?? SUSPEND_TIMEOUT_MS;
    req.subVersion = p.subVersion ?? 0;
    if (p.subscription !== undefined) {
      req.sysFlag |= PullSysFlag.FLAG_SUBSCRIPTION;
      req.subscription = p.subscription;
    }
    return this.deliver(atUs, req, clientAddr(p.slot ?? 0, p.epoch ?? 0));
  }

  /**
   * A HEART_BEAT from client `slot` of `group` (default 0) at `atUs`, carrying `subVersion` for every
   * topic the group subscribes and its retry topic, with the group's tag sets unless `tagSet` replaces
   * them (on the group's own topics).
   */
  heartbeat(
    atUs: number, slot: number, subVersion: number,
    opts: { group?: number; epoch?: number; clientId?: string; oneway?: boolean; tagSet?: ReadonlySet<number> | null } = {},
  ): HeartbeatRequest {
    const g = this.model.groups[opts.group ?? 0]!;
    const subs: SubscriptionData[] = g.subscriptions.map((s) => ({ topic: s.topic, tagSet: opts.tagSet !== undefined ? opts.tagSet : s.tagSet, subVersion }));
    subs.push({ topic: this.routes.retryTopic(g.index), tagSet: null, subVersion });
    const hb = new HeartbeatRequest(opts.clientId ?? `client-${slot}`, g.index, subs);
    return this.deliver(atUs, hb, clientAddr(slot, opts.epoch ?? 0), opts.oneway ?? false);
  }

  /** UNREGISTER_CLIENT (oneway) from a clean shutdown, or with `channelClosed` the network's CHANNEL_CLOSED. */
  unregister(atUs: number, slot: number, opts: { group?: number; epoch?: number; channelClosed?: boolean } = {}): void {
    const code = opts.channelClosed ? RequestCode.CHANNEL_CLOSED : RequestCode.UNREGISTER_CLIENT;
    this.deliver(atUs, new UnregisterClientRequest(code, `client-${slot}`, opts.group ?? 0), clientAddr(slot, opts.epoch ?? 0), true);
  }

  getConsumerList(atUs: number, group: number, slot = 0): GetConsumerListRequest {
    return this.deliver(atUs, new GetConsumerListRequest(group), clientAddr(slot, 0));
  }

  queryOffset(atUs: number, mq: number, opts: { group?: number; timestampUs?: number; slot?: number } = {}): QueryConsumerOffsetRequest {
    return this.deliver(atUs, new QueryConsumerOffsetRequest(opts.group ?? 0, mq, opts.timestampUs ?? 0), clientAddr(opts.slot ?? 0, 0));
  }

  /** UPDATE_CONSUMER_OFFSET, oneway. */
  updateOffset(atUs: number, mq: number, offset: number, opts: { group?: number; slot?: number } = {}): void {
    this.deliver(atUs, new UpdateConsumerOffsetRequest(opts.group ?? 0, mq, offset), clientAddr(opts.slot ?? 0, 0), true);
  }

  /** CONSUMER_SEND_MSG_BACK for a message the client consumed from (mq, offset). */
  sendBack(atUs: number, m: SendBackInput): ConsumerSendMsgBackRequest {
    const stored = (read: (q: QueueStore) => number): number => read(this.store(m.mq));
    const req = new ConsumerSendMsgBackRequest(
      m.group ?? 0, m.mq, m.offset, m.delayLevel ?? 0, m.maxReconsumeTimes ?? 16,
      m.originKey ?? stored((q) => q.originKey(m.offset)),
      m.originBornUs ?? stored((q) => q.originBornUs(m.offset)),
      m.bodyBytes ?? stored((q) => q.bodyBytes(m.offset)),
      m.tag ?? stored((q) => q.tag(m.offset)),
      m.reconsumeTimes ?? stored((q) => q.reconsumeTimes(m.offset)),
    );
    return this.deliver(atUs, req, clientAddr(m.slot ?? 0, 0), m.oneway ?? false);
  }

  // ---------------------------------------------------------------- the broker's answers

  /** The broker's replies to `req`, in order (a request gets at most one). */
  repliesTo(req: Command): { msg: Command; atUs: number }[] {
    return this.ctx.replies.filter((r) => r.request === req);
  }

  /** The one reply to `req` (throws unless there is exactly one). */
  reply<T extends Command>(req: Command): T {
    const rs = this.repliesTo(req);
    if (rs.length !== 1) throw new Error(`fixture: ${rs.length} replies to request code ${req.code}, expected 1`);
    return rs[0]!.msg as T;
  }

  /** The answers to a pull, flattened: time, code, offsets of the header and of the messages. */
  answers(req: PullMessageRequest): PullAnswer[] {
    return this.repliesTo(req).map(({ msg, atUs }) => {
      const r = msg as PullMessageResponse;
      return {
        atUs, code: r.code, nextBeginOffset: r.nextBeginOffset, minOffset: r.minOffset, maxOffset: r.maxOffset,
        count: r.msgs.count, offsets: Array.from(r.msgs.offsets.subarray(0, r.msgs.count)),
      };
    });
  }

  /** NOTIFY_CONSUMER_IDS_CHANGED sent so far: to whom, for which group, when. */
  notifications(): { to: number; group: number; atUs: number }[] {
    return this.ctx.sent
      .filter((s) => s.msg.code === RequestCode.NOTIFY_CONSUMER_IDS_CHANGED)
      .map((s) => ({ to: s.to, group: (s.msg as NotifyConsumerIdsChangedRequest).consumerGroup, atUs: s.atUs }));
  }
}
