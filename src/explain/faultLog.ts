// The faults applied so far, as the trace's `fault` records tell them (phase 0 applied, 1 lifted): the
// explainer names the fault behind an interval from this log and the scenario's fault list.
import type { FaultModel } from "../scenario/faultTypes.ts";

export class FaultLog {
  private readonly entries: { index: number; startUs: number; endUs: number }[] = [];

  constructor(private readonly faults: readonly FaultModel[]) {}

  /** A `fault` record: fault `index` applied (phase 0) or lifted at `t`. */
  onFault(t: number, index: number, phase: number): void {
    if (phase === 0) this.entries.push({ index, startUs: t, endUs: Infinity });
    else for (const e of this.entries) if (e.index === index && e.endUs === Infinity) e.endUs = t;
  }

  /** The faults applied so far, in order (undefined for an index the scenario does not have). */
  applied(): (FaultModel | undefined)[] {
    return this.entries.map((e) => this.faults[e.index]);
  }

  /** When the latest application of the fault labelled `label` began (−1: never applied). */
  startOf(label: string): number {
    for (let i = this.entries.length - 1; i >= 0; i--) if (this.faults[this.entries[i]!.index]?.label === label) return this.entries[i]!.startUs;
    return -1;
  }

  /** The label of the latest applied fault that passes `test`, if any. */
  where(test: (f: FaultModel, e: { startUs: number; endUs: number }) => boolean): string | undefined {
    for (let i = this.entries.length - 1; i >= 0; i--) {
      const e = this.entries[i]!;
      const f = this.faults[e.index];
      if (f !== undefined && test(f, e)) return f.label;
    }
    return undefined;
  }
}
