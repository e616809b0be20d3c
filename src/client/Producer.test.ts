// Producer: arrivals, rate changes, queue selection, tags, backlog and lazy materialisation.
// Statistical tolerances are a few standard errors of the quantity tested, stated beside each check.
import { describe, expect, it } from "vitest";
import { Producer } from "./Producer.ts";
import type { ProduceModel } from "../scenario/types.ts";
import { compileDist } from "../scenario/distributions.ts";
import { RandomStreams } from "../sim/streams.ts";

interface Produced {
  q: number;
  bornUs: number;
  bodyBytes: number;
  tag: number;
}

const S = 1_000_000;

function model(p: Partial<ProduceModel> = {}): ProduceModel {
  return {
    rate: 1000,
    arrival: "poisson",
    bodyBytes: compileDist("1KiB", "bytes", "bodyBytes"),
    tagWeights: [],
    queueSelect: "roundRobin",
    rateChanges: [],
    backlog: 0,
    ...p,
  };
}

/** A producer over `queues` queues whose sink records every message, seeded from `seed`. */
function producer(p: Partial<ProduceModel>, queues = 4, seed = 1) {
  const out: Produced[] = [];
  const streams = new RandomStreams(seed);
  const prod = new Producer(
    model(p),
    queues,
    { appendProduced: (q, bornUs, bodyBytes, tag) => out.push({ q, bornUs, bodyBytes, tag }) },
    streams.stateful("arrival"),
    streams.stateful("attributes"),
    0,
  );
  return { prod, out };
}

function gaps(out: Produced[]): number[] {
  return out.slice(1).map((m, i) => m.bornUs - out[i]!.bornUs);
}

function counts(values: number[], n: number): number[] {
  const c = new Array<number>(n).fill(0);
  for (const v of values) c[v]!++;
  return c;
}

describe("Producer arrivals: Poisson", () => {
  it("100 000 arrivals at 1000 msg/s have a mean gap of 1000 µs within 1 % and exponential spread", () => {
    const { prod, out } = producer({ rate: 1000 });
    prod.advanceTo(100 * S);
    const g = gaps(out);
    const mean = g.reduce((a, b) => a + b, 0) / g.length;
    // Standard error of the mean of ~10^5 exponential gaps: 1000 / √10^5 ≈ 3.2 µs; 1 % is ~3 σ.
    expect(Math.abs(mean - 1000)).toBeLessThan(10);
    // An exponential's coefficient of variation is 1 (a uniform process would give 0).
    const sd = Math.sqrt(g.reduce((a, b) => a + (b - mean) ** 2, 0) / g.length);
    expect(sd / mean).toBeGreaterThan(0.97);
    expect(sd / mean).toBeLessThan(1.03);
    // Count over 100 s: Poisson(10^5), σ ≈ 316.
    expect(Math.abs(out.length - 100_000)).toBeLessThan(1000);
  });

  it("equal seeds give equal arrival sequences; different seeds different ones", () => {
    const a = producer({ rate: 500 }, 4, 7);
    const b = producer({ rate: 500 }, 4, 7);
    const c = producer({ rate: 500 }, 4, 8);
    for (const x of [a, b, c]) x.prod.advanceTo(10 * S);
    expect(JSON.stringify(b.out)).toBe(JSON.stringify(a.out));
    expect(JSON.stringify(c.out.map((m) => m.bornUs))).not.toBe(JSON.stringify(a.out.map((m) => m.bornUs)));
  });
});

describe("Producer arrivals: uniform", () => {
  it("1000 msg/s are born exactly 1000 µs apart, the first at 1000 µs", () => {
    const { prod, out } = producer({ rate: 1000, arrival: "uniform" });
    prod.advanceTo(10 * S);
    expect(out).toHaveLength(10_000);
    expect(out[0]!.bornUs).toBe(1000);
    expect(new Set(gaps(out))).toEqual(new Set([1000]));
  });

  // Regression (fixed in src/client/Producer.ts scheduleFrom): each gap used to be rounded to a whole µs
  // on its own, so the rounding error accumulated: 30 000 msg/s (33.3 µs) gave 33 µs gaps, 30 303 msg/s;
  // 300 000 msg/s gave 333 333 msg/s (+11 %), 600 000 gave 500 000 (−17 %), and anything above
  // 1 000 000 msg/s was capped at 1 000 000. The arrival clock is now an exact float (next = prevExact
  // + gap) and only the reported birth time is rounded, so gaps differ by at most 1 µs and the long-run
  // rate is the configured one.
  it("30 000 msg/s uniform gives 30 000 messages a second (gaps of 33 or 34 µs, rounding not accumulated)", () => {
    const { prod, out } = producer({ rate: 30_000, arrival: "uniform" });
    prod.advanceTo(2 * S);
    expect(Math.abs(out.length - 60_000)).toBeLessThanOrEqual(1);
    expect(new Set(gaps(out))).toEqual(new Set([33, 34]));
  });
});

