// ScheduleMessageService (broker spec §6, client spec §9.2): sent-back messages are parked in the schedule
// topic's consume queues — one per delay level, SCHEDULE_TOPIC_XXXX queue L − 1 — and delivered into
// %RETRY%<group> when due. Split in two as RocketMQ is:
//  * ScheduleLog: the consume queues themselves, part of the commit log and so shared by every node of a
//    broker group (master and slaves model one replicated log). Offsets are absolute; only a lost
//    commit-log tail (loseTail) gives its offsets out again, as it does for every consume queue.
//  * ScheduleMessageService: one per broker node. Its offset table (level → next offset to deliver) is
//    per node and not replicated: it is written to delayOffset.json by persist() (§6.3), copied to slaves
//    by SlaveSynchronize (syncFrom, §4.7), and reloaded by start() (4.9.0+, §5). So a crash replays what
//    was delivered since the last persist, and a promoted slave what the old master delivered since the
//    last sync (§6.4): duplicate retries, counted in `redelivered`.
// Every entry of a level has the same delay, so a level's order is due order and one timer per level, at
// the head's due time, is enough.
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

/** ScheduleMessageService.FIRST_DELAY_TIME: each level's first run comes 1000 ms after start() (§6.2). */
export const FIRST_DELAY_TIME_US = 1_000_000;

/** Below 1024 dropped entries the log keeps them: splicing small heads costs more than it frees. */
const TRIM_MIN_ENTRIES = 1024;

/** Someone who may read a level of the log again from some offset on (a node's offset tables). */
export interface ScheduleLogReader {
  /** The lowest offset of `level` this reader may still deliver, now or after a restart or promotion. */
  minNeeded(level: number): number;
  /** The log of `level` now ends at `end` (a lost tail): no table may point past it. */
  truncated(level: number, end: number): void;
}

/**
 * The schedule consume queues of one broker group. Per level an append-only sequence with absolute
 * offsets (0 = the first message ever parked at that level); entries no registered reader may read again
 * are dropped, amortised, which nobody can observe.
 */
export class ScheduleLog {
  private readonly entries: ScheduledRetry[][] = [];
  /** Absolute offset of entries[level][0]. */
  private readonly bases: number[] = [];
  /** Per level, one past the highest offset any node ever delivered. */
  private readonly deliveredEnds: number[] = [];
  private readonly readers: ScheduleLogReader[] = [];

  /** `levels`: the length of the delay table, index 0 included (unused). */
  constructor(readonly levels: number) {
    for (let l = 0; l < levels; l++) {
      this.entries.push([]);
      this.bases.push(0);
      this.deliveredEnds.push(0);
    }
  }

  /** From now on, entries at or above `reader.minNeeded(level)` are kept. */
  register(reader: ScheduleLogReader): void {
    this.readers.push(reader);
  }

  /** Stores a parked message; returns its offset. */
  append(level: number, entry: ScheduledRetry): number {
    const q = this.entries[level]!;
    q.push(entry);
    return this.bases[level]! + q.length - 1;
  }

  /** The lowest offset still held (the consume queue's min offset). */
  begin(level: number): number {
    return this.bases[level]!;
  }

  /** The next offset to be written (the consume queue's max offset). */
  end(level: number): number {
    return this.bases[level]! + this.entries[level]!.length;
  }

  get(level: number, offset: number): ScheduledRetry {
    const e = this.entries[level]![offset - this.bases[level]!];
    if (e === undefined) throw new RangeError(`schedule level ${level}: offset ${offset} is outside [${this.begin(level)}, ${this.end(level)})`);
    return e;
  }

  /** One past the highest offset of `level` any node delivered. */
  deliveredEnd(level: number): number {
    return this.deliveredEnds[level]!;
  }

  /** A node delivered [from, to) of `level`; returns how many of them some node had delivered before. */
  markDelivered(level: number, from: number, to: number): number {
    const before = this.deliveredEnds[level]!;
    if (to > before) this.deliveredEnds[level] = to;
    return Math.max(0, Math.min(to, before) - from);
  }

