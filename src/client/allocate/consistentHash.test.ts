import { describe, expect, it } from "vitest";
import { RandomStreams } from "../../sim/streams.ts";
import { AllocateError } from "./check.ts";
import { allocateConsistentHash } from "./consistentHash.ts";
import type { MessageQueueName } from "./strategies.ts";

const queueName = (mq: MessageQueueName) => mq;

/** AllocateMessageQueueConsitentHashTest's queues: topic "topic_test", broker "brokerName", ids 0…m−1. */
function queues(m: number): MessageQueueName[] {
  return Array.from({ length: m }, (_, i) => ({ topic: "topic_test", brokerName: "brokerName", queueId: i }));
}
/** Its consumers: "CID-0" … "CID-<n−1>". */
function consumers(n: number): string[] {
  return Array.from({ length: n }, (_, i) => `CID-${i}`);
}

/** The owner of each queue id, from asking every consumer. */
function owners(strategy: ReturnType<typeof allocateConsistentHash<MessageQueueName>>, mqAll: MessageQueueName[], cidAll: string[]): Map<number, string[]> {
  const byQueue = new Map<number, string[]>();
  for (const cid of cidAll) {
    for (const mq of strategy(cid, mqAll, cidAll)) byQueue.set(mq.queueId, [...(byQueue.get(mq.queueId) ?? []), cid]);
  }
  return byQueue;
}

/** Queue ids with other than exactly one owner (empty when each queue has one). */
function notOwnedOnce(byQueue: Map<number, string[]>, m: number): number[] {
  return Array.from({ length: m }, (_, q) => q).filter((q) => byQueue.get(q)?.length !== 1);
}

/** AllocateMessageQueueConsitentHashTest#testAllocate with 3 virtual nodes: allocate all, remove the first consumer, add "CID-NEW". */
function checkAllocate(m: number, n: number): void {
  const label = `queues=${m} consumers=${n}`;
  const strategy = allocateConsistentHash(queueName, { virtualNodeCount: 3 });
  const mqAll = queues(m);
  const cidAll = consumers(n);

  // (a) The union of all consumers' results is mqAll exactly.
  const before = owners(strategy, mqAll, cidAll);
  expect(notOwnedOnce(before, m), label).toEqual([]);

  // (b) Without the first consumer, every queue it did not own keeps its owner.
  const removed = cidAll[0]!;
  const cidAfterRemove = cidAll.slice(1);
  const afterRemove = owners(strategy, mqAll, cidAfterRemove);
  if (cidAfterRemove.length === 0) {
    expect(afterRemove.size, label).toBe(0);
  } else {
    expect(notOwnedOnce(afterRemove, m), label).toEqual([]);
    const moved = [...before].filter(([q, [cid]]) => cid !== removed && afterRemove.get(q)?.[0] !== cid);
    expect(moved, `${label}: queues that moved though their owner stayed`).toEqual([]);
  }

  // (c) With "CID-NEW" added, every queue not taken by it keeps its owner.
  const cidAfterAdd = [...cidAfterRemove, "CID-NEW"];
  const afterAdd = owners(strategy, mqAll, cidAfterAdd);
  expect(notOwnedOnce(afterAdd, m), label).toEqual([]);
  const moved = [...afterAdd].filter(([q, [cid]]) => cid !== "CID-NEW" && afterRemove.get(q)?.[0] !== cid);
  expect(moved, `${label}: queues that moved to an old consumer`).toEqual([]);
}

describe("allocateConsistentHash acceptance cases of AllocateMessageQueueConsitentHashTest (spec §15.1)", () => {
  it("(a)(b)(c) hold for 20 queues and 10 consumers", () => checkAllocate(20, 10));

  it("(a)(b)(c) hold for 10 queues and 20 consumers", () => checkAllocate(10, 20));

  it("(a)(b)(c) hold for 10 random sizes in 1–20 (fixed seed)", () => {
    const rng = new RandomStreams(20240601).get("allocate/consistentHash/sizes");
    for (let i = 0; i < 10; i++) {
      const consumerCount = 1 + Math.floor(rng() * 20);
      const queueCount = 1 + Math.floor(rng() * 20);
      checkAllocate(queueCount, consumerCount);
    }
  });

  it("gives a consumer not in the list (\"2147483647\") nothing", () => {
    expect(allocateConsistentHash(queueName)("2147483647", queues(6), consumers(2))).toEqual([]);
  });

  it("throws the common AllocateError messages for an empty currentCID, mqAll or cidAll", () => {
    const strategy = allocateConsistentHash(queueName);
    expect(() => strategy("", queues(6), consumers(2))).toThrow(AllocateError);
    expect(() => strategy("", queues(6), consumers(2))).toThrow("currentCID is empty");
    expect(() => strategy("0", [], consumers(2))).toThrow("mqAll is null or mqAll empty");
    expect(() => strategy("0", queues(6), [])).toThrow("cidAll is null or cidAll empty");
  });
});

