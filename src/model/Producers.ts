// The topics' producers and how their messages reach the brokers. A send is not modelled as a network
// round trip: a message is stored on its broker at its born time (its latency is part of the born time).
// Production is lazy — `advanceTo(t)` stores every message born by t — so a backlogged run schedules no
// event per produced message; brokers call it before they read or write their store, so nothing a
// component sees depends on when it last ran. A broker holding a pull asks to be woken when the topic's
// next message is dispatched (`wakeAtNextArrival`): at the reput pass at or after its birth (1 ms grid,
// src/broker/reput.ts, broker spec §1.2). One event per pass with arrivals, per topic (a topic nobody
// waits on costs nothing), wakes every queue that got a message while a pull was held on it, in the
// order the messages were stored — the reput thread's order.
import type { Broker } from "../broker/Broker.ts";
import type { MessageSource } from "../broker/MessageStore.ts";
import { Producer } from "../client/Producer.ts";
import type { Routes, TopicRoute } from "../protocol/routes.ts";
import { isWriteable } from "../protocol/topicConfig.ts";
import type { Model } from "../scenario/types.ts";
import type { Scheduler } from "../sim/Scheduler.ts";
import type { RandomStreams } from "../sim/streams.ts";
import { reputTickAtOrAfterUs } from "../broker/reput.ts";

/** DefaultMQProducer#retryTimesWhenSendFailed: a SYNC send makes 1 + 2 attempts (broker spec §7.4). */
const RETRY_TIMES_WHEN_SEND_FAILED = 2;
/** MQClientInstance's route poll: first 10 ms after start, then every pollNameServerInterval (§0.2, §12.4). */
const ROUTE_POLL_FIRST_US = 10_000;
const ROUTE_POLL_INTERVAL_US = 30_000_000;

export class Producers implements MessageSource {
  /** Per route topic; null for topics without producers (retry, DLQ, produce-less topics). */
  readonly producers: (Producer | null)[] = [];
  /** The producers that exist, in topic order. */
  private readonly active: Producer[] = [];
  /** Sends that found no writable broker for the topic (the producer gives up). */
  produceFailed = 0;
  private producedUntilUs = -1;
  /** Per topic: the reput pass its arrival wake-up is posted for, −1 if none. */
  private readonly armedAtUs: number[] = [];
  /** Queues that got a message while a pull was held on them, in storing order. */
  private readonly arrived: number[] = [];
  private readonly kindArrival: number;
  private readonly kindRoutePoll: number;
  /** The route poll already scheduled (µs), −1 if none: polls run only after a broker changed. */
  private routePollAtUs = -1;
  /** The producers' route polls' start phase in [0, 1) of the interval ("phase": "random"; 0: aligned). */
  private readonly pollPhase: number;
  /** Per global queue: its index in its topic's queue list. */
  private readonly topicQueueIndex: Int32Array;

  constructor(
    model: Model,
    private readonly routes: Routes,
    private readonly brokers: readonly Broker[],
    private readonly sched: Scheduler,
    streams: RandomStreams,
  ) {
    this.pollPhase = model.phase === "random" ? streams.get("phase/producers")() : 0;
    this.kindArrival = sched.defineKind("topicArrival", (topic) => this.onArrival(topic));
    this.kindRoutePoll = sched.defineKind("producerRoutePoll", () => this.onRoutePoll());
    this.topicQueueIndex = new Int32Array(routes.queues.length).fill(-1);
    for (const t of routes.topics) {
      this.armedAtUs.push(-1);
      const produce = t.modelTopic >= 0 ? model.topics[t.modelTopic]!.produce : null;
      if (produce === null) {
        this.producers.push(null);
        continue;
      }
      const queues = t.queues;
      for (let i = 0; i < queues.length; i++) this.topicQueueIndex[queues[i]!] = i;
      const topic = t.index;
      const sink = {
        appendProduced: (q: number, bornUs: number, body: number, tag: number, draw: number) => this.store(topic, queues, q, bornUs, body, tag, draw),
      };
      // sendWhichQueue starts at a random position (ThreadLocalIndex), from its own stream.
      const rrStart = Math.floor(streams.get(`topic/${t.name}/sendWhichQueue`)() * queues.length);
      // sendLatencyFaultEnable: a failed broker is avoided for 600 s (4.x) or 10 s (5.1.4+), broker spec §7.3.
      const latencyFault = produce.sendLatencyFaultEnable
        ? { queueBroker: queues.map((q) => routes.brokerOf(q)), isolationUs: model.profile === "5.x" ? 10_000_000 : 600_000_000 }
        : null;
      const p = new Producer(produce, queues.length, sink, streams.stateful(`topic/${t.name}/arrival`), streams.stateful(`topic/${t.name}/attributes`), 0, rrStart, latencyFault);
      p.queueOfWeight = weightQueues(routes, t, model.topics[t.modelTopic]!.queuesPerBroker);
      // The first send fetches the route (tryToFindTopicPublishInfo): the topic config the run starts with.
      p.setPublishList(this.publishList(t, false), this.publishList(t, false, true));
      this.producers.push(p);
      this.active.push(p);
    }
  }

