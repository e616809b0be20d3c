import { describe, expect, it } from "vitest";
import { normalizeAllocate } from "./allocate.ts";
import { InputError } from "./errors.ts";

describe("normalizeAllocate bad settings (clear InputErrors)", () => {
  const bad = (spec: unknown, path = "allocate") => () => normalizeAllocate(spec, path);

  it("rejects an unknown name, listing the valid ones", () => {
    expect(bad("AVERAGE")).toThrow(InputError);
    expect(bad("AVERAGE")).toThrow(
      'allocate: unknown allocation strategy "AVERAGE"; expected one of AVG, AVG_BY_CIRCLE, CONSISTENT_HASH, CONFIG, MACHINE_ROOM, MACHINE_ROOM_NEARBY',
    );
    expect(bad({ strategy: "avg" })).toThrow('allocate.strategy: unknown allocation strategy "avg"');
    expect(bad("MACHINE_ROOM_NEARBY-NOPE")).toThrow('allocate.inner: unknown allocation strategy "NOPE"');
  });

  it("locates the error under the caller's path", () => {
    expect(bad("X", "groups.0.allocate")).toThrow(/^groups\.0\.allocate: unknown allocation strategy "X"/);
  });

  it("rejects a setting that is neither a name nor an object with a strategy", () => {
    expect(bad(42)).toThrow('allocate: expected a strategy name or an object with "strategy", got 42');
    expect(bad(null)).toThrow("allocate: expected a strategy name");
    expect(bad(["AVG"])).toThrow("allocate: expected a strategy name");
    expect(bad({ virtualNodes: 3 })).toThrow("allocate.strategy: missing; expected one of AVG, AVG_BY_CIRCLE");
  });

  it("rejects options the strategy does not take", () => {
    expect(bad({ strategy: "AVG", virtualNodes: 3 })).toThrow("allocate.virtualNodes: AVG takes no options");
    expect(bad({ strategy: "CONSISTENT_HASH", virtualNode: 3 })).toThrow("allocate.virtualNode: CONSISTENT_HASH takes only virtualNodes");
  });

  it("rejects virtualNodes that are not an integer ≥ 0", () => {
    for (const v of [-1, 1.5, "3"]) {
      expect(bad({ strategy: "CONSISTENT_HASH", virtualNodes: v })).toThrow("allocate.virtualNodes: expected an integer ≥ 0");
    }
  });

  it("requires CONFIG's messageQueueList and checks each entry", () => {
    expect(bad("CONFIG")).toThrow("allocate.messageQueueList: missing; expected a list of {topic, brokerName, queueId}");
    expect(bad({ strategy: "CONFIG", messageQueueList: [{ topic: "t", brokerName: "b", queueId: 0 }, { topic: "t", brokerName: "b" }] })).toThrow(
      "allocate.messageQueueList.1: expected {topic, brokerName, queueId ≥ 0}",
    );
  });

  it("requires MACHINE_ROOM's consumeridcs as a list of names", () => {
    expect(bad("MACHINE_ROOM")).toThrow("allocate.consumeridcs: missing; expected a list of machine room names");
    expect(bad({ strategy: "MACHINE_ROOM", consumeridcs: "room1" })).toThrow("allocate.consumeridcs: expected a list");
  });

  it("requires MACHINE_ROOM_NEARBY's inner strategy, not itself, and a non-empty roomSeparator", () => {
    expect(bad("MACHINE_ROOM_NEARBY")).toThrow('allocate.inner: MACHINE_ROOM_NEARBY needs the strategy to use within a room, e.g. "AVG"');
    expect(bad({ strategy: "MACHINE_ROOM_NEARBY", inner: "MACHINE_ROOM_NEARBY-AVG" })).toThrow("allocate.inner: MACHINE_ROOM_NEARBY cannot nest inside itself");
    expect(bad({ strategy: "MACHINE_ROOM_NEARBY", inner: { strategy: "MACHINE_ROOM_NEARBY" } })).toThrow("cannot nest inside itself");
    expect(bad({ strategy: "MACHINE_ROOM_NEARBY", inner: { strategy: "CONSISTENT_HASH", virtualNodes: -2 } })).toThrow(
      "allocate.inner.virtualNodes: expected an integer ≥ 0",
    );
    expect(bad({ strategy: "MACHINE_ROOM_NEARBY", inner: "AVG", roomSeparator: "" })).toThrow("allocate.roomSeparator: expected a non-empty string");
     // A null inner strategy is an input error, not a TypeError (issue 15 item 8's probe found it).
    expect(bad({ strategy: "MACHINE_ROOM_NEARBY", inner: null })).toThrow('allocate.inner: expected a strategy name or an object with "strategy", got null');
  });
});

describe("normalizeAllocate good settings", () => {
  it("resolves names, RocketMQ's MACHINE_ROOM_NEARBY-<inner> shorthand and defaults into full options", () => {
    expect(normalizeAllocate("AVG")).toEqual({ strategy: "AVG" });
    expect(normalizeAllocate({ strategy: "AVG_BY_CIRCLE" })).toEqual({ strategy: "AVG_BY_CIRCLE" });
    expect(normalizeAllocate("CONSISTENT_HASH")).toEqual({ strategy: "CONSISTENT_HASH", virtualNodes: 10 });
    expect(normalizeAllocate({ strategy: "CONSISTENT_HASH", virtualNodes: 0 })).toEqual({ strategy: "CONSISTENT_HASH", virtualNodes: 0 });
    expect(normalizeAllocate("MACHINE_ROOM_NEARBY-AVG")).toEqual({ strategy: "MACHINE_ROOM_NEARBY", inner: { strategy: "AVG" }, roomSeparator: "-" });
    expect(normalizeAllocate({ strategy: "MACHINE_ROOM_NEARBY", inner: "CONSISTENT_HASH", roomSeparator: "@" })).toEqual({
      strategy: "MACHINE_ROOM_NEARBY",
      inner: { strategy: "CONSISTENT_HASH", virtualNodes: 10 },
      roomSeparator: "@",
    });
  });

  it("keeps CONFIG's queues and MACHINE_ROOM's rooms", () => {
    const messageQueueList = [{ topic: "t", brokerName: "b", queueId: 1 }];
    expect(normalizeAllocate({ strategy: "CONFIG", messageQueueList })).toEqual({ strategy: "CONFIG", messageQueueList });
    expect(normalizeAllocate({ strategy: "MACHINE_ROOM", consumeridcs: ["room1"] })).toEqual({ strategy: "MACHINE_ROOM", consumeridcs: ["room1"] });
  });
});