describe("Producer rate changes", () => {
  it("uniform 1000 msg/s, 0 from 1 s, 1000 again from 2 s: nothing is born in (1 s, 2 s], arrivals resume 1 ms after 2 s", () => {
    const { prod, out } = producer({
      rate: 1000,
      arrival: "uniform",
      rateChanges: [{ atUs: S, rate: 0 }, { atUs: 2 * S, rate: 1000 }],
    });
    prod.advanceTo(3 * S);
    const born = out.map((m) => m.bornUs);
    expect(born.filter((t) => t > S && t <= 2 * S)).toEqual([]);
    expect(born.filter((t) => t > 2 * S)[0]).toBe(2 * S + 1000);
    expect(born.filter((t) => t > 2 * S)).toHaveLength(1000); // 2.001 s … 3.000 s
    expect(Math.max(...born.filter((t) => t <= S))).toBeLessThanOrEqual(S);
  });

  it("rate 0 for good: nothing is ever born and the next arrival is Infinity", () => {
    const { prod, out } = producer({ rate: 1000, arrival: "uniform", rateChanges: [{ atUs: S / 2, rate: 0 }] });
    prod.advanceTo(3600 * S);
    expect(out).toHaveLength(499);
    expect(prod.nextArrivalUs).toBe(Infinity);
  });

  it("starting at rate 0, the first arrival comes one gap after the change to 100 msg/s at 5 s", () => {
    const { prod, out } = producer({ rate: 0, arrival: "uniform", rateChanges: [{ atUs: 5 * S, rate: 100 }] });
    expect(prod.nextArrivalUs).toBe(5 * S + 10_000);
    prod.advanceTo(6 * S);
    expect(out).toHaveLength(100);
  });

  it("Poisson 1000 msg/s for 10 s then 5000 msg/s for 10 s: each window's count matches its rate", () => {
    const { prod, out } = producer({ rate: 1000, rateChanges: [{ atUs: 10 * S, rate: 5000 }] });
    prod.advanceTo(20 * S);
    const first = out.filter((m) => m.bornUs <= 10 * S).length;
    const second = out.length - first;
    // Poisson(10 000): σ = 100; Poisson(50 000): σ ≈ 224. Bounds at ~4 σ.
    expect(Math.abs(first - 10_000)).toBeLessThan(400);
    expect(Math.abs(second - 50_000)).toBeLessThan(900);
  });
});

describe("Producer queue selection", () => {
  it("roundRobin cycles the queues in order from queue 0", () => {
    const { prod, out } = producer({ rate: 1000, arrival: "uniform" }, 3);
    prod.advanceTo(10_000);
    expect(out.map((m) => m.q)).toEqual([0, 1, 2, 0, 1, 2, 0, 1, 2, 0]);
  });

  it("random spreads 40 000 messages evenly over 4 queues", () => {
    const { prod, out } = producer({ rate: 1000, queueSelect: "random" }, 4);
    prod.advanceTo(40 * S);
    const n = out.length;
    // Binomial(n, 1/4): σ = √(n · 3/16) ≈ 87 for n = 40 000; bounds at ~5 σ.
    for (const c of counts(out.map((m) => m.q), 4)) expect(Math.abs(c - n / 4)).toBeLessThan(450);
  });

  it("weights [1, 2, 0, 5] give proportions 1/8, 2/8, 0, 5/8", () => {
    const { prod, out } = producer({ rate: 1000, queueSelect: { weights: [1, 2, 0, 5] } }, 4);
    prod.advanceTo(40 * S);
    const n = out.length;
    const c = counts(out.map((m) => m.q), 4);
    expect(c[2]).toBe(0);
    // σ ≤ √(n / 4) ≈ 100 for n = 40 000; bounds at ~5 σ.
    [1 / 8, 2 / 8, 0, 5 / 8].forEach((p, q) => expect(Math.abs(c[q]! - p * n)).toBeLessThan(500));
  });
});

