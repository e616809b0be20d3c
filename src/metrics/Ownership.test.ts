// Ownership#orphanSeconds with unreadable spans: time a queue had no owner counts only while the broker's
// topic config let someone read it (issue 19: a queue retired by a readQueueNums shrink is not an orphan).
import { describe, expect, it } from "vitest";
import { Ownership } from "./Ownership.ts";

const S = 1_000_000;

describe("orphanSeconds", () => {
  it("owned 0–40 s, unowned after; unreadable from 41 s: only the 1 s in between counts", () => {
    const o = new Ownership();
    o.open(0, 3, 0, "c0", 0);
    o.close(0, 3, 0, 40 * S);
    expect(o.orphanSeconds(0, 3, 100 * S)).toBe(60);
    expect(o.orphanSeconds(0, 3, 100 * S, [41 * S, 100 * S])).toBe(1);
  });

  it("an unreadable span partly covered by an owner (the drop waits for the next rebalance) subtracts only the uncovered part", () => {
    const o = new Ownership();
    o.open(0, 3, 0, "c0", 0);
    o.close(0, 3, 0, 50 * S); // dropped 20 s after the queue became unreadable at 30 s
    o.open(0, 3, 1, "c1", 80 * S); // taken again at 80 s, readable again from 70 s
    // Unowned 50–80 s (30 s), of which 50–70 s was unreadable: 10 s are orphan time.
    expect(o.orphanSeconds(0, 3, 100 * S, [30 * S, 70 * S])).toBe(10);
  });

  it("a queue never owned, unreadable all along (added later by a grow): no orphan time", () => {
    const o = new Ownership();
    expect(o.orphanSeconds(0, 9, 100 * S)).toBe(100);
    expect(o.orphanSeconds(0, 9, 100 * S, [0, 100 * S])).toBe(0);
  });
});
