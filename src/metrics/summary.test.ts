import { describe, expect, it } from "vitest";
import { numericPaths } from "../scenario/expect.ts";
import { GROUP_FIGURES, groupFigureNames, REPLAY_CAUSES, SUMMARY_FIGURES } from "../scenario/vocabulary.ts";
import type { FateAccount } from "./accounting.ts";
import { emptySummary } from "./summary.ts";

describe("summary figures", () => {
  it("SUMMARY_FIGURES, the names expectations may compare, are exactly the summary's numeric figures, in its order", () => {
    expect(numericPaths(emptySummary())).toEqual(SUMMARY_FIGURES);
  });
});

describe("group figures", () => {
  it("GROUP_FIGURES are exactly a group account's (and an instance account's) numeric figures, in its order", () => {
    const account: FateAccount = {
      produced: 0, filtered: 0, consumed: 0, duplicates: 0, dlq: 0, lost: 0, dropped: 0, skippedAtStart: 0, inFlight: 0, cached: 0, retrying: 0, unpulled: 0,
    };
    expect(numericPaths(account)).toEqual(GROUP_FIGURES);
  });

  it("groupFigureNames names every group's figures, and a broadcasting group's per instance slot", () => {
    const names = groupFigureNames([
      { name: "C", messageModel: "CLUSTERING", instancesMax: 3 },
      { name: "B", messageModel: "BROADCASTING", instancesMax: 2 },
    ]);
    // C: 12 figures + 4 replay causes; B: 12 + 4 + 2 instances × 12 (replays are the group's only).
    expect(names).toHaveLength(16 + 16 + 24);
    expect(names).toContain("groups.C.dropped");
    expect(names).toContain("groups.C.replays.rollback");
    expect(names).not.toContain("groups.C.instances.0.consumed");
    expect(names).toContain("groups.B.instances.1.consumed");
    expect(names).not.toContain("groups.B.instances.1.replays.rollback");
    expect(names).not.toContain("groups.B.instances.2.consumed");
  });

  it("groupFigureNames leaves the replay causes out when asked (a model without replicas has none)", () => {
    const names = groupFigureNames([{ name: "C", messageModel: "CLUSTERING", instancesMax: 1 }], false);
    expect(names).toEqual(GROUP_FIGURES.map((f) => `groups.C.${f}`));
  });

  it("the replay causes are REPLAY_CAUSES, both as a group's replays and as the summary's", () => {
    expect(SUMMARY_FIGURES.filter((f) => f.startsWith("replays."))).toEqual(REPLAY_CAUSES.map((c) => `replays.${c}`));
    expect(Object.keys(emptySummary().replays!)).toEqual([...REPLAY_CAUSES]);
  });
});
