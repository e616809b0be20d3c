// The explainer as a stream: a trace capture filter that hands each record the explainer reads
// (capture.ts decides which) to a Deriver as the run emits it, and keeps none of them. Memory is the
// Deriver's — open runs, closed intervals and the thinned pull log — not the trace's, so it can ride
// along any run (`rmqsim run` renders its "Why" section from it) at the cost of one filter call per
// record. `rmqsim explain` uses the same stream, so the two cannot disagree.
import type { Model } from "../scenario/types.ts";
import type { Routes } from "../protocol/routes.ts";
import type { Cluster } from "../model/Cluster.ts";
import type { TraceFilter } from "../sim/Trace.ts";
import { explainCapture } from "./capture.ts";
import { Deriver, type Derived } from "./derive.ts";

export class ExplainStream {
  private deriver: Deriver | null = null;
  /** Records handed to the Deriver so far. */
  recordsUsed = 0;

  constructor(
    private readonly model: Model,
    private readonly routes: Routes,
    /** Global indexes of the queues to explain. */
    private readonly mqs: readonly number[],
  ) {}

  /**
   * The filter for `simulate`'s captureTrace. It feeds the Deriver and answers `keepAll`: false holds no
   * record at all; true (`--trace`) captures every record for trace.jsonl as well, while the Deriver
   * still sees exactly the thinned records it sees without --trace — so the account does not depend on
   * whether the trace was kept. The record's time is the kernel's clock: records are emitted at `now`.
   */
  filter(cl: Cluster, keepAll = false): TraceFilter {
    // The capture's aggregate (consume pool, failed send-backs, held pulls) is read by the Deriver at result.
    const { filter: wanted, aggregate } = explainCapture(cl, new Set(this.mqs));
    const deriver = new Deriver(this.model, this.routes, this.mqs, this.model.durationUs, aggregate);
    this.deriver = deriver;
    const trace = cl.trace;
    const sched = cl.sched;
    return (type, f0, f1, f2, f3) => {
      if (wanted(type, f0, f1, f2, f3)) {
        deriver.feed(trace.recordOf(type, sched.nowUs, f0, f1, f2, f3));
        this.recordsUsed++;
      }
      return keepAll;
    };
  }

  /** Closes what is still open at `durationUs` (the run's end, or where it stopped) and returns the intervals. */
  finish(durationUs: number): Derived {
    if (this.deriver === null) throw new Error("ExplainStream.finish: the stream's filter was never installed (pass it to simulate's captureTrace)");
    return this.deriver.result(durationUs);
  }
}
