// A topic's producers: arrivals (Poisson or evenly spaced, with rate changes), queue selection, tag mix
// and body sizes. Arrivals are materialised lazily — `advanceTo(t)` appends every message born at or
// before t — so a backlogged run schedules no event per produced message. Someone who must react to
// the next arrival (a held long poll) asks for `nextArrivalUs`.
//
// Every message a producer ever made can be made again: `regenerate` replays the topic's streams from a
// checkpoint taken every CHECKPOINT_DRAWS messages, so the store need not keep the attributes of messages
// nobody holds (issue 11: derive, don't store).
import type { ProduceModel } from "../scenario/types.ts";
import { restoreRng, type AleaState, type StatefulRng } from "../sim/streams.ts";
import { RetrySteps, type RetryStepsCursor } from "./RetrySteps.ts";

/** Receives each produced message: its queue (index into the topic's queue list), birth, body, tag and
 * the producer's draw number (−1 for a seeded backlog message, which no replay re-creates). */
export interface ProducedSink {
  appendProduced(topicQueue: number, bornUs: number, bodyBytes: number, tag: number, draw: number): void;
}

/** A checkpoint every 2^12 messages of the topic. */
export const CHECKPOINT_BITS = 12;
const CHECKPOINT_MASK = (1 << CHECKPOINT_BITS) - 1;

/** Numbers in a packed checkpoint: two alea states (c, s0, s1, s2), exactUs, nextArrivalUs, rate, changeIdx, rr. */
const CHECKPOINT_WORDS = 13;

/** The producer's state just before a draw: enough to replay it and everything after it. */
interface Checkpoint {
  arrival: AleaState;
  attr: AleaState;
  exactUs: number;
  nextArrivalUs: number;
  rate: number;
  changeIdx: number;
  rr: number;
}

/** A sink that keeps the messages of one queue, for `regenerate`. */
class Collector implements ProducedSink {
  queue = 0;
  from = 0;
  n = 0;
  count = 0;
  bornUs: Float64Array = new Float64Array(0);
  bodyBytes: Int32Array = new Int32Array(0);
  tag: Int16Array = new Int16Array(0);
  appendProduced(topicQueue: number, bornUs: number, bodyBytes: number, tag: number, draw: number): void {
    if (topicQueue !== this.queue || draw < this.from || this.n >= this.count) return;
    this.bornUs[this.n] = bornUs;
    this.bodyBytes[this.n] = bodyBytes;
    this.tag[this.n] = tag;
    this.n++;
  }
}

export class Producer {
  /** Birth time of the next message, µs; Infinity when the rate is 0 for good. */
  nextArrivalUs = Infinity;
  /** The unrounded time of the next arrival, µs. */
  private exactUs = 0;
  private rate = 0;
  private changeIdx = 0;
  /** Round robin's sendWhichQueue: the next queue index before the modulo (broker spec §7.2). */
  private rr = 0;
  /**
   * Extra round-robin steps a failed send's retries took, by the draw they followed: a retry draws from the
   * same index (selectOneMessageQueue(lastBrokerName), §7.2), so replays must too. Shared with the
   * replayer; run-length encoded (a long refusal is periodic).
   */
  private retrySteps = new RetrySteps();
  /**
   * The publish list (topic-queue indexes the producer's route offers, broker spec §7.1) from each route
   * poll that changed it, by the first draw it applied to; null = every queue. Shared with the replayer.
   */
  private routeLog: { draw: number; list: readonly number[] | null; avoid: Uint8Array | null; sel: readonly number[] | null }[] = [];
  private list: readonly number[] | null = null;
  /**
   * The queues a selector's send ("random") picks from: the topic's writable queues by the topic config
   * (PERM_WRITE, queueId < writeQueueNums) at the last route poll; null = every queue. Logged with the list.
   */
  private sel: readonly number[] | null = null;
  /**
   * queueSelect weights name queues as brokerPosition × queuesPerBroker + queueId; when updateTopic makes
   * a broker hold more queues than queuesPerBroker, this maps a weight's index to the topic queue index.
   */
  queueOfWeight: Int32Array | null = null;
  /**
   * sendLatencyFaultEnable (MQFaultStrategy, broker spec §7.3): per topic queue, 1 when its broker is
   * isolated after a failed send; null when none is (or the switch is off). Logged with the publish list.
   */
  private avoid: Uint8Array | null = null;
  /** Latency fault tolerance: each broker's isolation end (µs), the queues' brokers, the isolation length. */
  private readonly isolatedUntilUs: Float64Array;
  private isolationEndsUs = Infinity;
  /** Replay only: the next routeLog entry to apply. */
  private routeCursor = -1;
  /** Replay only: where the replay reads the extra steps. */
  private retryCursor: RetryStepsCursor | null = null;
  private readonly tagCum: number[];
  private readonly queueCum: number[] | null;
  private readonly queueCount: number;
  /** Messages produced by produceNext so far (the next one's draw number). */
  draws = 0;
  /** The state before draw k·2^CHECKPOINT_BITS, packed: CHECKPOINT_WORDS doubles from k·CHECKPOINT_WORDS
   * (one per 4096 messages for the whole run: 104 B against ~320 B as three objects and eight boxed numbers). */
  private checkpoints: number[] = [];
  /** Index of the first checkpoint still kept (those below were released: no retained message needs them). */
  private checkpointBase = 0;
  private replayer: Producer | null = null;
  private collector: Collector | null = null;

