// ProcessQueue, spec §3: the client-side cache of one MessageQueue's pulled, not yet acknowledged messages.
//
// RocketMQ keeps a TreeMap offset → message. Cached offsets always lie in a window a little wider than
// consumeConcurrentlyMaxSpan, so we keep a power-of-two ring indexed by offset instead: O(1) put and
// remove, firstKey/lastKey maintained by amortised-O(1) scans over emptied slots. No per-message objects.

/** What the cache needs to know of a message: its body length. */
export interface BodySizes {
  bodyBytes(offset: number): number;
}

const MiB = 1024 * 1024;

export class ProcessQueue {
  msgCount = 0;
  /** Sum of cached body lengths, bytes (§3: bodies only). */
  msgSize = 0;
  /** Offset of the last *new* message put, in list order (§3.1) — not a max(). */
  queueOffsetMax = 0;
  dropped = false;
  consuming = false;
  locked = false;
  lastPullTimestampUs: number;
  lastConsumeTimestampUs: number;
  lastLockTimestampUs: number;
  /** Broker backlog estimate from the last pull (§3.1). */
  msgAccCnt = 0;
  tryUnlockTimes = 0;

  // Ring window over offsets [lo, hi]; entry = body length + 1 (0 = absent).
  private mask: number;
  private sizes: Int32Array;
  /** CONSUME_START_TIME of each cached message, −1 if no attempt started (for cleanExpiredMsg, §3.7). */
  private startUs: Float64Array;
  private lo = 0;
  private hi = -1;
  /** Orderly: messages taken for consumption (consumingMsgOrderlyTreeMap), in offset order. */
  private consumingOffsets: number[] = [];
  private consumingSizes: number[] = [];

  constructor(nowUs: number, initialCapacity = 64) {
    let cap = 16;
    while (cap < initialCapacity) cap *= 2;
    this.mask = cap - 1;
    this.sizes = new Int32Array(cap);
    this.startUs = new Float64Array(cap).fill(-1);
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

  /** §3.1 putMessage. Offsets in list order; returns dispatchToConsume. `maxOffset` is the broker's max
   * offset stamped on the batch (MAX_OFFSET property), or −1 if unknown. */
  putMessage(offsets: ArrayLike<number>, count: number, store: BodySizes, maxOffset = -1): boolean {
    let added = 0;
    for (let i = 0; i < count; i++) {
      const o = offsets[i]!;
      if (this.contains(o)) continue;
      const size = store.bodyBytes(o);
      this.insert(o, size);
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

  // ------------------------------------------------------------------ orderly helpers (§3.4)

  /** Moves up to n smallest cached messages to the consuming map; returns their offsets in order. */
  takeMessages(n: number, nowUs: number): number[] {
    this.lastConsumeTimestampUs = nowUs;
    const taken: number[] = [];
    while (taken.length < n && !this.isEmpty) {
      const o = this.lo;
      const size = this.remove(o);
      this.consumingOffsets.push(o);
      this.consumingSizes.push(size);
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
    else for (const s of this.consumingSizes) this.msgSize -= s;
    this.consumingOffsets = [];
    this.consumingSizes = [];
    return offset + 1;
  }

  /** Puts everything taken back into the cache. */
  rollback(): void {
    for (let i = 0; i < this.consumingOffsets.length; i++) this.insert(this.consumingOffsets[i]!, this.consumingSizes[i]!);
    this.consumingOffsets = [];
    this.consumingSizes = [];
  }

  /** Puts the given taken messages back into the cache. */
  makeMessageToConsumeAgain(offsets: readonly number[]): void {
    for (const o of offsets) {
      const i = this.consumingOffsets.indexOf(o);
      if (i < 0) continue;
      this.insert(o, this.consumingSizes[i]!);
      this.consumingOffsets.splice(i, 1);
      this.consumingSizes.splice(i, 1);
    }
  }

  get consumingCount(): number {
    return this.consumingOffsets.length;
  }

  /** Empties both maps (offset reset). */
  clear(): void {
    while (!this.isEmpty) this.remove(this.lo);
    this.consumingOffsets = [];
    this.consumingSizes = [];
    this.msgCount = 0;
    this.msgSize = 0;
    this.queueOffsetMax = 0;
  }

  /**
   * Gives back the ring memory of a dropped ProcessQueue whose pull loop has ended (its PullRequest
   * stays referenced by id for the run). msgCount and msgSize keep their last values — what the dead
   * cache held — and nothing reads its entries again; a late put would still work (the ring regrows).
   */
  release(): void {
    if (!this.dropped) return;
    this.lo = 0;
    this.hi = -1;
    this.consumingOffsets = [];
    this.consumingSizes = [];
    this.mask = 15;
    this.sizes = new Int32Array(16);
    this.startUs = new Float64Array(16).fill(-1);
  }

  /** Calls fn for every cached offset in order (for end-of-run accounting, not the hot path). */
  forEachCached(fn: (offset: number) => void): void {
    for (let o = this.lo; o <= this.hi; o++) if (this.sizes[o & this.mask] !== 0) fn(o);
  }

  // ------------------------------------------------------------------ ring mechanics

  private insert(o: number, size: number): void {
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
    this.sizes[o & this.mask] = size + 1;
    this.startUs[o & this.mask] = -1;
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
    const sizes = new Int32Array(cap);
    const start = new Float64Array(cap).fill(-1);
    const m = cap - 1;
    for (let o = this.lo; o <= this.hi; o++) {
      const v = this.sizes[o & this.mask]!;
      if (v !== 0) {
        sizes[o & m] = v;
        start[o & m] = this.startUs[o & this.mask]!;
      }
    }
    this.sizes = sizes;
    this.startUs = start;
    this.mask = m;
  }
}