describe("Producer tags and bodies", () => {
  it("tag weights { A: 1, B: 3 } give tag indexes 0 and 1 in proportions 1/4 and 3/4", () => {
    const { prod, out } = producer({ rate: 1000, tagWeights: [1, 3] });
    prod.advanceTo(40 * S);
    const n = out.length;
    const c = counts(out.map((m) => m.tag), 2);
    // Binomial σ ≈ 87; bounds at ~5 σ.
    expect(Math.abs(c[0]! - n / 4)).toBeLessThan(450);
    expect(c[0]! + c[1]!).toBe(n);
  });

  it("a zero tag weight is never drawn", () => {
    const { prod, out } = producer({ rate: 1000, tagWeights: [0, 1] });
    prod.advanceTo(5 * S);
    expect(new Set(out.map((m) => m.tag))).toEqual(new Set([1]));
  });

  it("without tags every message carries tag −1 and the configured body size", () => {
    const { prod, out } = producer({ rate: 1000 });
    prod.advanceTo(S);
    expect(new Set(out.map((m) => m.tag))).toEqual(new Set([-1]));
    expect(new Set(out.map((m) => m.bodyBytes))).toEqual(new Set([1024]));
  });
});

describe("Producer backlog seeding", () => {
  it("puts perQueue messages in every queue, born evenly over the span before start", () => {
    const { prod, out } = producer({ rate: 0 }, 3);
    prod.seedBacklog(4, 0, 3600 * S);
    expect(out).toHaveLength(12);
    expect(counts(out.map((m) => m.q), 3)).toEqual([4, 4, 4]);
    // The i-th of each queue is born at −3600 s + i × 900 s.
    const born = [...new Set(out.map((m) => m.bornUs))];
    expect(born).toEqual([-3600 * S, -2700 * S, -1800 * S, -900 * S]);
  });

  it("a backlog of 0 appends nothing", () => {
    const { prod, out } = producer({ rate: 0 }, 3);
    prod.seedBacklog(0, 0, 3600 * S);
    expect(out).toEqual([]);
  });
});

describe("Producer.advanceTo", () => {
  it("produces exactly the messages born at or before t, and nothing more when called again with t", () => {
    const { prod, out } = producer({ rate: 1000, arrival: "uniform" });
    prod.advanceTo(5000);
    expect(out.map((m) => m.bornUs)).toEqual([1000, 2000, 3000, 4000, 5000]);
    prod.advanceTo(5000);
    prod.advanceTo(5999);
    expect(out).toHaveLength(5);
    expect(prod.nextArrivalUs).toBe(6000);
    prod.advanceTo(6000);
    expect(out).toHaveLength(6);
  });

  it("advancing in many small steps gives the same messages as one big step", () => {
    const whole = producer({ rate: 2000, queueSelect: "random", tagWeights: [1, 1, 1] });
    const steps = producer({ rate: 2000, queueSelect: "random", tagWeights: [1, 1, 1] });
    whole.prod.advanceTo(2 * S);
    for (let t = 0; t <= 2 * S; t += 777) steps.prod.advanceTo(t);
    steps.prod.advanceTo(2 * S);
    expect(steps.out.length).toBeGreaterThan(3000);
    expect(JSON.stringify(steps.out)).toBe(JSON.stringify(whole.out));
    expect(Math.max(...whole.out.map((m) => m.bornUs))).toBeLessThanOrEqual(2 * S);
    expect(whole.prod.nextArrivalUs).toBeGreaterThan(2 * S);
  });
});

