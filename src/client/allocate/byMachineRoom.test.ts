import { describe, expect, it } from "vitest";
import { allocateByMachineRoom } from "./byMachineRoom.ts";
import { AllocateError } from "./check.ts";

interface Mq {
  brokerName: string;
  queueId: number;
}
const brokerNameOf = (mq: Mq) => mq.brokerName;

function consumers(n: number): string[] {
  return Array.from({ length: n }, (_, i) => `CID_PREFIX${i}`);
}
/** AllocateMessageQueueByMachineRoomTest's queues: the first half on room1@broker-a, the rest on room2@broker-b. */
function roomQueues(m: number): Mq[] {
  return Array.from({ length: m }, (_, i) => ({ brokerName: i < m / 2 ? "room1@broker-a" : "room2@broker-b", queueId: i }));
}

describe("allocateByMachineRoom acceptance case of AllocateMessageQueueByMachineRoomTest (spec §15.1)", () => {
  const strategy = allocateByMachineRoom(["room1"], brokerNameOf);

  it("10 queues, 0–4 in room1 and 5–9 in room2, consumeridcs {room1}, 2 consumers → {0,1,4} and {2,3}", () => {
    const mqAll = roomQueues(10);
    const cidAll = consumers(2);
    expect(strategy("CID_PREFIX0", mqAll, cidAll).map((q) => q.queueId)).toEqual([0, 1, 4]);
    expect(strategy("CID_PREFIX1", mqAll, cidAll).map((q) => q.queueId)).toEqual([2, 3]);
  });

  it('throws AllocateError "mqAll is null or mqAll empty" for no queues', () => {
    expect(() => strategy("CID_PREFIX0", [], consumers(2))).toThrow(AllocateError);
    expect(() => strategy("CID_PREFIX0", [], consumers(2))).toThrow("mqAll is null or mqAll empty");
  });
});

describe("allocateByMachineRoom filter (spec §11.4)", () => {
  it("takes only brokerNames of exactly two '@' parts whose room is consumed from, as Java's split counts them", () => {
    const mqAll: Mq[] = [
      { brokerName: "room1", queueId: 0 }, // no '@'
      { brokerName: "room1@", queueId: 1 }, // Java drops the trailing empty part: 1 part
      { brokerName: "room1@a@b", queueId: 2 }, // 3 parts
      { brokerName: "room1@b@", queueId: 3 }, // trailing empty dropped: 2 parts, accepted
      { brokerName: "room3@c", queueId: 4 }, // room not consumed from
      { brokerName: "room1@d", queueId: 5 },
    ];
    const strategy = allocateByMachineRoom(["room1"], brokerNameOf);
    expect(strategy("c", mqAll, ["c"]).map((q) => q.queueId)).toEqual([3, 5]);
  });

  it("gives nobody anything when no queue is in a consumed room", () => {
    const strategy = allocateByMachineRoom(["room9"], brokerNameOf);
    expect(consumers(3).flatMap((cid) => strategy(cid, roomQueues(10), consumers(3)))).toEqual([]);
  });

  it("gives a consumer not in the list nothing and checks the common inputs", () => {
    const strategy = allocateByMachineRoom(["room1"], brokerNameOf);
    expect(strategy("stranger", roomQueues(4), consumers(2))).toEqual([]);
    expect(() => strategy("", roomQueues(4), consumers(2))).toThrow("currentCID is empty");
    expect(() => strategy("CID_PREFIX0", roomQueues(4), [])).toThrow("cidAll is null or cidAll empty");
  });
});

describe("allocateByMachineRoom properties over P filtered queues and N consumers in 1…25 (spec §11.4)", () => {
  it("owns each consumed-room queue exactly once and no other queue; block of ⌊P/N⌋ plus one of the tail for the first P mod N", () => {
    const strategy = allocateByMachineRoom(["room1", "room3"], brokerNameOf);
    for (let p = 1; p <= 25; p++) {
      // Interleave rooms so the filter has to skip queues: room1, room2, room3, room2, room1, …
      const mqAll = Array.from({ length: 2 * p }, (_, i) => ({ brokerName: i % 2 === 1 ? "room2@b" : i % 4 === 0 ? "room1@a" : "room3@c", queueId: i }));
      const pre = mqAll.filter((q) => q.brokerName !== "room2@b");
      for (let n = 1; n <= 25; n++) {
        const cidAll = consumers(n);
        const label = `P=${p} N=${n}`;
        const owned = cidAll.map((cid) => strategy(cid, mqAll, cidAll));
        expect(owned.flat().sort((a, b) => a.queueId - b.queueId), label).toEqual(pre);
        expect(owned.map((mine) => mine.length), label).toEqual(cidAll.map((_, i) => Math.floor(p / n) + (i < p % n ? 1 : 0)));
        expect(cidAll.map((cid) => strategy(cid, mqAll, cidAll)), `${label} deterministic`).toEqual(owned);
      }
    }
  });
});
