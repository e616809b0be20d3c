// ConsumeMessageConcurrentlyService (spec §6, §7) on a tiny world: messages are cached in a ProcessQueue
// of T's queue, submitted as a pull's FOUND callback would, and the scheduler runs the workers. The
// listener takes a constant 10 ms per message and the network a constant 1 ms each way, so every
// start, send-back and commit time below follows from the mechanics.
import { describe, expect, it } from "vitest";
import type { World } from "../model/World.ts";
import { ProcessQueue } from "./ProcessQueue.ts";
import type { PushConsumer } from "./PushConsumer.ts";
import { MS, TOPIC_T, advanceTo, range, records, recordsOn, tinyWorld, type TinyScenario } from "./testWorld.ts";

interface Bench {
  w: World;
  c: PushConsumer;
  /** Queue i of T. */
  mq: (i?: number) => number;
  /** A ProcessQueue of queue i holding `offsets` (bodies from the store). */
  cached: (offsets: number[], i?: number) => ProcessQueue;
  submit: (pq: ProcessQueue, offsets: number[], i?: number) => void;
}

function bench(s: TinyScenario = {}): Bench {
  const w = tinyWorld({ backlog: 64, queues: 2, ...s });
  const c = w.consumers[0]!;
  const mq = (i = 0) => w.topicQueues(TOPIC_T)[i]!;
  const cached = (offsets: number[], i = 0) => {
    const pq = new ProcessQueue(w.sched.nowUs);
    pq.putMessage(offsets, offsets.length, w.queues[mq(i)]!);
    return pq;
  };
  const submit = (pq: ProcessQueue, offsets: number[], i = 0) => c.consumeService.submitConsumeRequest(offsets, offsets.length, pq, mq(i));
  return { w, c, mq, cached, submit };
}

/** consumeStart records grouped by start time: the offsets of each listener call, in order. */
function callsByStart(w: World): number[][] {
  const byTime = new Map<number, number[]>();
  for (const r of records(w, "consumeStart")) {
    const list = byTime.get(r.tUs) ?? [];
    list.push(r.offset as number);
    byTime.set(r.tUs, list);
  }
  return [...byTime.values()];
}

