// An offset query answered with a broker error during a rebalance, per version (broker spec §10.4), in a
// whole run: scenarios/legacy-offset-flap.json under each profile. broker-a answers QUERY_CONSUMER_OFFSET
// with SYSTEM_BUSY from 58 s to 68 s; at 60 s a third instance joins and broker-a#3 changes hands.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { simulate } from "../run/simulate.ts";
import type { Profile, ScenarioInput } from "../scenario/types.ts";

const S = 1_000_000;
const shipped = JSON.parse(readFileSync(new URL("../../scenarios/legacy-offset-flap.json", import.meta.url), "utf8")) as ScenarioInput;
const under = (profile: Profile, consumeFromWhere = "CONSUME_FROM_FIRST_OFFSET") => {
  const sc = structuredClone(shipped);
  sc.profile = profile;
  sc.groups[0]!.consumeFromWhere = consumeFromWhere as never;
  sc.expect = [];
  return simulate(sc, { checkEveryUs: S }).summary;
};
const movedQueue = (s: ReturnType<typeof under>) => s.perQueue.find((q) => q.brokerName === "broker-a" && q.queueId === 3)!;

describe("legacy-offset-flap under each profile", () => {
  it("4.7 and 4.9, CONSUME_FROM_FIRST_OFFSET: the moved queue restarts at 0 — its 60 s × 50 msg/s = 3 000 messages come again", () => {
    for (const p of ["4.7", "4.9"] as const) {
      const s = under(p);
      expect(movedQueue(s).ownerHistory.at(-1)!.duplicates).toBe(3000);
      expect(s.messages.lost).toBe(0);
    }
  });

  it("4.9, CONSUME_FROM_LAST_OFFSET: the moved queue starts at the max offset — what was not yet consumed there is skipped, nothing replayed", () => {
    const s = under("4.9", "CONSUME_FROM_LAST_OFFSET");
    expect(s.messages.duplicates).toBeLessThan(5);
    // The queue was caught up (a message or two in flight at most): the skip is that small.
    expect(s.messages.skippedAtStart).toBeLessThan(5);
  });

  it("5.x: the error is an error — the queue is skipped and retried each second until broker-a answers again at 68 s; no replay", () => {
    const s = under("5.x");
    const q = movedQueue(s);
    expect(q.ownerHistory.at(-1)!.duplicates).toBe(0);
    expect(q.ownerHistory.at(-1)!.fromMs).toBeGreaterThan(68_000);
    expect(q.ownerHistory.at(-1)!.fromMs).toBeLessThan(69_100);
    expect(s.messages.duplicates).toBeLessThan(5);
  });
});
