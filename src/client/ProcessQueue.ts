// ProcessQueue, spec §3: the client-side cache of one MessageQueue's pulled, not yet acknowledged messages.
//
// RocketMQ keeps a TreeMap offset → message. Cached offsets always lie in a window a little wider than
// consumeConcurrentlyMaxSpan, so we keep a power-of-two ring indexed by offset instead: O(1) put and
// remove, firstKey/lastKey maintained by amortised-O(1) scans over emptied slots. No per-message objects.
// The ring holds the client's copy of each message (its columns as the pull answer carried them): the
// consumer never reads the broker's store.


import type { MessageColumns } from "../protocol/commands.ts";

export type { MessageColumns };

const MiB = 1024 * 1024;

export class ProcessQueue {
  msgCount = 0;
  /** Sum of cached body lengths, bytes (§3: bodies only). A double, never an Int32: the sum of a
   * full cache passes 2^31 long before any single body could. */
  msgSize = 0;
  /** Offset of the last *new* message put, in list order (§3.1) — not a max(). */
  queueOffsetMax = 0;
  dropped = false;
  consuming = false;
  locked = false;
  // Initialised to 0 before the constructor sets them: a field declared without a value starts as
  // undefined, and V8 then keeps it tagged, so every store of a time past 2^31 µs (35.8 min) would
  // allocate a HeapNumber; a field that starts as a number stores doubles in place.
  lastPullTimestampUs = 0;
  lastConsumeTimestampUs = 0;
  lastLockTimestampUs = 0;
  /** Broker backlog estimate from the last pull (§3.1). */
  msgAccCnt = 0;
  tryUnlockTimes = 0;
  /** Orderly ROLLBACKs so far: not a RocketMQ field; varies the listener's draws between rolled-back calls. */
  rollbacks = 0;

  // Ring window over offsets [lo, hi]; entry = body length + 1 (0 = absent). A body is at most its
  // broker's maxMessageSize, itself at most 1 GiB (normalizeScenario), so length + 1 fits an Int32.
  // The other columns are the client's copy of each cached message (set by allocate()).
  private mask!: number;
  private sizes!: Int32Array;
  /** CONSUME_START_TIME of each cached message, −1 if no attempt started (for cleanExpiredMsg, §3.7). */
  private startUs!: Float64Array;
  private keys!: Float64Array;
  private bornUs!: Float64Array;
  private rts!: Uint16Array;
  private tags!: Int16Array;
  private lo = 0;
  private hi = -1;
  /** Orderly: messages taken for consumption (consumingMsgOrderlyTreeMap), in offset order. */
  private consumingOffsets: number[] = [];
  private consumingRows: MessageRow[] = [];

  constructor(nowUs: number, initialCapacity = 64) {
    let cap = 16;
    while (cap < initialCapacity) cap *= 2;
    this.allocate(cap);
    this.lastPullTimestampUs = nowUs;
    this.lastConsumeTimestampUs = nowUs;
    this.lastLockTimestampUs = nowUs;
  }

  get isEmpty(): boolean {
    return this.hi < this.lo;
  }
  /** Smallest cached offset; −1 if empty. */
  get firstKey(): number {
    return this.isEmpty ? -1 : this.lo;
  }
  /** Largest cached offset; −1 if empty. */
  get lastKey(): number {
    return this.isEmpty ? -1 : this.hi;
  }

  contains(offset: number): boolean {
    return !this.isEmpty && offset >= this.lo && offset <= this.hi && this.sizes[offset & this.mask] !== 0;
  }

  /** §3.1 putMessage. Messages in list order; returns dispatchToConsume. `maxOffset` is the broker's max
   * offset stamped on the batch (MAX_OFFSET property), or −1 if unknown. */
  putMessage(msgs: MessageColumns, maxOffset = -1): boolean {
    const count = msgs.count;
    const offsets = msgs.offsets;
    let added = 0;
    for (let i = 0; i < count; i++) {
      const o = offsets[i]!;
      const size = msgs.bodyBytes[i]!;
      // The usual case, an offset past everything cached (or an empty cache), cannot be cached already.
      if (o <= this.hi && this.contains(o)) continue;
      this.insert(o, size, msgs.originKey[i]!, msgs.originBornUs[i]!, msgs.reconsumeTimes[i]!, msgs.tag[i]!);
      added++;
      this.queueOffsetMax = o;
      this.msgSize += size;
    }
    this.msgCount += added;
    let dispatch = false;
    if (!this.isEmpty && !this.consuming) {
      this.consuming = true;
      dispatch = true;
    }
    if (count > 0 && maxOffset >= 0) {
      const acc = maxOffset - offsets[count - 1]!;
      if (acc > 0) this.msgAccCnt = acc;
    }
    return dispatch;
  }