  constructor(
    private readonly model: ProduceModel,
    queueCount: number,
    private sink: ProducedSink,
    private arrivalRng: StatefulRng,
    private attrRng: StatefulRng,
    startUs: number,
    /** sendWhichQueue's random start (ThreadLocalIndex: a random int, seeded here), modulo the queue count. */
    rrStart = 0,
    /** With sendLatencyFaultEnable: each topic queue's broker and how long a failed broker is avoided (µs). */
    private readonly latencyFault: { queueBroker: readonly number[]; isolationUs: number } | null = null,
  ) {
    this.isolatedUntilUs = new Float64Array(latencyFault === null ? 0 : Math.max(0, ...latencyFault.queueBroker) + 1);
    this.queueCount = queueCount;
    this.rr = rrStart;
    this.tagCum = cumulative(model.tagWeights);
    this.queueCum = typeof model.queueSelect === "object" ? cumulative(model.queueSelect.weights) : null;
    this.rate = model.rate;
    this.scheduleFrom(startUs);
  }

  /**
   * Appends a backlog of `perQueue` messages to every queue of the publish list (every queue without
   * one), born evenly over the `spanUs` before start.
   */
  seedBacklog(perQueue: number, startUs: number, spanUs: number): void {
    if (perQueue <= 0) return;
    const step = spanUs / perQueue;
    const list = this.list;
    const n = list === null ? this.queueCount : list.length;
    for (let i = 0; i < perQueue; i++) {
      const bornUs = Math.floor(startUs - spanUs + i * step);
      for (let k = 0; k < n; k++) this.sink.appendProduced(list === null ? k : list[k]!, bornUs, this.body(), this.tag(), -1);
    }
  }

  /** Produces every message born at or before `nowUs`. */
  advanceTo(nowUs: number): void {
    while (this.nextArrivalUs <= nowUs) this.produceNext();
  }

  /** Produces the next message (born at nextArrivalUs). */
  produceNext(): void {
    const draw = this.draws++;
    if ((draw & CHECKPOINT_MASK) === 0 && this.sink !== this.collector) this.saveCheckpoint(draw >>> CHECKPOINT_BITS);
    const bornUs = this.nextArrivalUs;
    if (this.routeCursor >= 0) {
      const log = this.routeLog;
      while (this.routeCursor < log.length && log[this.routeCursor]!.draw <= draw) {
        const e = log[this.routeCursor++]!;
        this.list = e.list;
        this.avoid = e.avoid;
        this.sel = e.sel;
      }
    } else if (bornUs >= this.isolationEndsUs) {
      this.refreshAvoid(bornUs, draw);
    }
    this.sink.appendProduced(this.selectQueue(), bornUs, this.body(), this.tag(), draw);
    if (this.retryCursor !== null) this.rr += this.retryCursor.stepsAfter(draw);
    this.scheduleFrom(this.exactUs);
  }

  /**
   * A retry of the send just drawn, after its broker refused it (sendDefaultImpl, §7.4): the round-robin
   * index moves on — up to one full turn — to the first queue `onLastBroker` rejects not, else one more
   * plain step (selectOneMessageQueue(lastBrokerName), §7.2). Returns that queue's index, or −1 when the
   * topic's queues are chosen by a selector (send(msg, selector, arg) is not retried).
   */
  retrySelect(onLastBroker: (topicQueue: number) => boolean): number {
    if (this.model.queueSelect !== "roundRobin") return -1;
    const n = this.list === null ? this.queueCount : this.list.length;
    const before = this.rr;
    let q = -1;
    for (let i = 0; i < n && q < 0; i++) {
      const cand = this.roundRobin(n);
      if (!onLastBroker(cand)) q = cand;
    }
    if (q < 0) q = this.roundRobin(n);
    this.retrySteps.add(this.draws - 1, this.rr - before);
    return q;
  }