describe("Producer.regenerate: a replay re-creates a queue's messages exactly (issue 11)", () => {
  // Every 2^12 draws the producer keeps a checkpoint of its streams; a replay restores the one at or
  // before the asked draw and runs the topic forward on a private copy, keeping one queue's messages.
  const kinds: [string, Partial<ProduceModel>][] = [
    ["Poisson, round robin", { rate: 5000 }],
    ["Poisson, random queue, tags, lognormal bodies", {
      rate: 5000, queueSelect: "random", tagWeights: [3, 1], bodyBytes: compileDist({ dist: "lognormal", median: 1000, p99: 20000 }, "bytes", "b"),
    }],
    ["uniform arrivals with a rate change", { rate: 3000, arrival: "uniform", rateChanges: [{ atUs: 3 * S, rate: 9000 }] }],
  ];
  for (const [name, p] of kinds) {
    it(name, () => {
      const { prod, out } = producer(p, 4, 7);
      prod.advanceTo(10 * S);
      // Queue 2's messages with their draw numbers, as first produced.
      const q2 = out.map((m, draw) => ({ ...m, draw })).filter((m) => m.q === 2);
      expect(q2.length).toBeGreaterThan(9000); // ≥ 30 000 draws over 4 queues: several checkpoints
      for (const from of [0, 1, 777, 4096, 5000]) {
        const n = 3000;
        const born = new Float64Array(n);
        const body = new Int32Array(n);
        const tag = new Int16Array(n);
        prod.regenerate(2, q2[from]!.draw, n, born, body, tag);
        const want = q2.slice(from, from + n);
        expect(Array.from(born)).toEqual(want.map((m) => m.bornUs));
        expect(Array.from(body)).toEqual(want.map((m) => m.bodyBytes));
        expect(Array.from(tag)).toEqual(want.map((m) => m.tag));
      }
      // The live streams were not disturbed: the next message is the one an untouched twin makes.
      const twin = producer(p, 4, 7);
      twin.prod.advanceTo(11 * S);
      prod.advanceTo(11 * S);
      expect(out).toEqual(twin.out);
    });
  }

  it("replays a send's retries (retrySelect): the extra round-robin steps they took move every later draw, in replay too", () => {
    // 4 queues; queue 0 belongs to a refusing broker: every send drawn for it is retried once, moving the
    // index on to queue 1 (broker spec §7.2) — one extra step per retry. Each live retry is recorded
    // against its draw; a replay from a checkpoint before some of them must take the same extra steps.
    const out: { q: number; draw: number; bornUs: number }[] = [];
    const streams = new RandomStreams(9);
    let prod: Producer | null = null;
    let refusing = false;
    const sink = {
      appendProduced: (q: number, bornUs: number, _b: number, _t: number, draw: number) => {
        if (refusing && q === 0) q = prod!.retrySelect((x) => x === 0);
        out.push({ q, draw, bornUs });
      },
    };
    prod = new Producer(model({ rate: 5000 }), 4, sink, streams.stateful("arrival"), streams.stateful("attributes"), 0, 3);
    prod.advanceTo(S);
    refusing = true;
    prod.advanceTo(2.3 * S);
    refusing = false;
    prod.advanceTo(5 * S);
    // While refusing, nothing lands on queue 0 and the others share evenly: the retry from 0 takes queue
    // 1's turn (one step on), the next plain draws are 2 and 3, then 0 again.
    const during = out.filter((m) => m.bornUs > S && m.bornUs <= 2.3 * S);
    const c = counts(during.map((m) => m.q), 4);
    expect(c[0]).toBe(0);
    expect(Math.abs(c[1]! - c[2]!)).toBeLessThanOrEqual(1);
    expect(Math.abs(c[1]! - c[3]!)).toBeLessThanOrEqual(1);
    // Replays of each queue from its first messages after the refusing phase — from a checkpoint inside it
    // (one every 4 096 draws, ~0.8 s) — read as first produced. (A chunk holding a retried message is never
    // replayed: the store keeps its columns, the message being stored with draw −1.)
    for (const q of [0, 1, 2, 3]) {
      const mine = out.filter((m) => m.q === q && m.bornUs > 2.3 * S);
      for (const from of [0, 1, 7, 300]) {
        const n = 500;
        const born = new Float64Array(n);
        prod.regenerate(q, mine[from]!.draw, n, born, new Int32Array(n), new Int16Array(n));
        expect(Array.from(born)).toEqual(mine.slice(from, from + n).map((m) => m.bornUs));
      }
    }
  });

  it("replays route polls (setPublishList): the publish list in force at each draw, in replay too", () => {
    // 4 queues; queues 0 and 1 leave the route at 1.3 s and come back at 2.7 s. Replays of every queue
    // from messages just after each change — from checkpoints before it — read as first produced.
    const out: { q: number; draw: number; bornUs: number }[] = [];
    const streams = new RandomStreams(11);
    const prod = new Producer(model({ rate: 5000 }), 4, { appendProduced: (q, bornUs, _b, _t, draw) => out.push({ q, draw, bornUs }) },
      streams.stateful("arrival"), streams.stateful("attributes"), 0, 1);
    prod.advanceTo(1.3 * S);
    prod.setPublishList([2, 3]);
    prod.advanceTo(2.7 * S);
    prod.setPublishList(null);
    prod.advanceTo(5 * S);
    const during = out.filter((m) => m.bornUs > 1.3 * S && m.bornUs <= 2.7 * S);
    expect(new Set(during.map((m) => m.q))).toEqual(new Set([2, 3]));
    for (const [after, queues] of [[1.3, [2, 3]], [2.7, [0, 1, 2, 3]]] as const) {
      for (const q of queues) {
        const mine = out.filter((m) => m.q === q && m.bornUs > after * S);
        for (const from of [0, 1, 5]) {
          const n = 300;
          const born = new Float64Array(n);
          prod.regenerate(q, mine[from]!.draw, n, born, new Int32Array(n), new Int16Array(n));
          expect(Array.from(born)).toEqual(mine.slice(from, from + n).map((m) => m.bornUs));
        }
      }
    }
  });

  it("sendLatencyFaultEnable (broker spec §7.3): after a failed send the broker is avoided for its isolation; the walk gives its share to the queue after it; replays read the same", () => {
    // 8 queues, 0–3 on broker 0 and 4–7 on broker 1; uniform arrivals so draw k is born at k ms. Broker 1
    // fails the send of the message born at 100 ms and is isolated for 1 s (the test's isolation): every
    // draw landing on 4–7 walks on (wrapping) to queue 0, so queue 0 takes 5 of every 8 messages.
    const out: { q: number; draw: number; bornUs: number }[] = [];
    const streams = new RandomStreams(5);
    const prod = new Producer(model({ rate: 1000, arrival: "uniform" }), 8, { appendProduced: (q, bornUs, _b, _t, draw) => out.push({ q, draw, bornUs }) },
      streams.stateful("arrival"), streams.stateful("attributes"), 0, 0, { queueBroker: [0, 0, 0, 0, 1, 1, 1, 1], isolationUs: 1 * S });
    prod.advanceTo(100_000);
    prod.isolateBroker(1, 100_000);
    prod.advanceTo(3 * S);
    const isolated = out.filter((m) => m.bornUs > 100_000 && m.bornUs < 1_100_000);
    const per = counts(isolated.map((m) => m.q), 8);
    expect(per.slice(4)).toEqual([0, 0, 0, 0]);
    // 999 draws (101 … 1 099 ms): round robin gives each queue 999/8 ≈ 125; queue 0 gets its own and 4 more.
    expect(per[0]).toBeGreaterThanOrEqual(5 * 124);
    expect(per[0]).toBeLessThanOrEqual(5 * 125 + 1);
    expect(per[1]).toBeGreaterThanOrEqual(124);
    expect(per[1]).toBeLessThanOrEqual(125);
    // The isolation ends at 1.1 s: the plain round robin again.
    const after = out.filter((m) => m.bornUs >= 1_100_000);
    const perAfter = counts(after.map((m) => m.q), 8);
    expect(Math.max(...perAfter) - Math.min(...perAfter)).toBeLessThanOrEqual(1);
    for (const q of [0, 5]) {
      const mine = out.filter((m) => m.q === q && m.bornUs > 90_000);
      const n = 200;
      const born = new Float64Array(n);
      prod.regenerate(q, mine[0]!.draw, n, born, new Int32Array(n), new Int16Array(n));
      expect(Array.from(born)).toEqual(mine.slice(0, n).map((m) => m.bornUs));
    }
  });

  it("an empty publish list: every send fails (−1, \"No route info of this topic\")", () => {
    const { prod, out } = producer({ rate: 1000 });
    prod.setPublishList([]);
    prod.advanceTo(0.1 * S);
    expect(out.length).toBeGreaterThan(50);
    expect(out.every((m) => m.q === -1)).toBe(true);
  });

  it("forgets checkpoints below a released draw in blocks of 256, and still replays every draw above it", () => {
    // 1 000 msg/s for 1 200 s = 1.2 M draws = 292 checkpoints of 4096; releasing below draw 1 100 000
    // (checkpoint 268) drops 268 ≥ 256 of them; a draw below needs a dropped one and is refused.
    const { prod, out } = producer({ rate: 1000 });
    prod.advanceTo(1200 * S);
    expect(out.length).toBeGreaterThan(1_150_000);
    prod.releaseCheckpointsBelow(1_100_000);
    const from = out.findIndex((m, d) => d >= 1_100_000 && m.q === 1);
    const want = out.map((m, draw) => ({ ...m, draw })).filter((m) => m.q === 1 && m.draw >= from).slice(0, 2000);
    const born = new Float64Array(want.length);
    prod.regenerate(1, from, want.length, born, new Int32Array(want.length), new Int16Array(want.length));
    expect(Array.from(born)).toEqual(want.map((m) => m.bornUs));
    expect(() => prod.regenerate(1, 268 * 4096 - 3, 1, new Float64Array(1), new Int32Array(1), new Int16Array(1))).toThrow(/no checkpoint 267/);
    // Fewer than 256 more: nothing is copied, the same draws still replay.
    prod.releaseCheckpointsBelow(1_150_000);
    prod.regenerate(1, from, want.length, born, new Int32Array(want.length), new Int16Array(want.length));
    expect(Array.from(born)).toEqual(want.map((m) => m.bornUs));
  });

  it("refuses a draw it has not made", () => {
    const { prod } = producer({ rate: 1000 });
    prod.advanceTo(S);
    expect(() => prod.regenerate(0, 5000, 1, new Float64Array(1), new Int32Array(1), new Int16Array(1))).toThrow(/no draw 5000/);
  });
});

