// Instance budget check (issue 15 item 3): runs scenarios at the validator's instance limit and
// measures the peak number of pending scheduler events, which the start-up NOTIFY_CONSUMER_IDS_CHANGED
// burst dominates (≈ 0.47 × Σ n² × nodes; see src/scenario/instanceBudget.ts).
//
// Acceptance: at the limit (2048 instances on one node, 1448 on two, 1024 on four) the peak stays
// below the scheduler's 4 194 304 pending slots, and one instance more is refused by validation.
// Too slow for the test suite (a run at the limit takes one to three minutes): run it with
// `npx tsx bench/instanceBudget.ts` (or `... 400 800` to measure other counts on 1, 2 and 4 nodes).

import { simulate } from "../src/run/simulate.ts";
import { InputError } from "../src/scenario/errors.ts";
import { instancesMaxWith } from "../src/scenario/instanceBudget.ts";

const SCHEDULER_SLOTS = 2 ** 22;

function scenario(instances: number, brokers: number): unknown {
  const names = Array.from({ length: brokers }, (_, i) => `broker-${i}`);
  return {
    name: "instance-budget",
    duration: "2s",
    phase: "aligned",
    brokers: names.map((name) => ({ name })),
    topics: [{ name: "T", brokers: names, queuesPerBroker: Math.max(1, 8 / brokers), produce: { rate: 100 } }],
    groups: [{ name: "G1", instances, subscribe: { T: "*" } }],
  };
}

/** The most events pending at once during the run (sampled after every scheduleAt). */
function peakPending(instances: number, brokers: number): number {
  let peak = 0;
  simulate(scenario(instances, brokers), {
    configure: (cluster) => {
      const sched = cluster.sched;
      const scheduleAt = sched.scheduleAt.bind(sched);
      sched.scheduleAt = (...args: Parameters<typeof scheduleAt>) => {
        const id = scheduleAt(...args);
        if (sched.pending > peak) peak = sched.pending;
        return id;
      };
    },
  });
  return peak;
}

const asked = process.argv.slice(2).map(Number);
let failed = false;
for (const brokers of [1, 2, 4]) {
  const counts = asked.length > 0 ? asked : [instancesMaxWith(brokers)];
  for (const n of counts) {
    const t0 = Date.now();
    const peak = peakPending(n, brokers);
    const ratio = peak / (n * n * brokers);
    const ok = peak < SCHEDULER_SLOTS;
    failed ||= !ok;
    console.log(`${n} instances, ${brokers} node(s): peak ${peak} pending (${ratio.toFixed(3)} × n² × nodes, ${((100 * peak) / SCHEDULER_SLOTS).toFixed(0)} % of the slots) in ${((Date.now() - t0) / 1000).toFixed(0)} s${ok ? "" : "  OVER"}`);
  }
  if (asked.length === 0) {
    try {
      simulate(scenario(instancesMaxWith(brokers) + 1, brokers), { durationUs: 1 });
      console.log(`${instancesMaxWith(brokers) + 1} instances on ${brokers} node(s) validated: the limit is not enforced  FAIL`);
      failed = true;
    } catch (e) {
      if (!(e instanceof InputError)) throw e;
    }
  }
}
process.exitCode = failed ? 1 : 0;
