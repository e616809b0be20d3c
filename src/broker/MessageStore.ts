// A broker's DefaultMessageStore, as far as the model needs it: the commit log in files (which decides
// what is still in page cache and what retention deletes), one consume queue per hosted queue, the
// timestamp search and the "start at 0" rule (consumer spec §10.6, §13.2, §13.7; broker spec §1, §2).
//
// Retention comes in two modes. The RocketMQ one (broker spec §2) deletes whole commit-log files: the
// clean-up tick (Broker, every cleanResourceInterval) calls `cleanCommitLog`, which deletes expired files
// in the deleteWhen hour or under disk pressure and trims the consume queues to the first message still
// in a file. The simple one (a topic's `retention`) deletes message by message by age, every second.
//
// Producers write lazily (a backlogged run schedules no event per produced message): before the store is
// read or written by anything else, `source.advanceTo(now)` appends every message born by now, so what a
// reader sees never depends on when that happened to run last.
import type { Routes } from "../protocol/routes.ts";
import { BROKER_CONSTANTS } from "../scenario/defaults.ts";
import type { StoreModel } from "../scenario/types.ts";
import type { Trace } from "../sim/Trace.ts";
import type { BrokerObserver } from "./BrokerObserver.ts";
import { QueueStore, type Regenerator } from "./QueueStore.ts";
import type { BrokerTrace } from "./trace.ts";

/** Where the store's lazily produced messages come from (the producers, driven by the model). */
export interface MessageSource extends Regenerator {
  /** Appends every message born at or before `nowUs`, on every broker. */
  advanceTo(nowUs: number): void;
  /** Asks to be woken (onArrival) at the reput pass that dispatches the next message born for `topic`, wherever it goes. */
  wakeAtNextArrival(topic: number): void;
  /** `mq`, where a pull is held, holds messages not dispatched yet: notify it at the next reput pass (reput.ts). */
  arrivedUndispatched(mq: number): void;
}

/** CommitLog's END_FILE_MIN_BLANK_LENGTH: a message must leave this much room at a file's end (§1.1). */
const END_FILE_MIN_BLANK = 8;
const HOUR_US = 3_600_000_000;
const DAY_US = 24 * HOUR_US;

/** One commit-log file (broker spec §1.1). */
interface CommitLogFile {
  /** Physical offset of its first byte (file number × file size). */
  readonly startPos: number;
  /** Next write position inside the file, bytes. */
  writePos: number;
  /** Time of its last append (its age for retention, §2.3). */
  lastModifiedUs: number;
  /** Per hosted queue (local index): the queue's max offset when the file was created, i.e. its first
   * message in this file or later. */
  readonly firstOffsets: Float64Array;
}

/** Why commit-log files were deleted (broker spec §2.2, §2.5). */
export const enum CleanReason {
  TIME_UP = 0,
  DISK_USAGE = 1,
  FORCED = 2,
}

export class MessageStore {
  /** Commit-log tail position, bytes (the physical max offset). */
  commitLogTail = 0;
  /** Files still present, oldest first. */
  readonly files: CommitLogFile[] = [];
  /** Commit-log files deleted so far. */
  filesDeleted = 0;
  /** DISK_FULL (§2.5): puts are refused until usage is back at or below the forced-clean ratio. */
  diskFull = false;
  /** Recent appends (store time, tail before it), oldest at histHead, kept for tailHistoryUs. */
  private histT = new Float64Array(0);
  private histPos = new Float64Array(0);
  private histHead = 0;
  private histLen = 0;
  /** Consume queues by global queue index; only this broker's are present. */
  private readonly queues: (QueueStore | null)[];
  /** Local index of each hosted queue (global index → 0..n−1), −1 elsewhere. */
  private readonly local: Int32Array;
  private readonly hosted: number[];