describe("Producer and the topic config (issue 19: writeQueueNums, perm)", () => {
  it("round robin over a publish list of writeQueueNums queues writes those only, evenly", () => {
    // 8 queues, writeQueueNums 4 from the start: the publish list is [0, 1, 2, 3]; uniform 1000 msg/s
    // for 4 s = 4000 messages, 1000 per listed queue (round robin: counts differ by at most 1).
    const { prod, out } = producer({ rate: 1000, arrival: "uniform" }, 8);
    prod.setPublishList([0, 1, 2, 3], [0, 1, 2, 3]);
    prod.advanceTo(4 * S);
    const c = counts(out.map((m) => m.q), 8);
    expect(c.slice(4)).toEqual([0, 0, 0, 0]);
    for (const n of c.slice(0, 4)) expect(Math.abs(n - 1000)).toBeLessThanOrEqual(1);
  });

  it("a selector's send (\"random\") picks among the topic's writable queues, and replays do the same", () => {
    const out: { q: number; draw: number; bornUs: number }[] = [];
    const streams = new RandomStreams(3);
    const prod = new Producer(model({ rate: 1000, queueSelect: "random" }), 8, { appendProduced: (q, bornUs, _b, _t, draw) => out.push({ q, draw, bornUs }) },
      streams.stateful("arrival"), streams.stateful("attributes"), 0);
    prod.advanceTo(10 * S);
    prod.setPublishList(null, [1, 3, 5, 7]);
    prod.advanceTo(50 * S);
    const after = out.filter((m) => m.bornUs > 10 * S);
    const c = counts(after.map((m) => m.q), 8);
    // ~40 000 messages over 4 queues: Binomial(n, 1/4), σ ≈ 87; bounds at ~5 σ.
    for (const q of [0, 2, 4, 6]) expect(c[q]).toBe(0);
    for (const q of [1, 3, 5, 7]) expect(Math.abs(c[q]! - after.length / 4)).toBeLessThan(450);
    const mine = after.filter((m) => m.q === 5);
    const n = 100;
    const born = new Float64Array(n);
    prod.regenerate(5, mine[0]!.draw, n, born, new Int32Array(n), new Int16Array(n));
    expect(Array.from(born)).toEqual(mine.slice(0, n).map((m) => m.bornUs));
  });

  it("weights name queues as broker × queuesPerBroker + queueId: queueOfWeight maps them onto a grown layout", () => {
    // 2 brokers × 2 queues by the scenario (weights [1, 0, 0, 1]: broker-a#0 and broker-b#1); the layout
    // holds 3 on broker-a (an updateTopic grows it), so broker-b#1 is topic queue 4.
    const { prod, out } = producer({ rate: 1000, queueSelect: { weights: [1, 0, 0, 1] } }, 5);
    prod.queueOfWeight = Int32Array.from([0, 1, 3, 4]);
    prod.advanceTo(10 * S);
    const c = counts(out.map((m) => m.q), 5);
    expect([c[1], c[2], c[3]]).toEqual([0, 0, 0]);
    // Binomial(~10 000, 1/2): σ = 50; bounds at 5 σ.
    expect(Math.abs(c[0]! - out.length / 2)).toBeLessThan(250);
    expect(c[0]! + c[4]!).toBe(out.length);
  });

  it("a backlog is seeded into the publish list's queues only", () => {
    const { prod, out } = producer({ rate: 0 }, 8);
    prod.setPublishList([0, 1, 2, 3]);
    prod.seedBacklog(5, 0, 3600 * S);
    expect(counts(out.map((m) => m.q), 8)).toEqual([5, 5, 5, 5, 0, 0, 0, 0]);
  });
});