describe("submitConsumeRequest (§6, §7.1)", () => {
  it("submitConsumeRequest: runs consumeThreadMin tasks at once, whatever consumeThreadMax", () => {
    const { w, c, cached, submit } = bench({ config: { consumeThreadMin: 3, consumeThreadMax: 64 } });
    const offsets = range(0, 10);
    submit(cached(offsets), offsets);
    expect(c.consumeService.threads).toBe(3);
    expect(records(w, "consumeStart").map((r) => r.offset)).toEqual([0, 1, 2]);
    expect(c.consumeService.busyWorkers).toBe(3);
    expect(c.consumeService.queueLength).toBe(7);
    // Three more start each time the three workers come back.
    advanceTo(w, 10 * MS);
    expect(records(w, "consumeStart").map((r) => r.offset)).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it("submitConsumeRequest: with the default consumeMessageBatchMaxSize (1) a pull of 32 becomes 32 tasks", () => {
    const { w, c, cached, submit } = bench({ config: { consumeThreadMin: 1, consumeThreadMax: 1 } });
    const offsets = range(0, 32);
    submit(cached(offsets), offsets);
    expect(c.consumeService.queueLength).toBe(31);
    advanceTo(w, 400 * MS);
    expect(callsByStart(w)).toEqual(offsets.map((o) => [o]));
  });

  it("submitConsumeRequest: consumeMessageBatchMaxSize 10 splits a pull of 32 into listener calls of 10, 10, 10 and 2", () => {
    const { w, c, cached, submit } = bench({ config: { consumeThreadMin: 1, consumeThreadMax: 1, consumeMessageBatchMaxSize: 10 } });
    const offsets = range(0, 32);
    submit(cached(offsets), offsets);
    expect(c.consumeService.queueLength).toBe(3);
    advanceTo(w, 1000 * MS);
    expect(callsByStart(w)).toEqual([range(0, 10), range(10, 10), range(20, 10), range(30, 2)]);
    // A call's listener time is the sum over its messages: 100 ms for 10.
    expect([...new Set(records(w, "consumeStart").map((r) => r.tUs))]).toEqual([0, 100 * MS, 200 * MS, 300 * MS]);
  });
});

describe("ConsumeRequest.run (§7.2)", () => {
  it("ConsumeRequest.run: tasks run FIFO in submission order, not offset order", () => {
    const { w, cached, submit } = bench({ config: { consumeThreadMin: 1, consumeThreadMax: 1 } });
    const pq = cached([0, 3, 5, 9]);
    submit(pq, [5, 3]);
    submit(pq, [9, 0]);
    advanceTo(w, 100 * MS);
    expect(records(w, "consumeStart").map((r) => [r.tUs, r.offset])).toEqual([
      [0, 5],
      [10 * MS, 3],
      [20 * MS, 9],
      [30 * MS, 0],
    ]);
  });

  it("ConsumeRequest.run: a task whose ProcessQueue was dropped while queued does nothing and frees the worker for the next one", () => {
    const { w, cached, submit, mq } = bench({ config: { consumeThreadMin: 1, consumeThreadMax: 1 } });
    const pqA = cached([0, 1], 0);
    const pqB = cached([0, 1], 1);
    submit(pqA, [0], 0);
    submit(pqB, [0, 1], 1);
    submit(pqA, [1], 0);
    pqB.dropped = true;
    advanceTo(w, 100 * MS);
    expect(records(w, "consumeStart").map((r) => [r.tUs, r.mq, r.offset])).toEqual([
      [0, mq(0), 0],
      [10 * MS, mq(0), 1], // straight after the first: the dropped tasks took no worker time
    ]);
    expect(pqB.msgCount).toBe(2);
    expect(recordsOn(w, "offsetUpdate", mq(1))).toEqual([]);
    expect(w.metrics.consumeWait.count).toBe(2);
  });

  it("ConsumeRequest.run: records the wait in the task queue and the listener time", () => {
    const { w, cached, submit } = bench({ config: { consumeThreadMin: 1, consumeThreadMax: 1 } });
    const offsets = [0, 1, 2];
    submit(cached(offsets), offsets);
    advanceTo(w, 100 * MS);
    const { consumeWait, consumeTime } = w.metrics;
    expect([consumeWait.count, consumeWait.min, consumeWait.max, consumeWait.sum]).toEqual([3, 0, 20 * MS, 30 * MS]);
    expect([consumeTime.count, consumeTime.min, consumeTime.max]).toEqual([3, 10 * MS, 10 * MS]);
  });

  it("ConsumeRequest.run: a result that comes back after the pq was dropped is discarded: no send-back, no removal, no offset", () => {
    const { w, c, cached, submit, mq } = bench({ listener: { failureProbability: 1 } });
    const pq = cached([0, 1]);
    submit(pq, [0, 1]);
    pq.dropped = true; // both listener calls are running
    advanceTo(w, 100 * MS);
    expect(records(w, "consumeEnd")).toHaveLength(2);
    expect(records(w, "sendBack")).toEqual([]);
    expect(w.metrics.sentBack).toBe(0);
    expect(pq.msgCount).toBe(2);
    expect(c.offsetStore.readOffset(mq())).toBe(-1);
    expect(c.consumeService.busyWorkers).toBe(0);
  });

  it("ConsumeRequest.run: FIFO order survives the task ring wrapping around and growing", () => {
    // 1000 tasks, 600 of them run, then 1100 more: the ring of 1024 rows wraps and must double.
    const { w, c, submit } = bench({ backlog: 2100, queues: 1, config: { consumeThreadMin: 1, consumeThreadMax: 1 }, listener: { consumeTime: "1ms" } });
    const pq = new ProcessQueue(0);
    const all = range(0, 2100);
    pq.putMessage(all, all.length, w.queues[w.topicQueues(TOPIC_T)[0]!]!);
    submit(pq, range(0, 1000));
    advanceTo(w, 599 * MS + 1);
    expect(records(w, "consumeStart")).toHaveLength(600);
    submit(pq, range(1000, 1100));
    expect(c.consumeService.queueLength).toBe(400 + 1100); // task 599 is running, 600–999 wait
    advanceTo(w, 3000 * MS);
    expect(records(w, "consumeStart").map((r) => r.offset)).toEqual(all);
    expect(pq.msgCount).toBe(0);
    expect(c.offsetStore.readOffset(w.topicQueues(TOPIC_T)[0]!)).toBe(2100);
  });
});

describe("processConsumeResult (§7.3)", () => {
  it("processConsumeResult: CONSUME_SUCCESS removes the messages and commits the smallest offset still cached", () => {
    const { w, c, cached, submit, mq } = bench({ config: { consumeThreadMin: 1, consumeThreadMax: 1 } });
    const pq = cached(range(10, 5)); // queueOffsetMax = 14
    submit(pq, [12, 10, 11, 14, 13]);
    advanceTo(w, 100 * MS);
    // After 12: 10 is the oldest cached; after 10: 11; after 11: 13; after 14: 13; after 13 the cache is
    // empty and the commit is queueOffsetMax + 1.
    expect(recordsOn(w, "offsetUpdate", mq()).map((r) => [r.tUs, r.offset, r.increaseOnly])).toEqual([
      [10 * MS, 10, 1],
      [20 * MS, 11, 1],
      [30 * MS, 13, 1],
      [40 * MS, 13, 1],
      [50 * MS, 15, 1],
    ]);
    expect(c.offsetStore.readOffset(mq())).toBe(15);
    expect([pq.msgCount, pq.msgSize]).toEqual([0, 0]);
  });

  it("processConsumeResult: the commit is increase-only: a smaller smallest-cached offset does not move the stored one back", () => {
    const { w, c, cached, submit, mq } = bench({ config: { consumeThreadMin: 1, consumeThreadMax: 1 } });
    const pq = cached([3, 4]);
    c.offsetStore.updateOffset(mq(), 20, false);
    submit(pq, [4]);
    advanceTo(w, 100 * MS);
    expect(recordsOn(w, "offsetUpdate", mq()).map((r) => r.offset)).toEqual([3]);
    expect(c.offsetStore.readOffset(mq())).toBe(20);
  });

  it("processConsumeResult: RECONSUME_LATER sends every message of the call back, one RPC after another, then removes them and commits", () => {
    const { w, c, cached, submit, mq } = bench({
      config: { consumeThreadMin: 1, consumeThreadMax: 1, consumeMessageBatchMaxSize: 3 },
      listener: { failureProbability: 1 },
    });
    const pq = cached([0, 1, 2]);
    submit(pq, [0, 1, 2]);
    advanceTo(w, 1000 * MS);
    // Listener returns at 30 ms; each CONSUMER_SEND_MSG_BACK takes 1 ms up and 1 ms down.
    expect(records(w, "consumeEnd").map((r) => [r.tUs, r.ok])).toEqual([[30 * MS, 0], [30 * MS, 0], [30 * MS, 0]]);
    expect(records(w, "sendBack").map((r) => [r.tUs, r.mq, r.offset, r.reconsumeTimes, r.delayLevel])).toEqual([
      [31 * MS, mq(), 0, 0, 3],
      [33 * MS, mq(), 1, 0, 3],
      [35 * MS, mq(), 2, 0, 3],
    ]);
    expect(w.metrics.sentBack).toBe(3);
    expect(recordsOn(w, "offsetUpdate", mq()).map((r) => [r.tUs, r.offset])).toEqual([[36 * MS, 3]]);
    expect(pq.msgCount).toBe(0);
    expect(c.consumeService.busyWorkers).toBe(0);
  });

  it("processConsumeResult: a failed send-back keeps the message cached, holds the offset, and re-submits it after 5000 ms", () => {
    const { w, c, cached, submit, mq } = bench({ config: { consumeThreadMin: 1, consumeThreadMax: 1 }, listener: { failureProbability: 1 } });
    w.brokers[0]!.sendBackOk = false;
    const pq = cached([0, 1]);
    submit(pq, [0]);
    advanceTo(w, 100 * MS);
    // Listener 10 ms, send-back answered (failed) at 12 ms: 0 stays cached, the commit stays at 0.
    expect(pq.contains(0)).toBe(true);
    expect(recordsOn(w, "offsetUpdate", mq()).map((r) => [r.tUs, r.offset])).toEqual([[12 * MS, 0]]);
    expect(c.offsetStore.readOffset(mq())).toBe(0);
    advanceTo(w, 5012 * MS);
    expect(records(w, "consumeStart").map((r) => [r.tUs, r.offset])).toEqual([
      [0, 0],
      [5012 * MS, 0],
    ]);
  });
});
