// ScheduleLog#loseTail: the schedule topic's consume queues live in the commit log, so a lost tail takes
// the messages parked since then with it (found by the random-scenario corpus, issue 15: they survived a
// failover's cut while their originals did not, and fell out of the books).
import { describe, expect, it } from "vitest";
import { ScheduleLog, type ScheduledRetry, type ScheduleLogReader } from "./ScheduleMessageService.ts";

const S = 1_000_000;
/** Level delays, µs (index 0 unused): level 1 = 1 s, level 2 = 10 s. */
const DELAYS = [0, 1 * S, 10 * S];

function parked(level: number, storedUs: number, originKey: number): ScheduledRetry {
  return { dueUs: storedUs + DELAYS[level]!, group: 0, originKey, originBornUs: 0, bodyBytes: 10, tag: 0, reconsumeTimes: 0 };
}

class Reader implements ScheduleLogReader {
  readonly cuts: [number, number][] = [];
  minNeeded(): number {
    return 0;
  }
  truncated(level: number, end: number): void {
    this.cuts.push([level, end]);
  }
}

describe("ScheduleLog#loseTail", () => {
  it("drops what was parked at or after the cut, per level, and brings the delivered mark and the readers back", () => {
    const log = new ScheduleLog(DELAYS.length);
    const reader = new Reader();
    log.register(reader);
    // Level 2: stored at 1, 2 and 3 s (due 11, 12, 13 s); level 1: stored at 1 s only.
    log.append(2, parked(2, 1 * S, 100));
    log.append(2, parked(2, 2 * S, 101));
    log.append(2, parked(2, 3 * S, 102));
    log.append(1, parked(1, 1 * S, 200));
    log.markDelivered(2, 0, 3);
    const lost: number[] = [];
    expect(log.loseTail(2 * S, DELAYS, (e) => lost.push(e.originKey))).toBe(2);
    expect(lost).toEqual([101, 102]);
    expect(log.end(2)).toBe(1);
    expect(log.deliveredEnd(2)).toBe(1);
    expect(log.end(1)).toBe(1); // nothing of level 1 was stored at or after 2 s
    expect(reader.cuts).toEqual([[2, 1]]);
    // The cut offsets are given out again, as a consume queue's are after a lost tail.
    expect(log.append(2, parked(2, 4 * S, 103))).toBe(1);
  });

  it("loses nothing when the cut is after the last parked message", () => {
    const log = new ScheduleLog(DELAYS.length);
    const reader = new Reader();
    log.register(reader);
    log.append(1, parked(1, 1 * S, 1));
    expect(log.loseTail(1 * S + 1, DELAYS, () => { throw new Error("nothing is lost"); })).toBe(0);
    expect(reader.cuts).toEqual([]);
  });
});
