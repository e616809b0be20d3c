// ScheduleMessageService (§9.2): sent-back messages wait in one FIFO per delay level (every entry of a
// level has the same delay, so FIFO order is due order) and are delivered into %RETRY%<group> when
// due. One timer per level at a time.
import type { NodeContext } from "../net/Node.ts";

/** A message parked in the schedule topic until its delay level's time is up. */
export interface ScheduledRetry {
  dueUs: number;
  group: number;
  originKey: number;
  originBornUs: number;
  bodyBytes: number;
  tag: number;
  reconsumeTimes: number;
}

export class ScheduleMessageService {
  private readonly fifos: ScheduledRetry[][] = [];
  private readonly heads: number[] = [];
  private readonly armed: boolean[] = [];

  constructor(
    private readonly ctx: NodeContext,
    /** The broker's timer code for "a delay level is due" (argument: the level). */
    private readonly timerCode: number,
    /** Delay of each level in µs, index 1-based (index 0 unused). */
    private readonly delayLevelsUs: readonly number[],
    /** Puts a due message into %RETRY%<group>. */
    private readonly deliver: (e: ScheduledRetry) => void,
  ) {
    for (let l = 0; l < delayLevelsUs.length; l++) {
      this.fifos.push([]);
      this.heads.push(0);
      this.armed.push(false);
    }
  }

  /** The highest level; higher ones are clamped to it (HookUtils). */
  get maxLevel(): number {
    return this.delayLevelsUs.length - 1;
  }

  park(level: number, entry: Omit<ScheduledRetry, "dueUs">): void {
    const dueUs = this.ctx.nowUs + this.delayLevelsUs[level]!;
    this.fifos[level]!.push({ dueUs, ...entry });
    if (!this.armed[level]) {
      this.armed[level] = true;
      this.ctx.timerAt(dueUs, this.timerCode, level);
    }
  }

  /** Delivers every due message of a level. */
  onDue(level: number): void {
    const now = this.ctx.nowUs;
    const fifo = this.fifos[level]!;
    let head = this.heads[level]!;
    while (head < fifo.length && fifo[head]!.dueUs <= now) this.deliver(fifo[head++]!);
    if (head > 1024 && head * 2 > fifo.length) {
      fifo.splice(0, head);
      head = 0;
    }
    this.heads[level] = head;
    if (head < fifo.length) this.ctx.timerAt(fifo[head]!.dueUs, this.timerCode, level);
    else this.armed[level] = false;
  }
}
