// report.html's "Why" section and the Ownership table's dominant reason (issue 16), and why.json: on
// count-flow-control every queue is held back by count flow control from when its cache fills; on a
// run where nothing stops, the section says so and every reason is "—".
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { explain } from "../explain/explain.ts";
import { REASON, type ExplainedInterval, type QueueExplanation } from "../explain/types.ts";
import { normalizeScenario } from "../scenario/normalize.ts";
import { renderReport } from "./renderReport.ts";
import { dominantReasons, NO_REASON, whyKey } from "./htmlWhy.ts";
import { simulateExplained } from "./testScenario.ts";

const SCENARIOS = join(dirname(fileURLToPath(import.meta.url)), "../../scenarios");
const S = 1_000_000;

/** The Ownership table's rows as [group, queue, held back most by]. */
function ownershipReasons(html: string): string[][] {
  return [...html.matchAll(/<tr><td>([^<]*)<\/td><td>([^<]*)<\/td>(?:<td class="num">[^<]*<\/td>){4}<td class="own-why">([^<]*)<\/td>/g)]
    .map((m) => [m[1]!, m[2]!.replaceAll("&#39;", "'"), m[3]!]);
}

function text(files: Map<string, Buffer | string>, name: string): string {
  const v = files.get(name);
  if (typeof v !== "string") throw new Error(`${name} is missing or not text`);
  return v;
}

describe("report: the Why section", () => {
  it("count-flow-control: each queue's count flow control interval, linked to its time range; dominant reason flowControl.count; why.json is `explain --json`", async () => {
    const durationUs = 20 * S;
    const model = normalizeScenario(JSON.parse(readFileSync(join(SCENARIOS, "count-flow-control.json"), "utf8")));
    const { result, why } = simulateExplained(model, durationUs);
    const files = await renderReport(result, { charts: false, why });
    expect(text(files, "why.json")).toBe(`${JSON.stringify(explain(model, { durationUs }), null, 2)}\n`);

    const html = text(files, "report.html");
    expect(html).toContain('<h2 id="why">Why</h2>');
    expect(html).toContain("<h3>Group G1</h3>");
    // The cache of each queue fills at (produced − consumed) ÷ queues: 8 threads at 10 ms consume 800 msg/s.
    const g = model.groups[0]!;
    const topic = model.topics[0]!;
    const surplusPerQueue = (topic.produce!.rate - g.config.consumeThreadMin / 0.01) / topic.queuesPerBroker;
    const fillSec = g.config.pullThresholdForQueue / surplusPerQueue;
    const links = [...html.matchAll(/<a class="why-link rmq-goto" href="#charts" data-target="charts" data-from="[\d.]+" data-to="[\d.]+" data-hl-from="([\d.]+)" data-hl-to="([\d.]+)">[^<]*<\/a> <code class="why-reason">([^<]*)<\/code>/g)];
    // (Before the cache fills the pool is already saturated: other reasons may be listed too.)
    const counted = links.filter((m) => m[3] === REASON.flowControlCount);
    expect(counted).toHaveLength(topic.queuesPerBroker);
    for (const [, from, to] of counted) {
      expect(Number(from)).toBeGreaterThan(0.8 * fillSec);
      expect(Number(from)).toBeLessThan(1.2 * fillSec);
      expect(Number(to)).toBe(durationUs / S);
    }
    const rows = ownershipReasons(html);
    const queues = Array.from({ length: topic.queuesPerBroker }, (_, i) => `TopicTest@broker-a#${i}`);
    for (const q of queues) expect(rows).toContainEqual(["G1", q, REASON.flowControlCount]);
    // Nothing is produced to the group's retry queue: nothing holds it back, "—".
    expect(rows.filter((r) => !queues.includes(r[1]!)).map((r) => r[2])).toEqual([NO_REASON]);
    expect(rows).toHaveLength(result.summary.perQueue.length);
  });

  it("a run where nothing stopped: the section says so, every queue's reason is — and why.json has no interval", async () => {
    const { result, why } = simulateExplained({
      name: "calm", duration: "10s", seed: 3,
      brokers: [{ name: "broker-a" }],
      topics: [{ name: "TopicTest", brokers: ["broker-a"], queuesPerBroker: 4, produce: { rate: 100 } }],
      groups: [{ name: "G1", instances: 2, subscribe: { TopicTest: "*" } }],
    });
    const files = await renderReport(result, { charts: false, why });
    const json = JSON.parse(text(files, "why.json")) as { queues: QueueExplanation[]; queuesExamined: number };
    // The topic's 4 queues, and the group's %RETRY% queue when the explainer examines it too.
    expect(json.queuesExamined).toBeGreaterThanOrEqual(4);
    expect(json.queues.flatMap((q) => q.intervals)).toEqual([]);
    const html = text(files, "report.html");
    expect(html).toContain(`Nothing held G1's ${json.queuesExamined} queue(s) back`);
    expect(html).not.toContain('class="why-link');
    const rows = ownershipReasons(html);
    expect(rows).toHaveLength(result.summary.perQueue.length);
    expect(new Set(rows.map((r) => r[2]))).toEqual(new Set([NO_REASON]));
  });

  it("without an account (a result rendered alone) there is no Why section, column or why.json", async () => {
    const { result } = simulateExplained({
      name: "calm", duration: "5s",
      brokers: [{ name: "broker-a" }],
      topics: [{ name: "TopicTest", brokers: ["broker-a"], queuesPerBroker: 2, produce: { rate: 100 } }],
      groups: [{ name: "G1", instances: 1, subscribe: { TopicTest: "*" } }],
    });
    const files = await renderReport(result, { charts: false });
    expect(files.has("why.json")).toBe(false);
    expect(text(files, "report.html")).not.toContain('id="why"');
    expect(text(files, "report.html")).not.toContain("own-why");
  });
});

describe("dominantReasons", () => {
  const interval = (reason: string, startSec: number, endSec: number): ExplainedInterval =>
    ({ reason, startUs: startSec * S, endUs: endSec * S, ongoing: false, progress: "stopped", sentence: "", figures: {}, settings: [] }) as ExplainedInterval;
  const queue = (name: string, intervals: ExplainedInterval[]): QueueExplanation => ({ queue: name, group: "G1", notProgressingUs: 0, intervals });

  it("names the reason covering the most time (overlaps within a reason counted once); ties go to the first code alphabetically; none: absent", () => {
    const got = dominantReasons([
      // count: 0–4 and 2–6 cover 6 s, not 8; span covers 7 s.
      queue("a", [interval(REASON.flowControlCount, 0, 4), interval(REASON.flowControlCount, 2, 6), interval(REASON.flowControlSpan, 10, 17)]),
      // count: 0–4 and 4–8 cover 8 s; span 7 s.
      queue("b", [interval(REASON.flowControlCount, 0, 4), interval(REASON.flowControlCount, 4, 8), interval(REASON.flowControlSpan, 10, 17)]),
      // 5 s each: "noOwner" < "paused".
      queue("c", [interval(REASON.paused, 0, 5), interval(REASON.noOwner, 10, 15)]),
      queue("d", []),
    ]);
    expect(got.get(whyKey("G1", "a"))).toBe(REASON.flowControlSpan);
    expect(got.get(whyKey("G1", "b"))).toBe(REASON.flowControlCount);
    expect(got.get(whyKey("G1", "c"))).toBe(REASON.noOwner);
    expect(got.has(whyKey("G1", "d"))).toBe(false);
  });
});