  constructor(
    private readonly routes: Routes,
    readonly broker: number,
    private readonly hotBytes: number,
    readonly config: StoreModel,
    source: Regenerator | null,
    private readonly observer: BrokerObserver,
    private readonly trace: Trace,
    private readonly T: BrokerTrace,
  ) {
    this.queues = new Array<QueueStore | null>(routes.queues.length).fill(null);
    this.local = new Int32Array(routes.queues.length).fill(-1);
    this.hosted = routes.queuesOf(broker).slice();
    for (let i = 0; i < this.hosted.length; i++) {
      const mq = this.hosted[i]!;
      const q = routes.queues[mq]!;
      const store = new QueueStore(mq, q.topic, q.brokerName, q.queueId);
      if (routes.isOrdinary(mq)) store.regenerator = source;
      this.queues[mq] = store;
      this.local[mq] = i;
    }
  }

  queue(mq: number): QueueStore {
    return this.queues[mq]!;
  }

  /** Stored size of a message in the commit log. */
  storedSize(bodyBytes: number, topicName: string): number {
    return bodyBytes + topicName.length + BROKER_CONSTANTS.STORE_OVERHEAD_BYTES;
  }

  /** The positional "in memory" test (§1.4): within hotBytes of the commit-log tail. */
  isHot(clPos: number): boolean {
    return this.commitLogTail - clPos <= this.hotBytes;
  }

  /**
   * Appends a message to a queue and the commit log at time `nowUs`; originKey −1 makes it an original,
   * `draw` is the producer draw that made it (−1: not replayable from the producer).
   */
  append(mq: number, nowUs: number, bodyBytes: number, tag: number, originKey: number, originBornUs: number, reconsumeTimes: number, draw = -1): number {
    const q = this.queues[mq]!;
    const size = this.storedSize(bodyBytes, q.topic);
    const fileSize = this.config.mappedFileSizeCommitLog;
    let f = this.files[this.files.length - 1];
    if (f === undefined || f.writePos + size + END_FILE_MIN_BLANK > fileSize) f = this.rollFile(f);
    if (this.config.tailHistoryUs > 0) this.remember(Math.max(0, nowUs), f.startPos + f.writePos);
    f.writePos += size;
    f.lastModifiedUs = nowUs;
    this.commitLogTail = f.startPos + f.writePos;
    return q.append(nowUs, this.commitLogTail, bodyBytes, tag, originKey, originBornUs, reconsumeTimes, draw);
  }

  /** Records an append (a seeded backlog counts as stored at 0) and forgets those beyond the window. */
  private remember(timeUs: number, startPos: number): void {
    const cutoff = timeUs - this.config.tailHistoryUs;
    while (this.histLen > 0 && this.histT[this.histHead]! < cutoff) {
      this.histHead++;
      this.histLen--;
    }
    if (this.histHead + this.histLen === this.histT.length) {
      const cap = Math.max(1024, this.histLen * 2);
      const t = new Float64Array(cap);
      const p = new Float64Array(cap);
      t.set(this.histT.subarray(this.histHead, this.histHead + this.histLen));
      p.set(this.histPos.subarray(this.histHead, this.histHead + this.histLen));
      this.histT = t;
      this.histPos = p;
      this.histHead = 0;
    }
    this.histT[this.histHead + this.histLen] = timeUs;
    this.histPos[this.histHead + this.histLen] = startPos;
    this.histLen++;
  }

  /** A new file after `prev` (the rest of prev is the end-of-file blank, §1.1). */
  private rollFile(prev: CommitLogFile | undefined): CommitLogFile {
    const firstOffsets = new Float64Array(this.hosted.length);
    for (let i = 0; i < this.hosted.length; i++) firstOffsets[i] = this.queues[this.hosted[i]!]!.maxOffset;
    const startPos = prev === undefined ? 0 : prev.startPos + this.config.mappedFileSizeCommitLog;
    const f: CommitLogFile = { startPos, writePos: 0, lastModifiedUs: 0, firstOffsets };
    this.files.push(f);
    return f;
  }