  /**
   * The next queue of the publish list (n of them) by sendWhichQueue. With isolated brokers, the first
   * queue from that index on whose broker is available (4.9 MQFaultStrategy#selectOneMessageQueue: the
   * index moves once, the walk does not move it); none available: the plain pick.
   */
  private roundRobin(n: number): number {
    const i = this.rr++ % n;
    const list = this.list;
    const q = list === null ? i : list[i]!;
    const avoid = this.avoid;
    if (avoid === null || avoid[q] === 0) return q;
    for (let k = 1; k < n; k++) {
      const j = (i + k) % n;
      const c = list === null ? j : list[j]!;
      if (avoid[c] === 0) return c;
    }
    return q;
  }

  /**
   * A send to `broker` failed (sendLatencyFaultEnable, §7.3): an exception counts as a 30 s latency, so
   * the broker is not available for the profile's isolation (4.9: 600 s; 5.x: 10 s) from the failed
   * send's time. From the next draw on.
   */
  isolateBroker(broker: number, atUs: number): void {
    const lf = this.latencyFault;
    if (lf === null) return;
    this.isolatedUntilUs[broker] = atUs + lf.isolationUs;
    this.refreshAvoid(atUs, this.draws);
  }

  /** Recomputes the isolated queues at `nowUs`; the change applies from draw `fromDraw` on. */
  private refreshAvoid(nowUs: number, fromDraw: number): void {
    const lf = this.latencyFault!;
    let ends = Infinity;
    let avoid: Uint8Array | null = null;
    for (let q = 0; q < lf.queueBroker.length; q++) {
      const until = this.isolatedUntilUs[lf.queueBroker[q]!]!;
      if (until > nowUs) {
        (avoid ??= new Uint8Array(lf.queueBroker.length))[q] = 1;
        if (until < ends) ends = until;
      }
    }
    this.isolationEndsUs = ends;
    const same = avoid === null ? this.avoid === null : this.avoid !== null && avoid.every((v, i) => v === this.avoid![i]);
    if (same) return;
    this.avoid = avoid;
    this.routeLog.push({ draw: fromDraw, list: this.list, avoid, sel: this.sel });
  }

  /**
   * A route poll's publish list (updateTopicRouteInfoFromNameServer, §7.1): the topic-queue indexes of
   * brokers that take writes as the name server sees them; null = all. From the next draw on.
   */
  setPublishList(list: readonly number[] | null, sel: readonly number[] | null = this.sel): void {
    if (sameList(list, this.list) && sameList(sel, this.sel)) return;
    this.list = list;
    this.sel = sel;
    this.routeLog.push({ draw: this.draws, list, avoid: this.avoid, sel });
  }

  private saveCheckpoint(k: number): void {
    const a = this.arrivalRng.state();
    const b = this.attrRng.state();
    if (this.checkpoints.length !== (k - this.checkpointBase) * CHECKPOINT_WORDS) throw new RangeError(`checkpoint ${k} out of order`);
    this.checkpoints.push(a.c, a.s0, a.s1, a.s2, b.c, b.s0, b.s1, b.s2, this.exactUs, this.nextArrivalUs, this.rate, this.changeIdx, this.rr);
  }

  /**
   * Forgets the checkpoints no replay from `draw` on needs (retention deleted every message made before
   * it): memory follows the retained messages, not the run's history. Released in whole blocks of 256
   * checkpoints (a million messages), so the copy this costs is rare.
   */
  releaseCheckpointsBelow(draw: number): void {
    const k = Math.floor(draw / (1 << CHECKPOINT_BITS));
    const drop = k - this.checkpointBase;
    if (drop < 256) return;
    this.checkpoints = this.checkpoints.slice(drop * CHECKPOINT_WORDS);
    this.checkpointBase = k;
  }

  private checkpoint(k: number): Checkpoint {
    const w = this.checkpoints;
    const i = (k - this.checkpointBase) * CHECKPOINT_WORDS;
    if (i < 0 || i >= w.length) throw new RangeError(`no checkpoint ${k} (kept from ${this.checkpointBase})`);
    return {
      arrival: { c: w[i]!, s0: w[i + 1]!, s1: w[i + 2]!, s2: w[i + 3]! },
      attr: { c: w[i + 4]!, s0: w[i + 5]!, s1: w[i + 6]!, s2: w[i + 7]! },
      exactUs: w[i + 8]!, nextArrivalUs: w[i + 9]!, rate: w[i + 10]!, changeIdx: w[i + 11]!, rr: w[i + 12]!,
    };
  }

