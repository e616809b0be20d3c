import { describe, expect, it } from "vitest";
import { normalizeAllocate, type AllocateSpec } from "../../scenario/allocate.ts";
import { RandomStreams } from "../../sim/streams.ts";
import { allocateAveragely } from "./averagely.ts";
import { allocateAveragelyByCircle } from "./averagelyByCircle.ts";
import { AllocateError } from "./check.ts";
import { type AllocateStrategy, type MessageQueueName, makeStrategy } from "./strategies.ts";

// As in the model, a queue is a number: its index in a table of names sorted in MessageQueue order.
function table(names: MessageQueueName[]): { mqAll: number[]; queueName: (mq: number) => MessageQueueName } {
  return { mqAll: names.map((_, i) => i), queueName: (mq) => names[mq]! };
}
function namesOn(brokerName: string, count: number, firstId = 0, topic = "topic"): MessageQueueName[] {
  return Array.from({ length: count }, (_, i) => ({ topic, brokerName, queueId: firstId + i }));
}
function consumers(n: number, prefix = "CID_PREFIX"): string[] {
  return Array.from({ length: n }, (_, i) => `${prefix}${i}`);
}
/** The strategy a scenario's "allocate" setting names, validated as normalizeScenario does. */
function strategyOf(spec: AllocateSpec, queueName: (mq: number) => MessageQueueName): AllocateStrategy<number> {
  return makeStrategy(normalizeAllocate(spec), queueName);
}
/** Every consumer's allocation as queue ids. */
function allocation(spec: AllocateSpec, names: MessageQueueName[], cidAll: string[]): number[][] {
  const { mqAll, queueName } = table(names);
  const strategy = strategyOf(spec, queueName);
  return cidAll.map((cid) => strategy(cid, mqAll, cidAll).map((mq) => queueName(mq).queueId));
}

describe("makeStrategy by name (spec §11, values of §15.1)", () => {
  const tenQueues = namesOn("brokerName", 10);

  it('"AVG" is allocateAveragely itself', () => {
    expect(strategyOf("AVG", table(tenQueues).queueName)).toBe(allocateAveragely);
    expect(allocation("AVG", tenQueues, consumers(4))).toEqual([[0, 1, 2], [3, 4, 5], [6, 7], [8, 9]]);
  });

  it('"AVG_BY_CIRCLE" is allocateAveragelyByCircle itself', () => {
    expect(strategyOf({ strategy: "AVG_BY_CIRCLE" }, table(tenQueues).queueName)).toBe(allocateAveragelyByCircle);
  });

  it('{ strategy: "CONSISTENT_HASH", virtualNodes: 3 } and "CONSISTENT_HASH" (10 virtual nodes) route by MessageQueue#toString', () => {
    const names = namesOn("brokerName", 10, 0, "topic_test");
    const cidAll = consumers(4, "CID-");
    const ownerOf = (owned: number[][]) => Array.from({ length: 10 }, (_, q) => cidAll[owned.findIndex((ids) => ids.includes(q))]);
    // The same owners as consistentHash.test.ts's independently computed tables.
    expect(ownerOf(allocation({ strategy: "CONSISTENT_HASH", virtualNodes: 3 }, names, cidAll))).toEqual(
      ["CID-3", "CID-3", "CID-1", "CID-0", "CID-2", "CID-0", "CID-3", "CID-3", "CID-0", "CID-3"],
    );
    expect(ownerOf(allocation("CONSISTENT_HASH", names, cidAll))).toEqual(
      ["CID-2", "CID-0", "CID-3", "CID-2", "CID-2", "CID-2", "CID-3", "CID-3", "CID-2", "CID-3"],
    );
  });

  it("CONFIG gives both of 2 consumers the configured queues 0–3, in configured order, dropping ones not in mqAll", () => {
    const spec: AllocateSpec = { strategy: "CONFIG", messageQueueList: namesOn("brokerName", 4) };
    expect(allocation(spec, tenQueues, consumers(2))).toEqual([[0, 1, 2, 3], [0, 1, 2, 3]]);
    const reordered: AllocateSpec = {
      strategy: "CONFIG",
      messageQueueList: [...namesOn("brokerName", 1, 3), ...namesOn("elsewhere", 1), ...namesOn("brokerName", 1, 1)],
    };
    expect(allocation(reordered, tenQueues, ["c"])).toEqual([[3, 1]]);
  });

  it('MACHINE_ROOM with consumeridcs ["room1"] gives CID_PREFIX0 {0,1,4} and CID_PREFIX1 {2,3}', () => {
    const names = [...namesOn("room1@broker-a", 5), ...namesOn("room2@broker-b", 5, 5)];
    expect(allocation({ strategy: "MACHINE_ROOM", consumeridcs: ["room1"] }, names, consumers(2))).toEqual([[0, 1, 4], [2, 3]]);
  });

  it('MACHINE_ROOM_NEARBY with inner "AVG" (or "MACHINE_ROOM_NEARBY-AVG") keeps rooms apart by the prefix before "-"', () => {
    const names = [...namesOn("IDC1-brokerName", 4), ...namesOn("IDC2-brokerName", 4, 4)];
    const cidAll = ["IDC1-CID-0", "IDC1-CID-1", "IDC2-CID-0"];
    const expected = [[0, 1], [2, 3], [4, 5, 6, 7]];
    expect(allocation({ strategy: "MACHINE_ROOM_NEARBY", inner: "AVG" }, names, cidAll)).toEqual(expected);
    expect(allocation("MACHINE_ROOM_NEARBY-AVG", names, cidAll)).toEqual(expected);
  });

  it("MACHINE_ROOM_NEARBY takes a roomSeparator and an inner strategy with options", () => {
    const names = [...namesOn("IDC1_b", 4), ...namesOn("IDC2_b", 4, 4)];
    const cidAll = ["IDC1_c0", "IDC1_c1"]; // IDC2 has no consumers: its queues are shared by both
    const spec: AllocateSpec = { strategy: "MACHINE_ROOM_NEARBY", inner: { strategy: "AVG_BY_CIRCLE" }, roomSeparator: "_" };
    expect(allocation(spec, names, cidAll)).toEqual([[0, 2, 4, 6], [1, 3, 5, 7]]);
  });

  it("MACHINE_ROOM_NEARBY names the broker when a brokerName has an empty room", () => {
    const { mqAll, queueName } = table(namesOn("-b", 1));
    const strategy = strategyOf("MACHINE_ROOM_NEARBY-AVG", queueName);
    expect(() => strategy("IDC1-c", mqAll, ["IDC1-c"])).toThrow(AllocateError);
    expect(() => strategy("IDC1-c", mqAll, ["IDC1-c"])).toThrow('Machine room is null for mq topic@-b#0 (roomSeparator "-")');
  });
});

