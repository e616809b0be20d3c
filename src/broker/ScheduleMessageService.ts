// ScheduleMessageService (§9.2): sent-back messages wait in one FIFO per delay level (every entry of a
// level has the same delay, so FIFO order is due order) and are delivered into %RETRY%<group> when
// due, waking any pull held on that retry queue. One timer event per level at a time.
import type { World } from "../model/World.ts";
import type { Broker } from "./Broker.ts";

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
    private readonly broker: Broker,
    private readonly world: World,
    /** Delay of each level in µs, index 1-based (index 0 unused). */
    private readonly delayLevelsUs: readonly number[],
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
    const w = this.world;
    const dueUs = w.sched.nowUs + this.delayLevelsUs[level]!;
    this.fifos[level]!.push({ dueUs, ...entry });
    if (!this.armed[level]) {
      this.armed[level] = true;
      w.sched.scheduleAt(dueUs, w.kinds.scheduleDue, this.broker.index, level);
    }
  }

  /** Delivers every due message of a level into %RETRY%<group>. */
  onDue(level: number): void {
    const w = this.world;
    const b = this.broker;
    const now = w.sched.nowUs;
    const fifo = this.fifos[level]!;
    let head = this.heads[level]!;
    while (head < fifo.length && fifo[head]!.dueUs <= now) {
      const e = fifo[head++]!;
      const mq = w.retryQueue(e.group, b.index);
      const store = w.queues[mq]!;
      b.commitLogTail += b.storedSize(e.bodyBytes, store.topic);
      const offset = store.append(now, b.commitLogTail, e.bodyBytes, e.tag, e.originKey, e.originBornUs, e.reconsumeTimes);
      w.trace.emit(w.T.retryDelivered, now, mq, offset, e.reconsumeTimes, e.group);
      if (w.heldCount(mq) > 0 && b.model.config.longPollingEnable) b.notifyMessageArriving(mq, store.maxOffset, e.tag);
    }
    if (head > 1024 && head * 2 > fifo.length) {
      fifo.splice(0, head);
      head = 0;
    }
    this.heads[level] = head;
    if (head < fifo.length) w.sched.scheduleAt(fifo[head]!.dueUs, w.kinds.scheduleDue, b.index, level);
    else this.armed[level] = false;
  }
}