  /**
   * Re-creates, exactly as first produced, the `count` messages the producer sent to `topicQueue` from
   * draw `draw` on (the store guarantees none of them went elsewhere). Replays the topic from the
   * checkpoint at or before `draw` on a private copy: the live streams are untouched.
   */
  regenerate(topicQueue: number, draw: number, count: number, bornUs: Float64Array, bodyBytes: Int32Array, tag: Int16Array): void {
    if (draw < 0 || draw >= this.draws) throw new RangeError(`no draw ${draw} to replay (${this.draws} made)`);
    const cp = this.checkpoint(draw >>> CHECKPOINT_BITS);
    const col = (this.collector ??= new Collector());
    col.queue = topicQueue;
    col.from = draw;
    col.n = 0;
    col.count = count;
    col.bornUs = bornUs;
    col.bodyBytes = bodyBytes;
    col.tag = tag;
    let r = this.replayer;
    if (r === null) {
      r = new Producer(this.model, this.queueCount, col, restoreRng(cp.arrival), restoreRng(cp.attr), 0);
      this.replayer = r;
    }
    r.arrivalRng = restoreRng(cp.arrival);
    r.attrRng = restoreRng(cp.attr);
    r.exactUs = cp.exactUs;
    r.nextArrivalUs = cp.nextArrivalUs;
    r.rate = cp.rate;
    r.changeIdx = cp.changeIdx;
    r.rr = cp.rr;
    r.draws = (draw >>> CHECKPOINT_BITS) << CHECKPOINT_BITS;
    r.retrySteps = this.retrySteps;
    r.retryCursor = this.retrySteps.cursor(r.draws);
    r.routeLog = this.routeLog;
    r.list = null;
    r.avoid = null;
    r.sel = null;
    r.queueOfWeight = this.queueOfWeight;
    r.routeCursor = 0;
    r.collector = col;
    while (col.n < count) {
      if (r.draws >= this.draws) throw new RangeError(`replay of queue ${topicQueue} from draw ${draw} found ${col.n} of ${count} messages`);
      r.produceNext();
    }
  }

  /**
   * Draws the next arrival after `fromUs`, honouring rate changes: a change restarts the draw at the
   * change time with the new rate (exact for Poisson, which is memoryless; evenly spaced arrivals
   * restart their spacing on the change). The clock runs in fractional µs so rounding never drifts the
   * rate; only the reported birth time is rounded (several messages may share one µs).
   */
  private scheduleFrom(fromUs: number): void {
    let t = fromUs;
    for (;;) {
      const change = this.model.rateChanges[this.changeIdx];
      const gap = this.rate > 0 ? this.interArrivalUs() : Infinity;
      const next = t + gap;
      if (change !== undefined && change.atUs <= next) {
        t = Math.max(t, change.atUs);
        this.rate = change.rate;
        this.changeIdx++;
        continue;
      }
      this.exactUs = next;
      this.nextArrivalUs = next === Infinity ? Infinity : Math.round(next);
      return;
    }
  }

  private interArrivalUs(): number {
    const meanUs = 1e6 / this.rate;
    if (this.model.arrival === "uniform") return meanUs;
    return -Math.log(1 - this.arrivalRng()) * meanUs;
  }

  private selectQueue(): number {
    const sel = this.model.queueSelect;
    if (sel === "roundRobin") {
      // An empty publish list: "No route info of this topic", the send fails (−1).
      const n = this.list === null ? this.queueCount : this.list.length;
      return n === 0 ? -1 : this.roundRobin(n);
    }
    if (sel === "random") {
      const list = this.sel;
      return list === null ? Math.floor(this.attrRng() * this.queueCount) : list.length === 0 ? -1 : list[Math.floor(this.attrRng() * list.length)]!;
    }
    const w = pick(this.queueCum!, this.attrRng());
    return this.queueOfWeight === null ? w : this.queueOfWeight[w]!;
  }

  private body(): number {
    return this.model.bodyBytes.sample(this.attrRng);
  }

  private tag(): number {
    return this.tagCum.length === 0 ? -1 : pick(this.tagCum, this.attrRng());
  }
}

function sameList(a: readonly number[] | null, b: readonly number[] | null): boolean {
  return a === null ? b === null : b !== null && a.length === b.length && a.every((q, i) => q === b[i]);
}

function cumulative(weights: readonly number[]): number[] {
  const total = weights.reduce((a, b) => a + b, 0);
  let acc = 0;
  return weights.map((w) => (acc += w / total));
}

function pick(cum: readonly number[], u: number): number {
  for (let i = 0; i < cum.length; i++) if (u < cum[i]!) return i;
  return cum.length - 1;
}