describe("every strategy: properties on random sorted inputs (fixed seed)", () => {
  // Brokers "IDC<r>@broker-<r>" and consumers "IDC<r>@CID-<i>": MACHINE_ROOM reads the room before
  // "@", and MACHINE_ROOM_NEARBY is told to split at "@" too, so one set of inputs serves both.
  const specs: { spec: AllocateSpec; owns: (name: MessageQueueName) => boolean }[] = [
    { spec: "AVG", owns: () => true },
    { spec: "AVG_BY_CIRCLE", owns: () => true },
    { spec: "CONSISTENT_HASH", owns: () => true },
    { spec: { strategy: "CONSISTENT_HASH", virtualNodes: 3 }, owns: () => true },
    { spec: { strategy: "MACHINE_ROOM", consumeridcs: ["IDC1", "IDC3"] }, owns: (n) => /^IDC[13]@/.test(n.brokerName) },
    { spec: { strategy: "MACHINE_ROOM_NEARBY", inner: "AVG", roomSeparator: "@" }, owns: () => true },
    { spec: { strategy: "MACHINE_ROOM_NEARBY", inner: { strategy: "CONSISTENT_HASH" }, roomSeparator: "@" }, owns: () => true },
  ];

  /** A case: 1–4 brokers in rooms IDC1…IDC4 with 1–8 queues each, 1–12 consumers in rooms IDC1…IDC5. */
  function drawCase(rng: () => number): { names: MessageQueueName[]; cidAll: string[] } {
    const draw = (max: number) => 1 + Math.floor(rng() * max);
    const names: MessageQueueName[] = [];
    const brokerCount = draw(4);
    for (let r = 1; r <= brokerCount; r++) names.push(...namesOn(`IDC${r}@broker-${r}`, draw(8)));
    const cids = new Set<string>();
    const consumerCount = draw(12);
    for (let i = 0; i < consumerCount; i++) cids.add(`IDC${draw(5)}@CID-${i}`);
    return { names, cidAll: [...cids].sort() };
  }

  for (const { spec, owns } of specs) {
    const title = typeof spec === "string" ? spec : JSON.stringify(spec);
    it(`${title}: each queue owned exactly once (of those the strategy allocates at all), the same answer twice`, () => {
      const rng = new RandomStreams(20240601).get(`allocate/strategies/${title}`);
      for (let c = 0; c < 40; c++) {
        const { names, cidAll } = drawCase(rng);
        const { mqAll, queueName } = table(names);
        const strategy = strategyOf(spec, queueName);
        const owned = cidAll.map((cid) => strategy(cid, mqAll, cidAll));
        const label = `case ${c}: ${names.length} queues, ${cidAll.join(" ")}`;
        expect(owned.flat().sort((a, b) => a - b), label).toEqual(mqAll.filter((mq) => owns(names[mq]!)));
        expect(cidAll.map((cid) => strategy(cid, mqAll, cidAll)), label).toEqual(owned);
      }
    });

    it(`${title}: a consumer not in the list gets nothing; empty currentCID, mqAll, cidAll throw AllocateError`, () => {
      const { mqAll, queueName } = table([...namesOn("IDC1@broker-1", 3), ...namesOn("IDC3@broker-3", 3)]);
      const strategy = strategyOf(spec, queueName);
      const cidAll = ["IDC1@CID-0", "IDC3@CID-1"];
      expect(strategy("IDC1@CID-9", mqAll, cidAll)).toEqual([]);
      expect(() => strategy("", mqAll, cidAll)).toThrow(AllocateError);
      expect(() => strategy("", mqAll, cidAll)).toThrow("currentCID is empty");
      expect(() => strategy("IDC1@CID-0", [], cidAll)).toThrow("mqAll is null or mqAll empty");
      expect(() => strategy("IDC1@CID-0", mqAll, [])).toThrow("cidAll is null or cidAll empty");
    });
  }

  it("CONFIG, by design, gives every consumer the configured list and checks nothing", () => {
    const names = namesOn("b", 6);
    const { mqAll, queueName } = table(names);
    const strategy = strategyOf({ strategy: "CONFIG", messageQueueList: names.slice(2, 4) }, queueName);
    expect(["a", "b", "stranger", ""].map((cid) => strategy(cid, mqAll, ["a", "b"]))).toEqual([[2, 3], [2, 3], [2, 3], [2, 3]]);
  });
});