  /** Bytes the commit log occupies on disk (files are written sparsely: what was written counts). */
  get diskUsedBytes(): number {
    let used = this.config.diskOtherBytes;
    for (const f of this.files) used += f.writePos;
    return used;
  }

  /** Disk usage ratio as RocketMQ computes it: rounded up to a whole percent (§2.5). */
  diskRatio(): number {
    if (this.config.diskBytes === Infinity) return 0;
    return Math.ceil((this.diskUsedBytes * 100) / this.config.diskBytes) / 100;
  }

  /** The local hour of `nowUs` is one of deleteWhen's (UtilAll.isItTimeToDo, §2.2). */
  isTimeToDelete(nowUs: number): boolean {
    const local = (((nowUs + this.config.startTimeUs) % DAY_US) + DAY_US) % DAY_US;
    return this.config.deleteWhenHours.includes(Math.floor(local / HOUR_US));
  }

  /**
   * CleanCommitLogService.run (§2.2–§2.6): the disk ladder, then — in the deleteWhen hour or under disk
   * pressure — deletion of expired files (all but the newest, oldest first, at most deleteFileBatchMax,
   * stopping at the first that must stay; any age when cleaning at once), then the consume queues are
   * trimmed to the first message still in a file. Returns the number of files deleted.
   */
  cleanCommitLog(nowUs: number): number {
    const cfg = this.config;
    const ratio = this.diskRatio();
    let cleanImmediately = false;
    if (ratio > cfg.diskSpaceWarningLevelRatio) {
      this.diskFull = true;
      cleanImmediately = true;
    } else if (ratio > cfg.diskSpaceCleanForciblyRatio) {
      cleanImmediately = true;
    } else {
      this.diskFull = false;
    }
    const timeUp = this.isTimeToDelete(nowUs);
    const spaceToDelete = cleanImmediately || ratio > cfg.diskMaxUsedSpaceRatio;
    if (!timeUp && !spaceToDelete) return 0;
    let deleted = 0;
    while (deleted < cfg.deleteFileBatchMax && this.files.length > 1) {
      const f = this.files[0]!;
      if (!cleanImmediately && nowUs < f.lastModifiedUs + cfg.fileReservedTimeUs) break;
      this.files.shift();
      deleted++;
    }
    if (deleted === 0) return 0;
    this.filesDeleted += deleted;
    const reason = cleanImmediately ? CleanReason.FORCED : timeUp ? CleanReason.TIME_UP : CleanReason.DISK_USAGE;
    this.trace.emit(this.T.commitLogDeleted, nowUs, this.broker, deleted, this.files[0]!.startPos, reason);
    this.observer.commitLogDeleted(this.broker, deleted, reason, nowUs);
    // CleanConsumeQueueService (§2.6): every consume queue's min becomes its first message still present.
    const first = this.files[0]!.firstOffsets;
    for (let i = 0; i < this.hosted.length; i++) this.deleteUpTo(this.hosted[i]!, first[i]!, nowUs);
    return deleted;
  }

