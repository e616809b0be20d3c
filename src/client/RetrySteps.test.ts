// RetrySteps: a producer's retry steps by draw, run-length encoded, read back in draw order by replays.
import { describe, expect, it } from "vitest";
import { RetrySteps } from "./RetrySteps.ts";

describe("RetrySteps", () => {
  it("a periodic pattern (every 2nd draw, 1 step: a refusing broker with 2 queues) is one run however long", () => {
    const s = new RetrySteps();
    for (let d = 10; d < 1_000_000; d += 2) s.add(d, 1);
    expect(s.runs).toBe(1);
    const c = s.cursor(0);
    expect([9, 10, 11, 12, 13, 14].map((d) => c.stepsAfter(d))).toEqual([0, 1, 0, 1, 0, 1]);
  });

  it("a second retry of one send adds its steps to that draw, splitting a run if needed", () => {
    const s = new RetrySteps();
    s.add(4, 1);
    s.add(6, 1);
    s.add(8, 1);
    s.add(8, 3); // the send of draw 8 was refused twice: 1 + 3 steps
    s.add(10, 1);
    const c = s.cursor(0);
    expect([4, 6, 8, 10].map((d) => c.stepsAfter(d))).toEqual([1, 1, 4, 1]);
  });

  it("a cursor can start in the middle of a run, and draws without steps read 0", () => {
    const s = new RetrySteps();
    for (let d = 0; d < 100; d += 5) s.add(d, 2);
    s.add(101, 7);
    const c = s.cursor(47);
    expect([47, 50, 51, 55, 95, 100, 101, 200].map((d) => c.stepsAfter(d))).toEqual([0, 2, 0, 2, 2, 0, 7, 0]);
  });
});
