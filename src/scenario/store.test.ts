// A broker's `store` block and the scenario's `startTime` (rocketmq-broker.md §1.1, §2): RocketMQ's
// defaults, each field's accepted range and the error naming it.
import { describe, expect, it } from "vitest";
import { normalizeScenario } from "./normalize.ts";

const H = 3_600_000_000;

function scenario(store: unknown, extra: Record<string, unknown> = {}) {
  return normalizeScenario({
    name: "s", brokers: [{ name: "b", ...(store === undefined ? {} : { store }) }],
    topics: [{ name: "T", brokers: ["b"] }], groups: [{ name: "G", subscribe: { T: "*" } }], ...extra,
  });
}

describe("broker store defaults (MessageStoreConfig)", () => {
  it("1 GiB files kept 72 h, deleted at 04, a 10 s clean-up of at most 10 files, no disk limit, 75/85/90 %", () => {
    expect(scenario(undefined).brokers[0]!.store).toEqual({
      mappedFileSizeCommitLog: 1024 ** 3, fileReservedTimeUs: 72 * H, deleteWhenHours: [4], startTimeUs: 0,
      cleanResourceIntervalUs: 10_000_000, deleteFileBatchMax: 10, diskBytes: Infinity, diskOtherBytes: 0,
      diskMaxUsedSpaceRatio: 0.75, diskSpaceCleanForciblyRatio: 0.85, diskSpaceWarningLevelRatio: 0.9, tailHistoryUs: 0,
    });
  });

  it("remembers recent appends as far back as the longest brokerCrash lose aimed at the broker", () => {
    const m = scenario(undefined, { faults: [
      { kind: "brokerCrash", at: "10s", target: "b", lose: "3s" }, { kind: "brokerCrash", at: "20s", target: "b", lose: "unflushed" },
    ] });
    expect(m.brokers[0]!.store.tailHistoryUs).toBe(3_000_000);
  });
});

describe("broker store fields", () => {
  it("reads every field, percentages as fractions, deleteWhen as hours", () => {
    const st = scenario({
      mappedFileSizeCommitLog: "64MiB", fileReservedTime: "48h", deleteWhen: "04;16", cleanResourceInterval: "5s",
      deleteFileBatchMax: 3, diskBytes: "100GiB", diskUsedBytes: "10GiB", diskMaxUsedSpaceRatio: 70,
      diskSpaceCleanForciblyRatio: 80, diskSpaceWarningLevelRatio: 88,
    }, { startTime: "22:30" }).brokers[0]!.store;
    expect(st).toEqual({
      mappedFileSizeCommitLog: 64 * 1024 ** 2, fileReservedTimeUs: 48 * H, deleteWhenHours: [4, 16], startTimeUs: 22.5 * H,
      cleanResourceIntervalUs: 5_000_000, deleteFileBatchMax: 3, diskBytes: 100 * 1024 ** 3, diskOtherBytes: 10 * 1024 ** 3,
      diskMaxUsedSpaceRatio: 0.7, diskSpaceCleanForciblyRatio: 0.8, diskSpaceWarningLevelRatio: 0.88, tailHistoryUs: 0,
    });
  });

  it.each([
    [{ mappedFileSizeCommitLog: "1MiB" }, /brokers\.0\.store\.mappedFileSizeCommitLog: .*from 4\.0 MiB.*maxMessageSize \+ 512 B/],
    [{ fileReservedTime: 0 }, /brokers\.0\.store\.fileReservedTime: must be greater than 0/],
    [{ deleteWhen: "4am" }, /brokers\.0\.store\.deleteWhen: .*hours of the day 00–23/],
    [{ deleteWhen: "24" }, /brokers\.0\.store\.deleteWhen/],
    [{ cleanResourceInterval: "10us" }, /cleanResourceInterval: must be at least 1ms/],
    [{ deleteFileBatchMax: 0 }, /deleteFileBatchMax/],
    [{ diskUsedBytes: "1GiB" }, /diskUsedBytes: needs diskBytes/],
    [{ diskBytes: "1GiB", diskUsedBytes: "1GiB" }, /diskUsedBytes: must be less than diskBytes/],
    [{ diskMaxUsedSpaceRatio: 96 }, /diskMaxUsedSpaceRatio: 96 is out of range \[10, 95\]/],
    [{ diskSpaceCleanForciblyRatio: 90 }, /diskSpaceCleanForciblyRatio: 90 is out of range \[30, 85\]/],
    [{ diskSpaceWarningLevelRatio: 0.9 }, /diskSpaceWarningLevelRatio: 0.9 is out of range \[35, 90\]/],
    [{ fileReservedTme: "1h" }, /brokers\.0\.store/],
  ])("refuses %j naming the field", (store, message) => {
    expect(() => scenario(store)).toThrow(message);
  });

  it.each(["4:00", "24:00", "12:60", 12, "noon"])("refuses startTime %j", (t) => {
    expect(() => scenario(undefined, { startTime: t })).toThrow(/startTime: .*HH:MM/);
  });

  it("accepts startTime with seconds", () => {
    expect(scenario(undefined, { startTime: "03:59:50" }).brokers[0]!.store.startTimeUs).toBe(4 * H - 10_000_000);
  });
});