  /**
   * A crash lost the commit-log tail stored since `sinceUs`, and with it the messages parked since then
   * (the schedule topic's consume queues are in that log; a level's entries are in store order, as its
   * delay is fixed). The delivered mark and every reader's tables come back to the new end. Each lost
   * entry goes to `lost`; returns how many.
   */
  loseTail(sinceUs: number, delayLevelsUs: readonly number[], lost: (e: ScheduledRetry) => void): number {
    let n = 0;
    for (let l = 1; l < this.levels; l++) {
      const q = this.entries[l]!;
      let keep = q.length;
      while (keep > 0 && q[keep - 1]!.dueUs - delayLevelsUs[l]! >= sinceUs) keep--;
      if (keep === q.length) continue;
      for (let i = keep; i < q.length; i++) lost(q[i]!);
      n += q.length - keep;
      q.length = keep;
      const end = this.bases[l]! + keep;
      if (this.deliveredEnds[l]! > end) this.deliveredEnds[l] = end;
      for (const r of this.readers) r.truncated(l, end);
    }
    return n;
  }

  /**
   * Drops the entries of `level` below every reader's minNeeded, once they are more than 1024 and more
   * than half of what is held (so each entry is moved O(1) times on average).
   */
  trim(level: number): void {
    const q = this.entries[level]!;
    if (q.length <= TRIM_MIN_ENTRIES) return;
    let min = Infinity;
    for (const r of this.readers) min = Math.min(min, r.minNeeded(level));
    const drop = min - this.bases[level]!;
    if (drop > TRIM_MIN_ENTRIES && drop * 2 > q.length) {
      q.splice(0, drop);
      this.bases[level]! += drop;
    }
  }
}

/** A broker node's delivery of parked messages and its delay-offset table. */
export class ScheduleMessageService implements ScheduleLogReader {
  /** The in-memory offsetTable: per level, the next offset to deliver. */
  private readonly offsets: number[] = [];
  /** delayOffset.json as last written (persist, or a slave's syncFrom); start() loads it. */
  private readonly persisted: number[];
  /**
   * Per level, the time of the one timer that may deliver, −1 when none: a timer armed before a stop is
   * not cancelled but found stale when it fires.
   */
  private readonly armedAtUs: number[] = [];
  private isRunning: boolean;
  /** Deliveries of an offset some node of this log had already delivered: duplicate retries (§6.4). */
  redelivered = 0;

  /** `running`: false for a slave/follower node, which delivers nothing until start(). */
  constructor(
    private readonly ctx: NodeContext,
    /** The broker's timer code for "a delay level is due" (argument: the level). */
    private readonly timerCode: number,
    /** Delay of each level in µs, index 1-based (index 0 unused). */
    private readonly delayLevelsUs: readonly number[],
    /** The group's schedule consume queues (shared by its nodes). */
    private readonly log: ScheduleLog,
    /** Puts a due message into %RETRY%<group>. */
    private readonly deliver: (e: ScheduledRetry, replay: boolean) => void,
    running = true,
  ) {
    const levels = delayLevelsUs.length;
    for (let l = 0; l < levels; l++) {
      this.offsets.push(0);
      this.armedAtUs.push(-1);
    }
    if (log.levels !== levels) throw new RangeError(`ScheduleLog has ${log.levels} levels, the delay table ${levels}`);
    this.persisted = this.offsets.slice();
    this.isRunning = running;
    this.log.register(this);
  }

  /** The highest level; higher ones are clamped to it (HookUtils). */
  get maxLevel(): number {
    return this.delayLevelsUs.length - 1;
  }

  /** Whether this node delivers (the master or DLedger leader, §6.2). */
  get running(): boolean {
    return this.isRunning;
  }

  /** Parks a message for its level's delay (§6.1); a stopped node stores it for whoever starts next. */
  park(level: number, entry: Omit<ScheduledRetry, "dueUs">): void {
    const dueUs = this.ctx.nowUs + this.delayLevelsUs[level]!;
    this.log.append(level, { dueUs, ...entry });
    // Running and disarmed means the level was delivered to its end, so this entry is its new head.
    if (this.isRunning && this.armedAtUs[level]! < 0) this.arm(level, dueUs);
  }

  /** DeliverDelayedMessageTimerTask#executeOnTimeUp (§6.2): delivers every due message of a level, in order. */
  onDue(level: number): void {
    const now = this.ctx.nowUs;
    if (!this.isRunning || this.armedAtUs[level] !== now) return; // armed before a stop or restart
    const log = this.log;
    const from = this.offsets[level]!;
    let o = from;
    const delivered = log.deliveredEnd(level);
    while (o < log.end(level)) {
      const e = log.get(level, o);
      if (e.dueUs > now) break;
      this.deliver(e, o < delivered);
      o++;
    }
    this.offsets[level] = o;
    this.redelivered += log.markDelivered(level, from, o);
    log.trim(level);
    if (o < log.end(level)) this.arm(level, log.get(level, o).dueUs);
    else this.armedAtUs[level] = -1;
  }

