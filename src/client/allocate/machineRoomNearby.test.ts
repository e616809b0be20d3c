import { describe, expect, it } from "vitest";
import { RandomStreams } from "../../sim/streams.ts";
import { allocateAveragely } from "./averagely.ts";
import { AllocateError } from "./check.ts";
import { allocateMachineRoomNearby, type MachineRoomResolver } from "./machineRoomNearby.ts";
import type { AllocateStrategy } from "./strategies.ts";

interface Mq {
  topic: string;
  brokerName: string;
  queueId: number;
}
const key = (mq: Mq) => `${mq.brokerName}#${mq.queueId}`;

// AllocateMachineRoomNearByTest's resolver: the room is the name up to the first "-" (its
// split("-")[0], written with indexOf because allocating split arrays made the random cases slow).
const upToDash = (name: string) => (name.includes("-") ? name.slice(0, name.indexOf("-")) : name);
const resolver: MachineRoomResolver<Mq> = {
  brokerDeployIn: (mq) => upToDash(mq.brokerName),
  consumerDeployIn: upToDash,
};
const strategy = allocateMachineRoomNearby<Mq>(allocateAveragely, resolver);

/** Queues `IDC<r>-brokerName` ids 0…q−1 for rooms 1…rooms, in sorted order. */
function prepareMq(rooms: number, queuesPerRoom: number): Mq[] {
  const mqs: Mq[] = [];
  for (let r = 1; r <= rooms; r++) {
    for (let i = 0; i < queuesPerRoom; i++) mqs.push({ topic: "topic_test", brokerName: `IDC${r}-brokerName`, queueId: i });
  }
  return mqs;
}
/** Consumers `IDC<r>-CID-i` for rooms 1…rooms. */
function prepareConsumers(rooms: number, consumersPerRoom: number): string[] {
  const cids: string[] = [];
  for (let r = 1; r <= rooms; r++) for (let i = 0; i < consumersPerRoom; i++) cids.push(`IDC${r}-CID-${i}`);
  return cids;
}

/** Every consumer's allocation, keyed by cid. */
function allocateAll(mqAll: Mq[], cidAll: string[], s: AllocateStrategy<Mq> = strategy): Map<string, Mq[]> {
  return new Map(cidAll.map((cid) => [cid, s(cid, mqAll, cidAll)]));
}

/** "cid owns mq" for every queue owned by a consumer of another room (collected, so one expect per case). */
function crossRoomOwners(byCid: Map<string, Mq[]>): string[] {
  return [...byCid].flatMap(([cid, mine]) =>
    mine.filter((mq) => resolver.brokerDeployIn(mq) !== resolver.consumerDeployIn(cid)).map((mq) => `${cid} owns ${key(mq)}`),
  );
}

/** Each queue owned exactly once overall, or nothing owned when there are no consumers. */
function expectEachOwnedOnce(mqAll: Mq[], byCid: Map<string, Mq[]>, label: string): void {
  const owned = [...byCid.values()].flat().map(key).sort();
  if (byCid.size === 0) expect(owned, label).toEqual([]);
  else expect(owned, label).toEqual(mqAll.map(key).sort());
}

function whenRoomSetsEqual(rooms: number, queuesPerRoom: number, consumersPerRoom: number): void {
  const label = `rooms=${rooms} q=${queuesPerRoom} c=${consumersPerRoom}`;
  const mqAll = prepareMq(rooms, queuesPerRoom);
  const byCid = allocateAll(mqAll, prepareConsumers(rooms, consumersPerRoom));
  expect(crossRoomOwners(byCid), label).toEqual([]);
  expectEachOwnedOnce(mqAll, byCid, label);
}

function whenConsumerRoomsMore(brokerRooms: number, extraRooms: number, queuesPerRoom: number, consumersPerRoom: number): void {
  const label = `brokerRooms=${brokerRooms} +${extraRooms} q=${queuesPerRoom} c=${consumersPerRoom}`;
  const mqAll = prepareMq(brokerRooms, queuesPerRoom);
  const byCid = allocateAll(mqAll, prepareConsumers(brokerRooms + extraRooms, consumersPerRoom));
  // Every broker room has consumers here (when there are any), so every queue stays in its room.
  expect(crossRoomOwners(byCid), label).toEqual([]);
  expectEachOwnedOnce(mqAll, byCid, label);
}

function whenConsumerRoomsLess(brokerRooms: number, missingRooms: number, queuesPerRoom: number, consumersPerRoom: number): void {
  const label = `brokerRooms=${brokerRooms} -${missingRooms} q=${queuesPerRoom} c=${consumersPerRoom}`;
  const mqAll = prepareMq(brokerRooms, queuesPerRoom);
  const cidAll = prepareConsumers(brokerRooms - missingRooms, consumersPerRoom);
  const byCid = allocateAll(mqAll, cidAll);
  const byRoom = new Map<string, Set<string>>();
  for (const [cid, mine] of byCid) {
    const room = resolver.consumerDeployIn(cid);
    const set = byRoom.get(room) ?? new Set<string>();
    mine.forEach((mq) => set.add(key(mq)));
    byRoom.set(room, set);
  }
  const missing = [...byRoom].flatMap(([room, set]) =>
    mqAll.filter((q) => resolver.brokerDeployIn(q) === room && !set.has(key(q))).map((q) => `${room} lacks ${key(q)}`),
  );
  expect(missing, label).toEqual([]);
  // Queues of consumer-less rooms go to consumers of any room, so the same-room rule cannot be asked of them.
  expectEachOwnedOnce(mqAll, byCid, label);
}