  /**
   * A crash lost the commit-log tail: every message stored at or after `sinceUs` is gone from every
   * queue here (the consume queues are rebuilt from the commit log at restart). Returns how many.
   */
  loseTail(sinceUs: number, nowUs: number): number {
    // The commit log goes back to where the first append at or after sinceUs began (exact, from the
    // history; a seeded backlog was stored at 0). tailHistoryUs covers every crash's window.
    let lo = this.histHead;
    let hi = this.histHead + this.histLen;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.histT[mid]! < sinceUs) lo = mid + 1;
      else hi = mid;
    }
    if (lo === this.histHead + this.histLen) return 0;
    const tail = this.histPos[lo]!;
    let lost = 0;
    for (const mq of this.hosted) {
      const q = this.queues[mq]!;
      const from = sinceUs <= 0 ? q.minOffset : q.firstBornAtOrAfter(q.minOffset, sinceUs);
      if (from >= q.maxOffset) continue;
      const to = q.maxOffset;
      if (!this.routes.isOrdinary(mq)) {
        // Retry copies lost with the tail will never be consumed: as a discarded send-back. (DLQ copies
        // stay counted as dead-lettered: they got there.)
        const group = this.routes.topics[this.routes.topicOf(mq)]!.retryOf;
        if (group >= 0) for (let o = from; o < to; o++) this.observer.discarded(group, q.originKey(o));
      }
      this.trace.emit(this.T.tailLost, nowUs, mq, from, to - from);
      lost += to - from;
      // The refills of [from, to) take a new generation: a message of the lost tail that a consumer
      // still holds keeps its own identity.
      const gen = q.truncateTo(from);
      if (this.routes.isOrdinary(mq)) this.observer.messagesTruncated(mq, from, to, gen);
    }
    // Files that begin at or after the new tail are gone; the last kept one is cut there (if the first lost
    // append opened a new file, the file before keeps its end-of-file blank as it was).
    while (this.files.length > 1 && this.files[this.files.length - 1]!.startPos >= tail) this.files.pop();
    const f = this.files[this.files.length - 1]!;
    f.writePos = Math.min(f.writePos, Math.max(0, tail - f.startPos));
    if (lo > this.histHead) f.lastModifiedUs = this.histT[lo - 1]!;
    this.commitLogTail = f.startPos + f.writePos;
    this.histLen = lo - this.histHead;
    return lost;
  }

  /** Simple retention: deletes messages older than the topic's retention, in order (retry and DLQ queues keep theirs). */
  applyRetention(mq: number, nowUs: number): void {
    const retentionUs = this.routes.topics[this.routes.topicOf(mq)]!.retentionUs;
    if (retentionUs === Infinity) return;
    const q = this.queues[mq]!;
    this.deleteUpTo(mq, q.firstBornAtOrAfter(q.minOffset, nowUs - retentionUs), nowUs);
  }

  /** Moves minOffset up to `offset`; the observer learns which messages are gone. */
  deleteUpTo(mq: number, offset: number, nowUs: number): void {
    const q = this.queues[mq]!;
    if (offset <= q.minOffset) return;
    this.observer.messagesDeleted(mq, q.minOffset, offset);
    q.minOffset = offset;
    q.dropBelowMin();
    this.trace.emit(this.T.retention, nowUs, mq, offset);
  }

  /** searchOffset(timestamp): the first offset born at or after it (minOffset if older than all). */
  searchOffset(mq: number, timestampUs: number): number {
    const q = this.queues[mq]!;
    return q.firstBornAtOrAfter(q.minOffset, timestampUs);
  }

  /**
   * The offset QUERY_CONSUMER_OFFSET answers when the group has none stored: 0 if the queue was never
   * truncated and its first message is still in page cache (consume from the start), else −1.
   */
  startAtZero(mq: number): boolean {
    const q = this.queues[mq]!;
    return q.minOffset <= 0 && q.maxOffset > 0 && this.isHot(q.firstClPos());
  }

  /**
   * Gives back the memory of a scenario queue's messages below `offset` — a simulator economy, invisible
   * to the model: they are re-created if read again. The caller must know nobody holds them now.
   */
  reclaimBelow(mq: number, offset: number): void {
    if (!this.routes.isOrdinary(mq)) throw new RangeError(`queue ${mq} holds retry copies: it cannot be reclaimed`);
    this.queues[mq]!.reclaimBelow(offset);
  }

  /** reclaimBelow's counterpart above the readers: every whole chunk from `offset` on but those `keep` reads next. */
  reclaimAboveExcept(mq: number, offset: number, keep: readonly number[]): void {
    if (!this.routes.isOrdinary(mq)) throw new RangeError(`queue ${mq} holds retry copies: it cannot be reclaimed`);
    this.queues[mq]!.reclaimAboveExcept(offset, keep);
  }
}