  /** ScheduleMessageService#persist (§6.3): writes the in-memory table to delayOffset.json. */
  persist(): void {
    for (let l = 0; l < this.offsets.length; l++) this.persisted[l] = this.offsets[l]!;
  }

  /** ScheduleMessageService#encode: the in-memory table, as SlaveSynchronize#syncDelayOffset reads it (§4.7). */
  encode(): number[] {
    return this.offsets.slice();
  }

  /**
   * SlaveSynchronize#syncDelayOffset (§4.7): a slave writes the master's table to its delayOffset.json.
   * Kept in memory too (5.x's loadWhenSyncDelayOffset; a 4.9 slave reads the file at start(), same result).
   */
  syncFrom(table: readonly number[]): void {
    if (this.isRunning) throw new Error("syncFrom: a running ScheduleMessageService does not take another node's table");
    if (table.length !== this.offsets.length) throw new RangeError(`syncFrom: a table of ${table.length} levels, expected ${this.offsets.length}`);
    for (let l = 0; l < table.length; l++) this.offsets[l] = this.persisted[l] = table[l]!;
  }

  /**
   * ScheduleMessageService#start (§6.2, 4.9.0+ reload of #2357, §5): loads delayOffset.json and runs each
   * level with something left FIRST_DELAY_TIME after now, or at its head's due time if later. What fell
   * due while the node was down goes out together at that first run (§6.4).
   */
  start(): void {
    if (this.isRunning) return;
    const log = this.log;
    const firstUs = this.ctx.nowUs + FIRST_DELAY_TIME_US;
    for (let l = 0; l < this.offsets.length; l++) {
      // correctDelayOffset: a table pointing below what the log still holds starts at its min.
      const o = Math.max(this.persisted[l]!, log.begin(l));
      this.offsets[l] = o;
      this.armedAtUs[l] = -1;
      if (o < log.end(l)) this.arm(l, Math.max(firstUs, log.get(l, o).dueUs));
    }
    this.isRunning = true;
  }

  /**
   * Stops delivering (a clean shutdown, or changeToSlave, §5); timers already armed will find themselves
   * stale. `clean`: the table is persisted first (§6.3); otherwise it dies with the process, and a later
   * start() resumes from the file.
   */
  stop(clean: boolean): void {
    if (!this.isRunning) return;
    if (clean) this.persist();
    else for (let l = 0; l < this.offsets.length; l++) this.offsets[l] = this.persisted[l]!;
    this.isRunning = false;
    this.armedAtUs.fill(-1);
  }

  /** The process dies: the in-memory table is lost; start() will re-deliver from the file (§6.4). */
  crash(): void {
    this.stop(false);
  }

  /** Messages a start() from delayOffset.json would deliver a second time (what a crash now would replay). */
  pendingReplays(): number {
    let n = 0;
    for (let l = 0; l < this.persisted.length; l++) n += Math.max(0, this.log.deliveredEnd(l) - Math.max(this.persisted[l]!, this.log.begin(l)));
    return n;
  }

  /** ScheduleLogReader: a running node reads from its table, and after a crash from its file. */
  minNeeded(level: number): number {
    return Math.min(this.offsets[level]!, this.persisted[level]!);
  }

  /** The group's log lost its tail since `sinceUs` (ScheduleLog#loseTail); returns how many parked messages. */
  loseTail(sinceUs: number, lost: (e: ScheduledRetry) => void): number {
    return this.log.loseTail(sinceUs, this.delayLevelsUs, lost);
  }

  /** ScheduleLogReader: correctDelayOffset's upper bound — the tables never point past the log's end. */
  truncated(level: number, end: number): void {
    if (this.offsets[level]! > end) this.offsets[level] = end;
    if (this.persisted[level]! > end) this.persisted[level] = end;
  }

  private arm(level: number, atUs: number): void {
    this.armedAtUs[level] = atUs;
    this.ctx.timerAt(atUs, this.timerCode, level);
  }
}
