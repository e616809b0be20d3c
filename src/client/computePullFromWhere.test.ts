import { describe, expect, it } from "vitest";
import type { ConsumeFromWhere } from "../scenario/types.ts";
import { computePullFromWhere } from "./computePullFromWhere.ts";

const ALL: readonly ConsumeFromWhere[] = ["CONSUME_FROM_LAST_OFFSET", "CONSUME_FROM_FIRST_OFFSET", "CONSUME_FROM_TIMESTAMP"];
const NORMAL = false; // "topic1"
const RETRY = true; // "%RETRY%group"

/** The facts of RebalancePushImplTest (spec §15.3): admin maxOffset 12345 unless a case says otherwise. */
function facts(stored: number, maxOffset = 12345, searchOffset = 12345) {
  return { stored, maxOffset, searchOffset };
}

describe("computePullFromWhere with an offset in the store (spec §10.6, §15.3)", () => {
  it.each(ALL)("%s: store offset 0 → 0, for a normal and a retry topic", (where) => {
    expect(computePullFromWhere(where, NORMAL, facts(0))).toBe(0);
    expect(computePullFromWhere(where, RETRY, facts(0))).toBe(0);
  });

  it.each(ALL)("%s: any stored offset ≥ 0 wins over maxOffset and searchOffset", (where) => {
    expect(computePullFromWhere(where, NORMAL, facts(777, 12345, 23456))).toBe(777);
    expect(computePullFromWhere(where, RETRY, facts(777, 12345, 23456))).toBe(777);
  });
});

describe("computePullFromWhere with no stored offset, −1 (spec §10.6, §15.3)", () => {
  it("CONSUME_FROM_LAST_OFFSET: maxOffset 12345 → 12345 for a normal topic", () => {
    expect(computePullFromWhere("CONSUME_FROM_LAST_OFFSET", NORMAL, facts(-1, 12345))).toBe(12345);
  });

  it("CONSUME_FROM_LAST_OFFSET: → 0 for a retry topic, not maxOffset", () => {
    expect(computePullFromWhere("CONSUME_FROM_LAST_OFFSET", RETRY, facts(-1, 12345))).toBe(0);
  });

  it("CONSUME_FROM_FIRST_OFFSET: → 0 for a normal and a retry topic", () => {
    expect(computePullFromWhere("CONSUME_FROM_FIRST_OFFSET", NORMAL, facts(-1, 12345))).toBe(0);
    expect(computePullFromWhere("CONSUME_FROM_FIRST_OFFSET", RETRY, facts(-1, 12345))).toBe(0);
  });

  it("CONSUME_FROM_TIMESTAMP: searchOffset 12345 / maxOffset 23456 → 12345 for a normal topic", () => {
    expect(computePullFromWhere("CONSUME_FROM_TIMESTAMP", NORMAL, facts(-1, 23456, 12345))).toBe(12345);
  });

  it("CONSUME_FROM_TIMESTAMP: searchOffset 12345 / maxOffset 23456 → 23456 for a retry topic", () => {
    expect(computePullFromWhere("CONSUME_FROM_TIMESTAMP", RETRY, facts(-1, 23456, 12345))).toBe(23456);
  });

  it("CONSUME_FROM_LAST_OFFSET: an empty queue (maxOffset 0) starts at 0", () => {
    expect(computePullFromWhere("CONSUME_FROM_LAST_OFFSET", NORMAL, facts(-1, 0))).toBe(0);
  });
});

describe("computePullFromWhere when the broker query failed, −2 (spec §10.6)", () => {
  it.each(ALL)("%s: → −1 (skip until the next rebalance) for a normal and a retry topic", (where) => {
    expect(computePullFromWhere(where, NORMAL, facts(-2))).toBe(-1);
    expect(computePullFromWhere(where, RETRY, facts(-2))).toBe(-1);
  });

  it.each(ALL)("%s: any other negative answer (−3, mq null) also → −1", (where) => {
    expect(computePullFromWhere(where, NORMAL, facts(-3))).toBe(-1);
  });
});
