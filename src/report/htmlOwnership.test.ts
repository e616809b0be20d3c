import { describe, expect, it } from "vitest";
import type { RunResult } from "../run/simulate.ts";
import type { OrderlyQueue, Summary } from "../metrics/summary.ts";
import { consumerColor } from "./chartSpecs.ts";
import { renderFaults, renderOwnership } from "./htmlOwnership.ts";
import { simulateBacklog } from "./testScenario.ts";

const base = simulateBacklog();
const [c0, c1] = base.series.perConsumer.map((c) => c.clientId) as [string, string];

/** The backlog run with a hand-written ownership story: a 100 s run, one queue handed over with a gap. */
function withQueues(perQueue: Summary["perQueue"], faults: Summary["faults"] = []): RunResult {
  return { ...base, summary: { ...base.summary, simulatedMs: 100_000, perQueue, faults, ownershipChanges: 1, orphanQueueSeconds: 20 } };
}

function queue(ownerHistory: Summary["perQueue"][number]["ownerHistory"], orphanSeconds: number, orderly: OrderlyQueue | null = null): Summary["perQueue"][number] {
  return {
    group: "G1", topic: "TopicTest", brokerName: "broker-a", queueId: 3, owner: null, minOffset: 0, maxOffset: 10,
    committedOffset: 10, nextOffset: null, cached: 0, orphanSeconds, ownerHistory, orderly,
  };
}

describe("renderOwnership", () => {
  const html = renderOwnership(withQueues([
    queue([
      { clientId: c0, fromMs: 0, toMs: 40_000, duplicates: 0 },
      { clientId: c1, fromMs: 60_000, toMs: null, duplicates: 7 },
    ], 20),
  ], [{ index: 0, kind: "consumerCrash", label: "consumerCrash G1/0", atMs: 40_000, endMs: null, effect: "crashed" }]));

  it("a row gives the queue, its time with no owner, distinct owners, changes and the duplicates summed", () => {
    expect(html).toContain("<td>G1</td><td>TopicTest@broker-a#3</td>"
      + '<td class="num">20</td><td class="num">2</td><td class="num">1</td><td class="num">7</td>');
  });

  it("each owner interval is a segment placed by its share of the run, in its consumer's colour, with a title", () => {
    expect(html).toContain(`<span class="own-seg" style="left:0%;width:40%;background:${consumerColor(0)}" title="${c0}: 0 s – 40 s · 0 duplicates"></span>`);
    // The one still open at the end runs to the end of the run; the 40–60 s gap stays empty.
    expect(html).toContain(`<span class="own-seg" style="left:60%;width:40%;background:${consumerColor(1)}" title="${c1}: 60 s – end of run · 7 duplicates"></span>`);
    expect(html).toContain('<span class="own-fault" style="left:40%" title="consumerCrash G1/0 at 40 s"></span>');
  });

  it("labels the time axis at round seconds across the run", () => {
    expect(html).toContain('<span style="left:0%">0</span><span style="left:20%">20</span>');
    expect(html).toContain('<span style="left:100%">100</span>');
  });

  it("escapes client ids and queue names", () => {
    const odd = renderOwnership(withQueues([{ ...queue([{ clientId: "<c>", fromMs: 0, toMs: null, duplicates: 0 }], 0), topic: "T&<x>" }]));
    expect(odd).toContain("T&amp;&lt;x&gt;@broker-a#3");
    expect(odd).toContain('title="&lt;c&gt;: 0 s – end of run · 0 duplicates"');
    expect(odd).not.toContain("<c>");
  });
});

describe("renderOwnership: an orderly queue's locks", () => {
  const orderly: OrderlyQueue = {
    suspends: 4, longestHeadBlockMs: 2500, lockState: "expired",
    locks: [
      { clientId: c0, state: "not locked", fromMs: 0, toMs: 10_000 },
      { clientId: c0, state: "held", fromMs: 10_000, toMs: 60_000 },
      { clientId: c0, state: "expired", fromMs: 60_000, toMs: null },
    ],
  };
  const html = renderOwnership(withQueues([queue([{ clientId: c0, fromMs: 0, toMs: null, duplicates: 0 }], 0, orderly)]));

  it("draws each lock stretch under the owner bar, placed by its share of the run, with its owner and times", () => {
    expect(html).toContain('<div class="own-lock" title="lock at the end: expired">');
    expect(html).toContain(`<span class="lock-not-locked" style="left:0%;width:10%;background:#ddd" title="${c0}: lock not locked, 0 s – 10 s"></span>`);
    expect(html).toContain(`<span class="lock-held" style="left:10%;width:50%;background:#333" title="${c0}: lock held, 10 s – 60 s"></span>`);
    // The expired stretch still open at the end runs to the end of the run.
    expect(html).toMatch(new RegExp(`<span class="lock-expired" style="left:60%;width:40%;background:repeating-linear-gradient\\([^"]*\\)" title="${c0}: lock expired, 60 s – end of run"></span>`));
  });

  it("adds a legend of the three lock states", () => {
    expect(html).toContain("lock: <span class=\"own-key\"><i style=\"background:#333\"></i>held (locked at the broker, refreshed within 30 s)</span>");
    expect(html).toContain("expired (still locked, but not refreshed for 30 s: consumption stops)");
    expect(html).toContain("not locked (consumption waits for the lock)");
  });

  it("draws no strip and no legend for queues without locks", () => {
    const plain = renderOwnership(withQueues([queue([{ clientId: c0, fromMs: 0, toMs: null, duplicates: 0 }], 0)]));
    expect(plain).not.toContain("own-lock\"");
    expect(plain).not.toContain("lock: <span");
    const unlocked = renderOwnership(withQueues([queue([{ clientId: c0, fromMs: 0, toMs: null, duplicates: 0 }], 0, { ...orderly, locks: [], lockState: "none" })]));
    expect(unlocked).not.toContain("own-lock\"");
  });
});

describe("renderFaults", () => {
  it("lists each fault with when it hit, what it did and when it ended (— when it never did)", () => {
    const html = renderFaults({
      ...base.summary,
      faults: [
        { index: 0, kind: "consumerCrash", label: "consumerCrash G1/1", atMs: 60_000, endMs: 90_000, effect: "crashed; restarted" },
        { index: 1, kind: "scale", label: "scale G1", atMs: 150_500, endMs: null, effect: "7 started" },
      ],
    });
    expect(html).toContain("<h2>Faults</h2>");
    expect(html).toContain('<tr><td class="num">60</td><td>consumerCrash</td><td>consumerCrash G1/1</td><td>crashed; restarted</td><td class="num">90</td></tr>');
    expect(html).toContain('<tr><td class="num">150.5</td><td>scale</td><td>scale G1</td><td>7 started</td><td class="num">—</td></tr>');
  });

  it("renders nothing for a run without faults", () => {
    expect(renderFaults({ ...base.summary, faults: [] })).toBe("");
  });
});
