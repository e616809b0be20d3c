// A topic's producers: arrivals (Poisson or evenly spaced, with rate changes), queue selection, tag mix
// and body sizes. Arrivals are materialised lazily — `advanceTo(t)` appends every message born at or
// before t — so a backlogged run schedules no event per produced message. Someone who must react to
// the next arrival (a held long poll) asks for `nextArrivalUs`.
import type { ProduceModel } from "../scenario/types.ts";
import type { Rng } from "../sim/streams.ts";

/** Receives each produced message: its queue (index into the topic's queue list), birth, body and tag. */
export interface ProducedSink {
  appendProduced(topicQueue: number, bornUs: number, bodyBytes: number, tag: number): void;
}

export class Producer {
  /** Birth time of the next message, µs; Infinity when the rate is 0 for good. */
  nextArrivalUs = Infinity;
  /** The unrounded time of the next arrival, µs. */
  private exactUs = 0;
  private rate = 0;
  private changeIdx = 0;
  private rr = 0;
  private readonly tagCum: number[];
  private readonly queueCum: number[] | null;
  private readonly queueCount: number;

  constructor(
    private readonly model: ProduceModel,
    queueCount: number,
    private readonly sink: ProducedSink,
    private readonly arrivalRng: Rng,
    private readonly attrRng: Rng,
    startUs: number,
  ) {
    this.queueCount = queueCount;
    this.tagCum = cumulative(model.tagWeights);
    this.queueCum = typeof model.queueSelect === "object" ? cumulative(model.queueSelect.weights) : null;
    this.rate = model.rate;
    this.scheduleFrom(startUs);
  }

  /** Appends a backlog of `perQueue` messages to every queue, born evenly over the `spanUs` before start. */
  seedBacklog(perQueue: number, startUs: number, spanUs: number): void {
    if (perQueue <= 0) return;
    const step = spanUs / perQueue;
    for (let i = 0; i < perQueue; i++) {
      const bornUs = Math.floor(startUs - spanUs + i * step);
      for (let q = 0; q < this.queueCount; q++) this.sink.appendProduced(q, bornUs, this.body(), this.tag());
    }
  }

  /** Produces every message born at or before `nowUs`. */
  advanceTo(nowUs: number): void {
    while (this.nextArrivalUs <= nowUs) this.produceNext();
  }

  /** Produces the next message (born at nextArrivalUs). */
  produceNext(): void {
    const bornUs = this.nextArrivalUs;
    this.sink.appendProduced(this.selectQueue(), bornUs, this.body(), this.tag());
    this.scheduleFrom(this.exactUs);
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
      const q = this.rr;
      this.rr = (this.rr + 1) % this.queueCount;
      return q;
    }
    if (sel === "random") return Math.floor(this.attrRng() * this.queueCount);
    return pick(this.queueCum!, this.attrRng());
  }

  private body(): number {
    return this.model.bodyBytes.sample(this.attrRng);
  }

  private tag(): number {
    return this.tagCum.length === 0 ? -1 : pick(this.tagCum, this.attrRng());
  }
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