describe("allocateConsistentHash ring with RocketMQ's MD5 hash (spec §11.6)", () => {
  // Owners of queues 0…9 among CID-0…CID-3, computed independently twice: by a Java program using
  // MessageDigest and a TreeMap with tailMap, and by a Python one using hashlib and bisect.
  it("with 3 virtual nodes, owns queues 0…9 as Java's MessageDigest + TreeMap ring does", () => {
    const byQueue = owners(allocateConsistentHash(queueName, { virtualNodeCount: 3 }), queues(10), consumers(4));
    expect(Array.from({ length: 10 }, (_, q) => byQueue.get(q)?.[0])).toEqual(
      ["CID-3", "CID-3", "CID-1", "CID-0", "CID-2", "CID-0", "CID-3", "CID-3", "CID-0", "CID-3"],
    );
  });

  it("defaults to 10 virtual nodes, matching the same independent computation", () => {
    const byQueue = owners(allocateConsistentHash(queueName), queues(10), consumers(4));
    expect(Array.from({ length: 10 }, (_, q) => byQueue.get(q)?.[0])).toEqual(
      ["CID-2", "CID-0", "CID-3", "CID-2", "CID-2", "CID-2", "CID-3", "CID-3", "CID-2", "CID-3"],
    );
  });

  it("is deterministic: the same inputs give the same answer", () => {
    const strategy = allocateConsistentHash(queueName);
    expect(owners(strategy, queues(17), consumers(5))).toEqual(owners(strategy, queues(17), consumers(5)));
  });
});

describe("allocateConsistentHash ring mechanics, with a custom hash (spec §11.6)", () => {
  /** A hash read from a table; records every key it is asked for. */
  function tableHash(table: Record<string, number>, asked: string[] = []) {
    return (key: string) => {
      asked.push(key);
      const value = table[key];
      if (value === undefined) throw new Error(`no hash for ${key}`);
      return value;
    };
  }
  const q = (queueId: number): MessageQueueName => ({ topic: "t", brokerName: "b", queueId });
  const qKey = (queueId: number) => `MessageQueue [topic=t, brokerName=b, queueId=${queueId}]`;

  it('hashes virtual nodes as "<cid>-<r>" and queues as MessageQueue#toString', () => {
    const asked: string[] = [];
    const hash = tableHash({ "a-0": 1, "a-1": 2, "b-0": 3, "b-1": 4, [qKey(7)]: 0 }, asked);
    allocateConsistentHash(queueName, { virtualNodeCount: 2, hashFunction: hash })("a", [q(7)], ["a", "b"]);
    expect(asked).toEqual(["a-0", "a-1", "b-0", "b-1", qKey(7)]);
  });

  it("routes a queue to the first ring point at or after its hash, wrapping past the highest", () => {
    const hash = tableHash({ "a-0": 100, "b-0": 200, [qKey(0)]: 100, [qKey(1)]: 150, [qKey(2)]: 250, [qKey(3)]: 50 });
    const strategy = allocateConsistentHash(queueName, { virtualNodeCount: 1, hashFunction: hash });
    const mqAll = [q(0), q(1), q(2), q(3)];
    expect(strategy("a", mqAll, ["a", "b"]).map((m) => m.queueId)).toEqual([0, 2, 3]);
    expect(strategy("b", mqAll, ["a", "b"]).map((m) => m.queueId)).toEqual([1]);
  });

  it("gives a ring point two virtual nodes hash to the one inserted later (later in cidAll)", () => {
    const hash = tableHash({ "a-0": 100, "b-0": 100, [qKey(0)]: 1 });
    const strategy = allocateConsistentHash(queueName, { virtualNodeCount: 1, hashFunction: hash });
    expect(strategy("b", [q(0)], ["a", "b"])).toEqual([q(0)]);
    expect(strategy("a", [q(0)], ["a", "b"])).toEqual([]);
  });

  it("numbers a repeated consumer's virtual nodes after those it already has, as ConsistentHashRouter#addNode does", () => {
    const asked: string[] = [];
    const hash = tableHash({ "a-0": 1, "a-1": 2, "a-2": 3, "a-3": 4, [qKey(0)]: 0 }, asked);
    allocateConsistentHash(queueName, { virtualNodeCount: 2, hashFunction: hash })("a", [q(0)], ["a", "a"]);
    expect(asked.slice(0, 4)).toEqual(["a-0", "a-1", "a-2", "a-3"]);
  });

  it("with 0 virtual nodes has an empty ring, so nobody owns anything", () => {
    const strategy = allocateConsistentHash(queueName, { virtualNodeCount: 0 });
    expect(consumers(3).flatMap((cid) => strategy(cid, queues(5), consumers(3)))).toEqual([]);
  });

  it('throws AllocateError "illegal virtualNodeCnt :-1" when built with a negative count, and rejects fractions', () => {
    expect(() => allocateConsistentHash(queueName, { virtualNodeCount: -1 })).toThrow(AllocateError);
    expect(() => allocateConsistentHash(queueName, { virtualNodeCount: -1 })).toThrow("illegal virtualNodeCnt :-1");
    expect(() => allocateConsistentHash(queueName, { virtualNodeCount: 1.5 })).toThrow("illegal virtualNodeCnt :1.5");
  });
});
