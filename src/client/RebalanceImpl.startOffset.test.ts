// RebalanceImpl#onQueryAnswer tells the observer where each new ProcessQueue starts and whether that is
// the group's stored offset (spec §10.6, §13.7): the books mark the messages a group with no stored
// offset starts above as skipped at start (issue 11, defect 2). Driven through a real first rebalance
// of one 4.9 consumer with playBroker answering (see RebalanceImpl.test.ts for the timeline: %RETRY%G's
// offset answer at 6 ms, T's at 10 ms).
import { describe, expect, it } from "vitest";
import { RequestCode } from "../protocol/codes.ts";
import type { QueryConsumerOffsetRequest } from "../protocol/commands.ts";
import { MS, playBroker, queueOfT, tinyConsumer, type BrokerPlay, type TinyScenario } from "./testConsumer.ts";

function startsAfterFirstRebalance(s: TinyScenario, play: BrokerPlay) {
  const b = tinyConsumer(s);
  b.c.start();
  playBroker(b, 100 * MS, play);
  return { b, starts: b.observer.starts, t: queueOfT(b), retry: b.routes.retryQueue(0, 0) };
}

describe("RebalanceImpl.onQueryAnswer: startOffsetChosen for every new ProcessQueue (§10.6)", () => {
  it("QUERY_NOT_FOUND on a cold queue: CONSUME_FROM_LAST_OFFSET starts T at the max offset, not from a stored offset", () => {
    // minOffset 1 makes the broker's "start at 0" test fail (§13.7), so the client sees −1 and takes max 500.
    const { starts, t, retry } = startsAfterFirstRebalance({ backlog: 500 }, { queue: () => ({ stored: -1, minOffset: 1 }) });
    expect(starts).toEqual([
      { group: 0, mq: retry, offset: 0, fromStoredOffset: false }, // a retry topic starts at 0 (§10.6)
      { group: 0, mq: t, offset: 500, fromStoredOffset: false },
    ]);
  });

  it("CONSUME_FROM_TIMESTAMP with no stored offset starts T at the broker's searchOffset", () => {
    const { starts, t } = startsAfterFirstRebalance(
      { backlog: 500, consumeFromWhere: "CONSUME_FROM_TIMESTAMP" },
      { queue: () => ({ stored: -1, minOffset: 1, searchOffset: 320 }) },
    );
    expect(starts.find((s) => s.mq === t)).toEqual({ group: 0, mq: t, offset: 320, fromStoredOffset: false });
  });

  it("a stored offset (or the broker's 'start at 0' answer, also SUCCESS) is reported as from the stored offset", () => {
    const stored = startsAfterFirstRebalance({ backlog: 500 }, { queue: () => ({ stored: 420 }) });
    expect(stored.starts.find((s) => s.mq === stored.t)).toEqual({ group: 0, mq: stored.t, offset: 420, fromStoredOffset: true });
    const hot = startsAfterFirstRebalance({ backlog: 500 }, {}); // nothing stored, minOffset 0: SUCCESS(0)
    expect(hot.starts.find((s) => s.mq === hot.t)).toEqual({ group: 0, mq: hot.t, offset: 0, fromStoredOffset: true });
  });

  it("a query with no answer (−2) creates no ProcessQueue and reports nothing", () => {
    // T's QUERY_CONSUMER_OFFSET is lost: after its 5 s time-out 4.9 leaves the queue to the next rebalance.
    const b = tinyConsumer({ backlog: 500 });
    const t = queueOfT(b);
    b.c.start();
    playBroker(b, 6000 * MS, { lose: (r) => r.msg.code === RequestCode.QUERY_CONSUMER_OFFSET && (r.msg as QueryConsumerOffsetRequest).mq === t });
    expect(b.c.rebalance.assignedQueues().has(t)).toBe(false);
    expect(b.observer.starts.map((s) => s.mq)).toEqual([b.routes.retryQueue(0, 0)]);
  });
});