  /** §3.2 removeMessage: returns the offset to commit, or −1 if the cache was empty. */
  removeMessage(offsets: ArrayLike<number>, count: number, nowUs: number): number {
    this.lastConsumeTimestampUs = nowUs;
    if (this.isEmpty) return -1;
    let result = this.queueOffsetMax + 1;
    let removed = 0;
    for (let i = 0; i < count; i++) {
      const size = this.remove(offsets[i]!);
      if (size >= 0) {
        removed++;
        this.msgSize -= size;
      }
    }
    this.msgCount -= removed;
    if (this.msgCount === 0) this.msgSize = 0;
    if (!this.isEmpty) result = this.lo;
    return result;
  }

  /** §3.3 getMaxSpan: lastKey − firstKey, 0 if empty. */
  getMaxSpan(): number {
    return this.isEmpty ? 0 : this.hi - this.lo;
  }

  /** floor(msgSize / MiB), as the pull flow control reads it (§2 step 5). */
  get cachedMiB(): number {
    return Math.floor(this.msgSize / MiB);
  }

  /** §3.6 isPullExpired. */
  isPullExpired(nowUs: number, pullMaxIdleTimeMs: number): boolean {
    return nowUs - this.lastPullTimestampUs > pullMaxIdleTimeMs * 1000;
  }

  /** §3.5 isLockExpired. */
  isLockExpired(nowUs: number, lockMaxLiveTimeMs = 30_000): boolean {
    return nowUs - this.lastLockTimestampUs > lockMaxLiveTimeMs * 1000;
  }

  /** Stamps CONSUME_START_TIME on a cached message (§7.2 step 4). */
  markConsumeStart(offset: number, nowUs: number): void {
    if (this.contains(offset)) this.startUs[offset & this.mask] = nowUs;
  }

  /** CONSUME_START_TIME of a cached message, −1 if none. */
  consumeStartUs(offset: number): number {
    return this.contains(offset) ? this.startUs[offset & this.mask]! : -1;
  }

  /** The client's copy of a cached message's columns (−1 / 0 when not cached). */
  bodyBytes(offset: number): number {
    return this.contains(offset) ? this.sizes[offset & this.mask]! - 1 : -1;
  }
  originKey(offset: number): number {
    return this.contains(offset) ? this.keys[offset & this.mask]! : -1;
  }
  originBornUs(offset: number): number {
    return this.contains(offset) ? this.bornUs[offset & this.mask]! : 0;
  }
  reconsumeTimes(offset: number): number {
    return this.contains(offset) ? this.rts[offset & this.mask]! : 0;
  }
  tag(offset: number): number {
    return this.contains(offset) ? this.tags[offset & this.mask]! : -1;
  }

  // ------------------------------------------------------------------ orderly helpers (§3.4)

  /** Moves up to n smallest cached messages to the consuming map; returns their offsets in order. */
  takeMessages(n: number, nowUs: number): number[] {
    this.lastConsumeTimestampUs = nowUs;
    const taken: number[] = [];
    while (taken.length < n && !this.isEmpty) {
      const o = this.lo;
      const row = this.row(o);
      this.remove(o);
      this.consumingOffsets.push(o);
      this.consumingRows.push(row);
      taken.push(o);
    }
    if (taken.length === 0) this.consuming = false;
    return taken;
  }

  /** Acknowledges everything taken; returns the offset to commit (last taken + 1). */
  commit(): number {
    const n = this.consumingOffsets.length;
    if (n === 0) throw new Error("ProcessQueue.commit: nothing taken (RocketMQ would throw on lastKey of an empty map)");
    // lastKey of the sorted consuming map: the largest taken offset. Not simply the last one pushed,
    // because makeMessageToConsumeAgain can return a middle message that is then taken again last.
    let offset = this.consumingOffsets[0]!;
    for (const o of this.consumingOffsets) if (o > offset) offset = o;
    this.msgCount -= n;
    if (this.msgCount === 0) this.msgSize = 0;
    else for (const r of this.consumingRows) this.msgSize -= r.bodyBytes;
    this.consumingOffsets = [];
    this.consumingRows = [];
    return offset + 1;
  }

  /** Puts everything taken back into the cache. */
  rollback(): void {
    for (let i = 0; i < this.consumingOffsets.length; i++) this.insertRow(this.consumingOffsets[i]!, this.consumingRows[i]!);
    this.consumingOffsets = [];
    this.consumingRows = [];
  }

  /** Puts the given taken messages back into the cache. */
  makeMessageToConsumeAgain(offsets: readonly number[]): void {
    for (const o of offsets) {
      const i = this.consumingOffsets.indexOf(o);
      if (i < 0) continue;
      this.insertRow(o, this.consumingRows[i]!);
      this.consumingOffsets.splice(i, 1);
      this.consumingRows.splice(i, 1);
    }
  }

  get consumingCount(): number {
    return this.consumingOffsets.length;
  }

  /** The i-th taken message (consumingMsgOrderlyTreeMap, in the order taken): its offset and columns. */
  takenOffset(i: number): number {
    return this.consumingOffsets[i]!;
  }
  takenRow(i: number): MessageRow {
    return this.consumingRows[i]!;
  }

