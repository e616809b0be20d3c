// The application's MessageListener, as the scenario describes it: how long a call takes and whether it
// succeeds, drawn per (message, attempt) from the message's identity so a re-delivered message behaves
// the same way again (a poison message fails every time). Faults change a group's behaviour for a while
// and arm hung calls on a queue. One object per run, shared by every instance of every group.
import type { Dist } from "../scenario/distKinds.ts";
import type { GroupModel, OrderlyResults } from "../scenario/types.ts";

export type { OrderlyResults };

export interface ListenerBehaviour {
  consumeTime: Dist;
  failureProbability: number;
  readonly poisonFraction: number;
  readonly hangFraction: number;
}

export class ConsumeListeners {
  /** Per group; consumeTime and failureProbability may be changed by faults. */
  readonly behaviour: ListenerBehaviour[];
  /** hangMessage faults armed per queue: the next message consumed takes this long (−1 = forever). */
  private readonly hangs = new Map<number, number>();

  constructor(
    private readonly groups: readonly GroupModel[],
    private readonly seed: number,
  ) {
    this.behaviour = groups.map((g) => ({
      consumeTime: g.consumeTime, failureProbability: g.failureProbability, poisonFraction: g.poisonFraction, hangFraction: g.hangFraction,
    }));
  }

  /** What an orderly listener returns and whether its context auto-commits (§8.4). */
  orderlyResultsOf(group: number): OrderlyResults {
    return this.groups[group]!.orderlyResults;
  }

  /** The hash seed of a group's listener: its behaviour is per group, not per instance. */
  seedOf(group: number): number {
    return this.seed * 7919 + group;
  }

  armHang(mq: number, durationUs: number | null): void {
    this.hangs.set(mq, durationUs ?? -1);
  }

  /** The armed hang of a queue, consumed by the first message that starts on it (−2 if none). */
  takeHang(mq: number): number {
    if (this.hangs.size === 0) return -2;
    const h = this.hangs.get(mq);
    if (h === undefined) return -2;
    this.hangs.delete(mq);
    return h;
  }
}
