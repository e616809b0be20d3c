// PullAPIWrapper#processPullResult's tag re-check (spec §4.2), on a bare MessageBatch.
import { describe, expect, it } from "vitest";
import { MessageBatch } from "../protocol/commands.ts";
import type { SubscriptionModel } from "../scenario/types.ts";
import { processPullResult, PullResultBooks, recheckTagSet } from "./processPullResult.ts";

const AA = 0;
const BB = 1;
const MQ = 3;

function batch(tags: number[]): MessageBatch {
  const b = new MessageBatch(8);
  tags.forEach((t, i) => {
    b.offsets[i] = 100 + i;
    b.bodyBytes[i] = 10 + i;
    b.tag[i] = t;
    b.originKey[i] = 1000 + i;
    b.originBornUs[i] = 5000 + i;
    b.reconsumeTimes[i] = i;
  });
  b.count = tags.length;
  return b;
}

describe("processPullResult: keep the subscribed tag strings", () => {
  it("drops the other tags and untagged messages in place, keeping list order and every column", () => {
    const b = batch([BB, AA, -1, AA, BB]);
    const books = new PullResultBooks(8);
    processPullResult(b, new Set([AA]), MQ, books);
    expect(b.count).toBe(2);
    expect(Array.from(b.offsets.subarray(0, 2))).toEqual([101, 103]);
    expect(Array.from(b.bodyBytes.subarray(0, 2))).toEqual([11, 13]);
    expect(Array.from(b.originKey.subarray(0, 2))).toEqual([1001, 1003]);
    expect(Array.from(b.originBornUs.subarray(0, 2))).toEqual([5001, 5003]);
    expect(Array.from(b.reconsumeTimes.subarray(0, 2))).toEqual([1, 3]);
    expect(books.transferred[MQ]).toBe(5);
    expect(books.filteredAtClient[MQ]).toBe(3);
  });

  it("may leave the batch empty (the caller then pulls again at once, §4.3)", () => {
    const b = batch([BB, BB]);
    const books = new PullResultBooks(8);
    processPullResult(b, new Set([AA]), MQ, books);
    expect(b.count).toBe(0);
    expect(books.filteredAtClient[MQ]).toBe(2);
  });

  it("re-checks nothing without a tag set (\"*\", SQL92, %RETRY%) but books the transfer", () => {
    const b = batch([BB, -1]);
    const books = new PullResultBooks(8);
    processPullResult(b, null, MQ, books);
    expect(b.count).toBe(2);
    expect(books.transferred[MQ]).toBe(2);
    expect(books.filteredAtClient[MQ]).toBe(0);
  });
});

describe("recheckTagSet", () => {
  it("is the subscription's tag set on its topic, null elsewhere", () => {
    const tags = new Set([AA]);
    const subs: SubscriptionModel[] = [
      { topic: 0, expression: "Aa", tagSet: tags, codeSet: new Set([2112]) },
      { topic: 1, expression: "a > 1", tagSet: null, sql: "a > 1" },
    ];
    expect(recheckTagSet(subs, 0)).toBe(tags);
    expect(recheckTagSet(subs, 1)).toBeNull();
    expect(recheckTagSet(subs, 7)).toBeNull();
  });
});
