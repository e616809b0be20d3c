// Issue 18's CI-cheap performance guard: a short run of bench/reference.json must not take more events
// per consumed message than the checked-in value (+2 %), and the model's consumed messages per
// CPU-second divided by the kernel's bare events per CPU-second, both measured here in this process
// (bench/guardMeasure.ts, which says why messages and not the model's events), must stay above 80 % of
// the checked-in ratio. The checked-in values (bench/guard.json) were measured by this very test
// on the machine and date written there: `npm run bench:guard` (RMQSIM_GUARD_WRITE=1) runs it and writes
// what it measured instead of asserting. The ratio must be measured here, under vitest, not under tsx:
// the same code measured ≈ 0.15 under vitest and ≈ 0.2 under tsx on the same machine (probably because
// vitest's module runner rewrites every imported name into a property read on the imported module, and
// the model makes far more cross-module calls per event than the kernel), so only a vitest figure
// compares with the checked-in one. Bounds: bench/guard.json's margins, not numbers copied here.
import { describe, expect, it } from "vitest";
import { measureEventsPerMessage, measureGuard, readGuardValues, writeGuardValues } from "../bench/guardMeasure.ts";

// The events-per-message bound is deterministic and runs in every `npm test`. The ratio is a timing: it
// runs only with RMQSIM_PERF_GUARD=1, which .ci/run sets in a step of its own after npm test, so the
// measurement does not share the 2 cores with the rest of the suite (in the parallel suite it swung
// by a third) — and `npm run bench:guard` (RMQSIM_GUARD_WRITE=1) to re-measure and write both.
const TIMED = process.env.RMQSIM_PERF_GUARD === "1" || process.env.RMQSIM_GUARD_WRITE === "1";

describe("performance guard (bench/guard.json)", () => {
  const values = readGuardValues();
  const perMessageMax = values.eventsPerConsumedMessage * (1 + values.eventsPerMessageMargin);

  it.skipIf(TIMED)("events per consumed message stay within the checked-in bound (+2 %)", () => {
    const perMessage = measureEventsPerMessage(values);
    expect(perMessage, `events/message ${perMessage.toFixed(4)} (max ${perMessageMax.toFixed(4)})`).toBeLessThanOrEqual(perMessageMax);
  });

  it.runIf(TIMED)("events per consumed message and consumed msgs per CPU-second ÷ kernel events per CPU-second stay within the checked-in bounds", () => {
    const m = measureGuard(values);
    const ratioMin = values.messageKernelRatio * values.ratioFloorFraction;
    const detail =
      `events/message ${m.eventsPerConsumedMessage.toFixed(4)} (max ${perMessageMax.toFixed(4)}); ` +
      `model ${Math.round(m.modelMessagesPerS)} consumed msgs ÷ kernel ${Math.round(m.kernelEventsPerS)} events per CPU-second = ${m.messageKernelRatio.toFixed(5)} (min ${ratioMin.toFixed(5)}); ` +
      `by events ${m.modelKernelRatio.toFixed(4)} (checked in ${values.modelKernelRatio}, not asserted); checked-in values of ${values.measured}`;
    console.log(`performance guard: ${detail}`);
    if (process.env.RMQSIM_GUARD_WRITE === "1") {
      const next = writeGuardValues(values, m, new Date());
      console.log(`performance guard: written to bench/guard.json: ${JSON.stringify(next)}`);
      return;
    }
    expect(m.eventsPerConsumedMessage, detail).toBeLessThanOrEqual(perMessageMax);
    expect(m.messageKernelRatio, detail).toBeGreaterThanOrEqual(ratioMin);
  });
});