  /** Calls fn for every taken message (in a listener call or awaiting its outcome). */
  forEachTaken(fn: (offset: number, originKey: number) => void): void {
    for (let i = 0; i < this.consumingOffsets.length; i++) fn(this.consumingOffsets[i]!, this.consumingRows[i]!.originKey);
  }

  /** Whether msgTreeMap holds anything (hasTempMessage; taken messages not included). */
  get hasTempMessage(): boolean {
    return !this.isEmpty;
  }

  /** Empties both maps (offset reset). */
  clear(): void {
    while (!this.isEmpty) this.remove(this.lo);
    this.consumingOffsets = [];
    this.consumingRows = [];
    this.msgCount = 0;
    this.msgSize = 0;
    this.queueOffsetMax = 0;
  }

  /**
   * Gives back the ring memory of a dropped ProcessQueue whose pull loop has ended. msgCount and msgSize
   * keep their last values — what the dead cache held — and nothing reads its entries again; a late put
   * would still work (the ring regrows).
   */
  release(): void {
    if (!this.dropped) return;
    this.lo = 0;
    this.hi = -1;
    // The consuming map stays: an orderly listener call may still be running on these messages, and
    // its result commits them (a few rows at most).
    this.allocate(16);
  }

  /** Calls fn for every cached offset in order (for end-of-run accounting, not the hot path). */
  forEachCached(fn: (offset: number) => void): void {
    for (let o = this.lo; o <= this.hi; o++) if (this.sizes[o & this.mask] !== 0) fn(o);
  }

  // ------------------------------------------------------------------ ring mechanics

  private allocate(cap: number): void {
    this.mask = cap - 1;
    this.sizes = new Int32Array(cap);
    this.startUs = new Float64Array(cap).fill(-1);
    this.keys = new Float64Array(cap);
    this.bornUs = new Float64Array(cap);
    this.rts = new Uint16Array(cap);
    this.tags = new Int16Array(cap);
  }

  private insert(o: number, size: number, key: number, bornUs: number, rt: number, tag: number): void {
    if (this.isEmpty) {
      this.lo = o;
      this.hi = o;
    } else {
      const lo = Math.min(this.lo, o);
      const hi = Math.max(this.hi, o);
      if (hi - lo > this.mask) this.grow(hi - lo + 1);
      this.lo = lo;
      this.hi = hi;
    }
    const i = o & this.mask;
    this.sizes[i] = size + 1;
    this.startUs[i] = -1;
    this.keys[i] = key;
    this.bornUs[i] = bornUs;
    this.rts[i] = rt;
    this.tags[i] = tag;
  }

  private row(o: number): MessageRow {
    const i = o & this.mask;
    return { bodyBytes: this.sizes[i]! - 1, originKey: this.keys[i]!, originBornUs: this.bornUs[i]!, reconsumeTimes: this.rts[i]!, tag: this.tags[i]! };
  }

  private insertRow(o: number, r: MessageRow): void {
    this.insert(o, r.bodyBytes, r.originKey, r.originBornUs, r.reconsumeTimes, r.tag);
  }

  /** Removes o if cached; returns its body size or −1. */
  private remove(o: number): number {
    if (!this.contains(o)) return -1;
    const i = o & this.mask;
    const size = this.sizes[i]! - 1;
    this.sizes[i] = 0;
    if (o === this.lo) {
      let lo = o + 1;
      while (lo <= this.hi && this.sizes[lo & this.mask] === 0) lo++;
      this.lo = lo;
    } else if (o === this.hi) {
      let hi = o - 1;
      while (hi >= this.lo && this.sizes[hi & this.mask] === 0) hi--;
      this.hi = hi;
    }
    if (this.isEmpty) {
      this.lo = 0;
      this.hi = -1;
    }
    return size;
  }

  private grow(span: number): void {
    let cap = this.mask + 1;
    while (cap < span) cap *= 2;
    const oldMask = this.mask;
    const old = { sizes: this.sizes, startUs: this.startUs, keys: this.keys, bornUs: this.bornUs, rts: this.rts, tags: this.tags };
    this.allocate(cap);
    const m = this.mask;
    for (let o = this.lo; o <= this.hi; o++) {
      const j = o & oldMask;
      const v = old.sizes[j]!;
      if (v === 0) continue;
      const i = o & m;
      this.sizes[i] = v;
      this.startUs[i] = old.startUs[j]!;
      this.keys[i] = old.keys[j]!;
      this.bornUs[i] = old.bornUs[j]!;
      this.rts[i] = old.rts[j]!;
      this.tags[i] = old.tags[j]!;
    }
  }
}

/** A taken (orderly) message's columns while it sits in the consuming map. reconsumeTimes is the
 * client's local count: the orderly service adds one at every suspend (checkReconsumeTimes, §8.4). */
export interface MessageRow {
  bodyBytes: number;
  originKey: number;
  originBornUs: number;
  reconsumeTimes: number;
  tag: number;
}
