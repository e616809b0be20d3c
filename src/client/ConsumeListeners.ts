// The application's MessageListener, as the scenario describes it: how long a call takes and whether it
// succeeds, drawn per (message, attempt) from the message's identity so a re-delivered message behaves
// the same way again (a poison message fails every time). Faults change a group's behaviour for a while
// and arm hung calls on a queue. One object per run, shared by every instance of every group.
import type { Dist } from "../scenario/distKinds.ts";
import type { GroupModel, OrderlyResults } from "../scenario/types.ts";
import { hashSeedLane1, hashSeedLane2, hashUniformFrom } from "../sim/streams.ts";

export type { OrderlyResults };

export interface ListenerBehaviour {
  consumeTime: Dist;
  failureProbability: number;
  readonly poisonFraction: number;
  readonly hangFraction: number;
}

/** Bits of ConsumeListeners#outcome after drawMessage: the message fails the call, or never returns. */
export const MESSAGE_FAILS = 1;
export const MESSAGE_HANGS = 2;

export class ConsumeListeners {
  /** What the last drawMessage decided besides the time (MESSAGE_FAILS | MESSAGE_HANGS). */
  outcome = 0;
  /** Per group; consumeTime and failureProbability may be changed by faults. */
  readonly behaviour: ListenerBehaviour[];
  /** hangMessage faults armed per queue: the next message consumed takes this long (−1 = forever). */
  private readonly hangs = new Map<number, number>();
  /** Per group, its seed (seedOf) absorbed into the hash's two lanes: [lane 1, lane 2] at 2·group. */
  private readonly seedLanes: Int32Array;

  constructor(
    private readonly groups: readonly GroupModel[],
    private readonly seed: number,
  ) {
    this.behaviour = groups.map((g) => ({
      consumeTime: g.consumeTime, failureProbability: g.failureProbability, poisonFraction: g.poisonFraction, hangFraction: g.hangFraction,
    }));
    this.seedLanes = new Int32Array(2 * groups.length);
    groups.forEach((_, g) => {
      this.seedLanes[2 * g] = hashSeedLane1(this.seedOf(g));
      this.seedLanes[2 * g + 1] = hashSeedLane2(this.seedOf(g));
    });
  }

  /** What an orderly listener returns and whether its context auto-commits (§8.4). */
  orderlyResultsOf(group: number): OrderlyResults {
    return this.groups[group]!.orderlyResults;
  }

  /**
   * The listener on one message of a call, `attempt` being its count of earlier attempts: its consume
   * time, µs, with `outcome` set (poison fails every attempt, a failure is drawn per attempt, a hang only
   * on the first). A function of (group, message, attempt): a re-delivery behaves the same way again.
   */
  drawMessage(group: number, originKey: number, attempt: number): number {
    const b = this.behaviour[group]!;
    // hashUniform(seedOf(group), originKey, attempt, draw), the seed's share done once per run.
    const h1 = this.seedLanes[2 * group]!;
    const h2 = this.seedLanes[2 * group + 1]!;
    let out = 0;
    if (b.poisonFraction > 0 && hashUniformFrom(h1, h2, originKey, 0, 2) < b.poisonFraction) out = MESSAGE_FAILS;
    if (b.failureProbability > 0 && hashUniformFrom(h1, h2, originKey, attempt, 1) < b.failureProbability) out = MESSAGE_FAILS;
    if (b.hangFraction > 0 && attempt === 0 && hashUniformFrom(h1, h2, originKey, 0, 3) < b.hangFraction) out |= MESSAGE_HANGS;
    this.outcome = out;
    return b.consumeTime.quantile(hashUniformFrom(h1, h2, originKey, attempt, 0));
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