describe("allocateMachineRoomNearby acceptance cases of AllocateMachineRoomNearByTest (spec §15.1)", () => {
  it("(a) equal room sets, 5 rooms × 20 queues, 10/20/30/0 consumers per room: each queue once, only within its room", () => {
    for (const c of [10, 20, 30, 0]) whenRoomSetsEqual(5, 20, c);
  });

  it("(b) consumers in 5+1 rooms, queues in 5, 10/5/20/0 consumers per room: same-room rule holds, all queues covered once", () => {
    for (const c of [10, 5, 20, 0]) whenConsumerRoomsMore(5, 1, 10, c);
  });

  it("(c) consumers in 3 of 5 rooms, 10/5/20/0 per room: each consumer room owns its own queues, the other two rooms' queues are spread, all once", () => {
    for (const c of [10, 5, 20, 0]) whenConsumerRoomsLess(5, 2, 10, c);
  });

  it("10 random cases (fixed seed): 1–200 consumers and 1–100 queues per room, 1–10 broker and consumer rooms", () => {
    const rng = new RandomStreams(20240601).get("allocate/machineRoomNearby/cases");
    const draw = (max: number) => 1 + Math.floor(rng() * max);
    for (let i = 0; i < 10; i++) {
      const consumersPerRoom = draw(200);
      const queuesPerRoom = draw(100);
      const brokerRooms = draw(10);
      const consumerRooms = draw(10);
      if (brokerRooms === consumerRooms) whenRoomSetsEqual(brokerRooms, queuesPerRoom, consumersPerRoom);
      else if (brokerRooms > consumerRooms) whenConsumerRoomsLess(brokerRooms, brokerRooms - consumerRooms, queuesPerRoom, consumersPerRoom);
      else whenConsumerRoomsMore(brokerRooms, consumerRooms - brokerRooms, queuesPerRoom, consumersPerRoom);
    }
  });
});

describe("allocateMachineRoomNearby rule (spec §11.5)", () => {
  it("spreads a consumer-less room's queues over everyone with the inner strategy, after the own room's share, rooms in name order", () => {
    // Consumers only in IDC2; queues in IDC1, IDC2, IDC3 (2 each). AVG over the 2 consumers of IDC2.
    const mqAll = prepareMq(3, 2);
    const cidAll = ["IDC2-CID-0", "IDC2-CID-1"];
    const mine = strategy("IDC2-CID-0", mqAll, cidAll).map(key);
    expect(mine).toEqual(["IDC2-brokerName#0", "IDC1-brokerName#0", "IDC3-brokerName#0"]);
  });

  it("gives a consumer in a room without queues only the queues of consumer-less rooms", () => {
    const mqAll = prepareMq(2, 2); // IDC1, IDC2
    const cidAll = ["IDC1-CID-0", "IDC9-CID-0"]; // IDC2 has no consumer, IDC9 no queues
    expect(strategy("IDC9-CID-0", mqAll, cidAll).map(key)).toEqual(["IDC2-brokerName#1"]);
    expect(strategy("IDC1-CID-0", mqAll, cidAll).map(key)).toEqual(["IDC1-brokerName#0", "IDC1-brokerName#1", "IDC2-brokerName#0"]);
  });

  it("is deterministic: the same inputs give the same answer", () => {
    const mqAll = prepareMq(4, 7);
    const cidAll = prepareConsumers(2, 3);
    expect(allocateAll(mqAll, cidAll)).toEqual(allocateAll(mqAll, cidAll));
  });
});

describe("allocateMachineRoomNearby bad inputs (spec §11 precheck, §11.5)", () => {
  it("throws the common AllocateError messages and gives a stranger nothing", () => {
    expect(() => strategy("", prepareMq(1, 1), ["IDC1-CID-0"])).toThrow("currentCID is empty");
    expect(() => strategy("IDC1-CID-0", [], ["IDC1-CID-0"])).toThrow("mqAll is null or mqAll empty");
    expect(() => strategy("IDC1-CID-0", prepareMq(1, 1), [])).toThrow("cidAll is null or cidAll empty");
    expect(strategy("IDC1-CID-9", prepareMq(1, 1), ["IDC1-CID-0"])).toEqual([]);
  });

  it("throws AllocateError when the resolver answers an empty room for a queue or a consumer", () => {
    const mqAll = [{ topic: "t", brokerName: "-broker", queueId: 0 }];
    expect(() => strategy("IDC1-CID-0", mqAll, ["IDC1-CID-0"])).toThrow(AllocateError);
    expect(() => strategy("IDC1-CID-0", mqAll, ["IDC1-CID-0"])).toThrow("Machine room is null for mq");
    expect(() => strategy("IDC1-CID-0", prepareMq(1, 1), ["IDC1-CID-0", "-CID-1"])).toThrow("Machine room is null for consumer id -CID-1");
  });
});