  /** Stores every topic's backlog: born as if the producer had run ahead at its initial rate (an hour if that is 0). */
  seedBacklogs(model: Model): void {
    for (const t of model.topics) {
      const p = this.producers[t.index];
      if (!p || !t.produce) continue;
      const total = t.produce.backlog * (this.publishList(this.routes.topics[t.index]!, false)?.length ?? this.routes.topicQueues(t.index).length);
      const spanUs = t.produce.rate > 0 ? Math.round((total / t.produce.rate) * 1e6) : 3600e6;
      p.seedBacklog(t.produce.backlog, 0, spanUs);
    }
  }

  /**
   * Stores every message born by `nowUs`, across topics in birth order (ties: topic order), so the
   * commit log's order — which decides what is still in page cache — does not depend on when this
   * last ran.
   */
  advanceTo(nowUs: number): void {
    if (nowUs === this.producedUntilUs) return;
    this.producedUntilUs = nowUs;
    const ps = this.active;
    if (ps.length === 1) {
      ps[0]!.advanceTo(nowUs);
      return;
    }
    for (;;) {
      let next: Producer | null = null;
      for (let i = 0; i < ps.length; i++) {
        const p = ps[i]!;
        if (p.nextArrivalUs <= nowUs && (next === null || p.nextArrivalUs < next.nextArrivalUs)) next = p;
      }
      if (next === null) return;
      next.produceNext();
    }
  }

  wakeAtNextArrival(topic: number): void {
    if (this.armedAtUs[topic]! >= 0) return;
    const p = this.producers[topic];
    if (!p || p.nextArrivalUs === Infinity) return;
    this.arm(topic, reputTickAtOrAfterUs(Math.max(p.nextArrivalUs, this.sched.nowUs)));
  }

  /** MessageSource#arrivedUndispatched: stored messages (a retry, a birth since the last pass) wait for the next pass. */
  arrivedUndispatched(mq: number): void {
    this.arrived.push(mq);
    this.arm(this.routes.topicOf(mq), reputTickAtOrAfterUs(this.sched.nowUs));
  }

  /** Posts the topic's wake-up at `atUs` unless one is posted for then or earlier (a later one turns stale). */
  private arm(topic: number, atUs: number): void {
    const armed = this.armedAtUs[topic]!;
    if (armed >= 0 && armed <= atUs) return;
    this.armedAtUs[topic] = atUs;
    this.sched.post(atUs, this.kindArrival, topic);
  }

  /** MessageSource#regenerate: replays the queue's topic producer. */
  regenerate(mq: number, draw: number, count: number, bornUs: Float64Array, bodyBytes: Int32Array, tag: Int16Array): void {
    this.producers[this.routes.topicOf(mq)]!.regenerate(this.topicQueueIndex[mq]!, draw, count, bornUs, bodyBytes, tag);
  }

  /**
   * A producer's send (DefaultMQProducerImpl#sendDefaultImpl, broker spec §7.4): the chosen queue's
   * broker, or — if it refuses — up to two retries, each on the queue selectOneMessageQueue(lastBrokerName)
   * gives: the round-robin index moves on to a queue of another broker. A selector's send (queueSelect
   * "random" or weights) is not retried. A message that does not land on its chosen queue cannot be
   * replayed from that queue's draws: both queues' stores are told (the message is stored with draw −1,
   * the chosen queue's draw sequence is broken).
   */
  private store(topic: number, queues: readonly number[], q: number, bornUs: number, bodyBytes: number, tag: number, draw: number): void {
    if (q < 0) {
      this.produceFailed++; // no queue in the route: "No route info of this topic"
      return;
    }
    let mq = queues[q]!;
    let broker = this.brokers[this.routes.brokerOf(mq)]!;
    if (!broker.acceptsWrites() || !this.queueIdValid(mq)) {
      broker.refusedWrite(mq);
      draw = -1;
      let last = this.routes.brokerOf(mq);
      const producer = this.producers[topic]!;
      producer.isolateBroker(last, bornUs);
      mq = -1;
      for (let attempt = 1; attempt <= RETRY_TIMES_WHEN_SEND_FAILED && mq < 0; attempt++) {
        const r = producer.retrySelect((x) => this.routes.brokerOf(queues[x]!) === last);
        if (r < 0) break;
        const cand = queues[r]!;
        broker = this.brokers[this.routes.brokerOf(cand)]!;
        if (broker.acceptsWrites() && this.queueIdValid(cand)) mq = cand;
        else {
          broker.refusedWrite(-1);
          last = this.routes.brokerOf(cand);
          producer.isolateBroker(last, bornUs);
        }
      }
      if (mq < 0) {
        this.produceFailed++;
        return;
      }
    }
    if (broker.putMessage(mq, bornUs, bodyBytes, tag, draw)) this.arrived.push(mq);
  }

  /**
   * A broker went down or up, or its permission changed: the name server knows at once (a closed channel,
   * a re-registration), the producers at their next route poll (10 ms after start, then every 30 s).
   * Polls that could change nothing are not simulated.
   */
  brokerStateChanged(): void {
    const now = this.sched.nowUs;
    const first = ROUTE_POLL_FIRST_US + Math.round(this.pollPhase * ROUTE_POLL_INTERVAL_US);
    const k = Math.max(0, Math.ceil((now - first) / ROUTE_POLL_INTERVAL_US));
    const at = first + k * ROUTE_POLL_INTERVAL_US;
    if (this.routePollAtUs === at) return;
    this.routePollAtUs = at;
    this.sched.scheduleAt(at, this.kindRoutePoll, 0);
  }

  /**
   * msgCheck (AbstractSendMessageProcessor, 4.9.7 and 5.1.4): a queueId ≥ max(writeQueueNums,
   * readQueueNums) is answered SYSTEM_ERROR ("request queueId is illegal"), which the producer retries
   * like any refused send (SYSTEM_ERROR is in DefaultMQProducer#retryResponseCodes). No queueId is remapped:
   * only a negative one is replaced by a random one modulo writeQueueNums. A queueId between writeQueueNums and readQueueNums is stored, and the topic's
   * perm is not checked for a normal send: a producer with an older route keeps writing there until its
   * next route poll.
   */
  private queueIdValid(mq: number): boolean {
    const q = this.routes.queues[mq]!;
    const tc = this.routes.topicConfigs;
    return q.queueId < tc.writeQueueNums(q.topicIndex, q.brokerIndex) || q.queueId < tc.readQueueNums(q.topicIndex, q.brokerIndex);
  }

  /**
   * topicRouteData2TopicPublishInfo (MQClientInstance, broker spec §7.1): per broker whose topic perm is
   * writable (and, `live`, that is up, has a master and takes writes), queueIds 0..writeQueueNums−1.
   * Topic-queue indexes; null = every queue. `configOnly`: by the topic config alone (a selector's choice).
   */
  private publishList(t: TopicRoute, live: boolean, configOnly = false): number[] | null {
    const tc = this.routes.topicConfigs;
    const list: number[] = [];
    t.queues.forEach((mq, i) => {
      const q = this.routes.queues[mq]!;
      if (!configOnly && live) {
        const b = this.brokers[q.brokerIndex]!;
        if (b.down || !b.writable) return;
      }
      if (isWriteable(tc.perm(t.index, q.brokerIndex)) && q.queueId < tc.writeQueueNums(t.index, q.brokerIndex)) list.push(i);
    });
    return list.length === t.queues.length ? null : list;
  }

  /** updateTopicRouteInfoFromNameServer: each producer's publish list = the writable queues of brokers up and writable. */
  private onRoutePoll(): void {
    this.routePollAtUs = -1;
    this.advanceTo(this.sched.nowUs);
    for (const t of this.routes.topics) {
      const p = this.producers[t.index];
      if (!p) continue;
      p.setPublishList(this.publishList(t, true), this.publishList(t, true, true));
    }
  }

  /** The reput thread's notifyMessageArriving for each queue that got messages while held. */
  private onArrival(topic: number): void {
    if (this.armedAtUs[topic] !== this.sched.nowUs) return; // superseded by an earlier wake-up
    this.armedAtUs[topic] = -1;
    this.advanceTo(this.sched.nowUs);
    const arrived = this.arrived;
    for (let i = 0; i < arrived.length; i++) {
      const mq = arrived[i]!;
      this.brokers[this.routes.brokerOf(mq)]!.processor.onArrived(mq);
    }
    // pop, not `length = 0`, which calls into V8's runtime; this runs once per arrival wake-up.
    while (arrived.length > 0) arrived.pop();
    for (let b = 0; b < this.brokers.length; b++) {
      if (this.brokers[b]!.heldOnTopic(topic) > 0) {
        this.wakeAtNextArrival(topic);
        return;
      }
    }
  }
}

/** Producer#queueOfWeight: weight index (brokerPosition × queuesPerBroker + queueId) → topic queue index; null when they agree. */
function weightQueues(routes: Routes, t: TopicRoute, queuesPerBroker: number): Int32Array | null {
  if (t.queues.length === t.brokers.length * queuesPerBroker) return null;
  const map = new Int32Array(t.brokers.length * queuesPerBroker);
  t.queues.forEach((mq, i) => {
    const q = routes.queues[mq]!;
    if (q.queueId < queuesPerBroker) map[t.brokers.indexOf(q.brokerIndex) * queuesPerBroker + q.queueId] = i;
  });
  return map;
}
