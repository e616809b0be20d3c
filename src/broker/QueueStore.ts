// One consume queue of a broker, with the messages it holds, stored column-wise in typed-array chunks.
//
// Offsets are logical: minOffset moves up only by retention or a truncate, maxOffset is the next slot and
// goes back only when a crash loses the commit-log tail (truncateTo; those offsets are then reused), and
// every offset in [minOffset, maxOffset) can be read (a rewind replays exactly the messages that were there).
//
// Memory follows what is being read, not the history (issue 11: derive, don't store). A chunk nobody
// reads at the moment may be *reclaimed* (MessageStore#reclaimBelow/reclaimAboveExcept, driven by the
// model's StorageReclaimer): its columns go and only what re-creates
// them stays — for a chunk of a scenario queue whose messages are consecutive draws of the topic's
// producer, the draw number of its first message (the producer replays from there, Producer#regenerate);
// for any other chunk (a seeded backlog, a message redirected here or away by a refused write) its born
// times, body sizes and tags. Originals are their own origin, so those columns are derived. The page-cache
// test reads a message's *page position*: the commit-log position of the first message of its block of
// 2^PAGE_BITS queue messages (pagePos). A reclaimed chunk keeps those 16 positions, so the test reads the
// same before and after reclaiming; judged by its block, a message can count as in memory or on disk
// up to 255 queue messages early (broker spec §1.4 is per message). A reclaimed chunk that is read again is
// rebuilt into a small per-queue cache. Reclaiming is invisible to the model. What every retained chunk
// keeps (draw, first born time and position, page positions) sits in typed columns (ChunkTable); only
// the held columns and the rare kept ones are objects.

import type { MessageBatch } from "../protocol/commands.ts";
import { CHUNK_BITS, ChunkTable, PAGE_BITS } from "./ChunkTable.ts";
import { GEN_MAX, messageKey } from "./messageKey.ts";

export { CHUNK_BITS, PAGE_BITS } from "./ChunkTable.ts";
export const CHUNK = 1 << CHUNK_BITS;
const MASK = CHUNK - 1;
/** Offsets are addressed with 32-bit arithmetic; far beyond any run (2^31 messages in one queue). */
const OFFSET_LIMIT = 2 ** 31;
const PAGE_MASK = ~((1 << PAGE_BITS) - 1);

class Chunk {
  readonly bornUs = new Float64Array(CHUNK);
  readonly clPos = new Float64Array(CHUNK);
  readonly bodyBytes = new Int32Array(CHUNK);
  readonly tag = new Int16Array(CHUNK);
  readonly originKey = new Float64Array(CHUNK);
  readonly originBornUs = new Float64Array(CHUNK);
  readonly reconsumeTimes = new Uint16Array(CHUNK);
}

/** What a reclaimed chunk keeps when its messages cannot be replayed from the producer. */
class KeptColumns {
  readonly bornUs: Float64Array;
  readonly bodyBytes: Int32Array;
  readonly tag: Int16Array;
  constructor(c: Chunk) {
    this.bornUs = c.bornUs.slice();
    this.bodyBytes = c.bodyBytes.slice();
    this.tag = c.tag.slice();
  }
}

/** Re-creates the messages a producer sent to a queue (MessageSource#regenerate). */
export interface Regenerator {
  regenerate(mq: number, draw: number, count: number, bornUs: Float64Array, bodyBytes: Int32Array, tag: Int16Array): void;
}

export { GEN_MAX, keyGen, keyOffset, keyQueue, messageKey } from "./messageKey.ts";

export class QueueStore {
  /** Lowest logical offset still readable (moved by retention or a truncate only). */
  minOffset = 0;
  /** Next offset to be written (= number of messages ever appended). */
  maxOffset = 0;
  /** Born time of the message at tailBornOffset, the last appended (dispatchedMax's common answer without a chunk read). */
  tailBornUs = 0;
  /** Offset of the last append; ≠ maxOffset − 1 once a cut moved maxOffset back (tailBornUs then says nothing). */
  tailBornOffset = -1;
  /** Chunk index of live[0] (chunks below the chunk of minOffset are gone for good). */
  private chunkBase = 0;
  /** Per retained chunk from chunkBase on, its columns while held, null once reclaimed. */
  private readonly live: (Chunk | null)[] = [];
  /**
   * Per retained chunk: the producer draw of its first message while all its messages are consecutive
   * draws for this queue (−1 once that is broken, or for a queue without producer); the born time and
   * commit-log position of its first message (searches skip whole chunks); a reclaimed one's page positions.
   */
  private readonly heads = new ChunkTable();
  /** Reclaimed chunks that cannot be replayed (draw −1 or no regenerator): their columns, by chunk index. */
  private readonly kept = new Map<number, KeptColumns>();
  /** Chunk rebuilds so far (a reclaimed chunk read again); for tests and benchmarks. */
  rebuilds = 0;
  /** Chunks whose columns are held. */
  liveChunks = 0;
  /** Chunk index below which every chunk is reclaimed (where the next reclaim starts looking). */
  private reclaimedUpTo = 0;
  /** Rebuilt chunks, most recently used first, and their chunk indexes. */
  private readonly cache: Chunk[] = [];
  private readonly cacheIdx: number[] = [];
  /** A reclaimed chunk's columns, kept for the next chunk opened (no allocation and zero-fill of ~160 kB per chunk). */
  private spare: Chunk | null = null;
  /** Who re-creates replayable chunks; null = nothing is reclaimed as replayable. */
  regenerator: Regenerator | null = null;
  /** Generation breakpoints, (from offset, generation) pairs in offset order; a cut adds one. */
  private readonly gens: number[] = [];
  private cuts = 0;

  /**
   * @param index global queue index (all topics, brokers, retry and DLQ queues)
   */
  constructor(
    readonly index: number,
    readonly topic: string,
    readonly brokerName: string,
    readonly queueId: number,
  ) {}

  /**
   * Appends a message; `draw` is the producer draw that made it, or −1 (a retry copy, a seeded backlog
   * message, one redirected here): a chunk holding such a message keeps its columns when reclaimed.
   */
  append(bornUs: number, clPos: number, bodyBytes: number, tag: number, originKey: number, originBornUs: number, reconsumeTimes: number, draw = -1): number {
    const offset = this.maxOffset;
    if (offset >= OFFSET_LIMIT) throw new RangeError(`queue ${this.topic}#${this.queueId}: more than 2^31 messages`);
    const i = offset & MASK;
    const ci = offset >>> CHUNK_BITS;
    let c: Chunk;
    if (i === 0) {
      c = this.spare ?? new Chunk();
      this.spare = null;
      this.liveChunks++;
      this.heads.open(ci, draw, bornUs, clPos);
      this.live[ci - this.chunkBase] = c;
    } else {
      c = this.live[ci - this.chunkBase]!;
      if (draw < 0 || draw <= this.heads.draw(ci)) this.heads.setDraw(ci, -1);
    }
    c.bornUs[i] = bornUs;
    c.clPos[i] = clPos;
    c.bodyBytes[i] = bodyBytes;
    c.tag[i] = tag;
    c.originKey[i] = originKey < 0 ? messageKey(this.index, offset, this.genAt(offset)) : originKey;
    c.originBornUs[i] = originKey < 0 ? bornUs : originBornUs;
    c.reconsumeTimes[i] = reconsumeTimes;
    this.tailBornUs = bornUs;
    this.tailBornOffset = offset;
    this.maxOffset = offset + 1;
    return offset;
  }

  /** A message the producer meant for this queue went elsewhere: the open chunk's draws are no longer consecutive. */
  breakDraws(): void {
    if ((this.maxOffset & MASK) === 0) return; // the next chunk starts afresh with its first message's draw
    this.heads.setDraw(this.maxOffset >>> CHUNK_BITS, -1);
  }

  private chunk(offset: number): Chunk {
    const c = offset < this.maxOffset && offset >= 0 ? this.live[(offset >>> CHUNK_BITS) - this.chunkBase] : undefined;
    if (c === undefined) {
      throw new RangeError(`queue ${this.topic}@${this.brokerName}#${this.queueId}: offset ${offset} is not stored (stored ${this.chunkBase << CHUNK_BITS}..${this.maxOffset})`);
    }
    return c ?? this.rebuilt(offset >>> CHUNK_BITS);
  }

  bornUs(offset: number): number {
    return this.chunk(offset).bornUs[offset & MASK]!;
  }
  /** Commit-log position (end) of the message; of a rebuilt chunk, its page position. */
  clPos(offset: number): number {
    return this.chunk(offset).clPos[offset & MASK]!;
  }
  /** The position the page-cache test reads: the commit-log position of the first message of the
   * offset's block of 2^PAGE_BITS (exact whether or not the chunk was reclaimed). */
  pagePos(offset: number): number {
    return this.chunk(offset).clPos[offset & MASK & PAGE_MASK]!;
  }
  bodyBytes(offset: number): number {
    return this.chunk(offset).bodyBytes[offset & MASK]!;
  }
  tag(offset: number): number {
    return this.chunk(offset).tag[offset & MASK]!;
  }
  originKey(offset: number): number {
    return this.chunk(offset).originKey[offset & MASK]!;
  }
  originBornUs(offset: number): number {
    return this.chunk(offset).originBornUs[offset & MASK]!;
  }
  reconsumeTimes(offset: number): number {
    return this.chunk(offset).reconsumeTimes[offset & MASK]!;
  }

  /** Commit-log position of the first message (`offset` 0 must be stored); no rebuild needed. */
  firstClPos(): number {
    if (this.chunkBase > 0 || this.live.length === 0) throw new RangeError(`queue ${this.topic}#${this.queueId}: offset 0 is not stored`);
    return this.heads.firstClPos(0);
  }

  /** Copies the message at `offset` into row `i` of a message batch (one chunk lookup for all columns). */
  copyTo(offset: number, out: MessageBatch, i: number): void {
    const c = this.chunk(offset);
    const j = offset & MASK;
    out.offsets[i] = offset;
    out.bodyBytes[i] = c.bodyBytes[j]!;
    out.tag[i] = c.tag[j]!;
    out.originKey[i] = c.originKey[j]!;
    out.originBornUs[i] = c.originBornUs[j]!;
    out.reconsumeTimes[i] = c.reconsumeTimes[j]!;
  }

  /**
   * The first offset in [from, maxOffset) born at or after `timestampUs` (born times never decrease
   * along a queue); maxOffset if none. Whole chunks are skipped by their first born time, so at most one
   * reclaimed chunk is rebuilt.
   */
  firstBornAtOrAfter(from: number, timestampUs: number): number {
    let lo = from;
    let hi = this.maxOffset;
    if (lo >= hi) return hi;
    // The last chunk whose first message is born before timestampUs holds the answer (or the next chunk's start does).
    let a = (lo >>> CHUNK_BITS) - this.chunkBase;
    let b = ((hi - 1) >>> CHUNK_BITS) - this.chunkBase;
    while (a < b) {
      const mid = (a + b + 1) >>> 1;
      if (this.heads.firstBornUs(mid + this.chunkBase) < timestampUs) a = mid;
      else b = mid - 1;
    }
    lo = Math.max(lo, (a + this.chunkBase) << CHUNK_BITS);
    hi = Math.min(hi, (a + this.chunkBase + 1) << CHUNK_BITS);
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.bornUs(mid) < timestampUs) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** The generation of `offset`'s current message (0 unless a cut gave the offset out again). */
  genAt(offset: number): number {
    const g = this.gens;
    for (let i = g.length - 2; i >= 0; i -= 2) if (g[i]! <= offset) return g[i + 1]!;
    return 0;
  }

  /**
   * Forgets every message from `offset` on (a crash lost the commit-log tail): maxOffset goes back and
   * the next append reuses `offset`. The chunk holding it keeps its columns from now on (its draws are
   * no longer consecutive: the producer made the lost messages). Returns the generation the offsets from
   * there now take (0: no cut).
   */
  truncateTo(offset: number): number {
    if (offset >= this.maxOffset) return 0;
    if (offset < this.minOffset) throw new RangeError(`queue ${this.topic}#${this.queueId}: cannot truncate to ${offset} below minOffset ${this.minOffset}`);
    this.cuts = (this.cuts % GEN_MAX) + 1;
    while (this.gens.length > 0 && this.gens[this.gens.length - 2]! >= offset) this.gens.length -= 2;
    this.gens.push(offset, this.cuts);
    const ci = offset >>> CHUNK_BITS;
    const keep = ci - this.chunkBase + ((offset & MASK) === 0 ? 0 : 1);
    if ((offset & MASK) !== 0) {
      if (this.live[ci - this.chunkBase] === null) {
        const c = new Chunk();
        this.fill(c, ci);
        this.live[ci - this.chunkBase] = c;
        this.kept.delete(ci);
        this.liveChunks++;
      }
      this.heads.setDraw(ci, -1);
    }
    if (this.reclaimedUpTo > ci) this.reclaimedUpTo = ci;
    for (let si = Math.max(0, keep); si < this.live.length; si++) if (this.live[si] !== null) this.liveChunks--;
    this.live.length = Math.max(0, keep);
    const end = this.chunkBase + this.live.length;
    this.heads.truncate(end);
    if (this.kept.size > 0) for (const k of this.kept.keys()) if (k >= end) this.kept.delete(k);
    for (let k = 0; k < this.cacheIdx.length; k++) if (this.cacheIdx[k]! >= ci) this.cacheIdx[k] = -1;
    this.maxOffset = offset;
    return this.cuts;
  }

  /** Producer draw of the lowest stored replayable chunk (Infinity if none): no replay starts below it. */
  lowestDraw(): number {
    for (let ci = this.chunkBase; ci < this.chunkBase + this.live.length; ci++) {
      const draw = this.heads.draw(ci);
      if (draw >= 0) return draw;
    }
    return Infinity;
  }

  /** Drops everything below minOffset's chunk for good (after retention or a truncate moved it). */
  dropBelowMin(): void {
    const target = Math.min(this.minOffset, this.maxOffset) >>> CHUNK_BITS;
    const drop = Math.min(target - this.chunkBase, this.live.length);
    if (drop <= 0) return;
    for (let si = 0; si < drop; si++) if (this.live[si] !== null) this.liveChunks--;
    this.live.splice(0, drop);
    this.chunkBase += drop;
    this.heads.dropBelow(this.chunkBase);
    if (this.kept.size > 0) for (const k of this.kept.keys()) if (k < this.chunkBase) this.kept.delete(k);
    for (let k = 0; k < this.cacheIdx.length; k++) {
      if (this.cacheIdx[k]! < this.chunkBase) this.cacheIdx[k] = -1;
    }
  }

  /**
   * Reclaims the columns of every whole chunk below `offset` (nobody holds a reference below it).
   */
  reclaimBelow(offset: number): void {
    const end = (Math.min(offset, this.maxOffset) >>> CHUNK_BITS) - this.chunkBase;
    for (let si = Math.max(0, this.reclaimedUpTo - this.chunkBase); si < end; si++) this.reclaimChunk(si + this.chunkBase);
    if (end + this.chunkBase > this.reclaimedUpTo) this.reclaimedUpTo = end + this.chunkBase;
  }

  /**
   * Reclaims every whole chunk from `offset` on except those holding an offset in `keep` or the one
   * after it (the next reads of a pull at that offset): a backlog nobody is reading now need not be
   * held; it is re-created when a pull reaches it.
   */
  reclaimAboveExcept(offset: number, keep: readonly number[]): void {
    const full = this.maxOffset >>> CHUNK_BITS; // chunks below this index are full
    for (let ci = Math.max(offset >>> CHUNK_BITS, this.reclaimedUpTo, this.chunkBase); ci < full; ci++) {
      if (this.live[ci - this.chunkBase] === null) continue;
      let held = false;
      for (let k = 0; k < keep.length && !held; k++) {
        const kc = keep[k]! >>> CHUNK_BITS;
        held = ci === kc || ci === kc + 1;
      }
      if (!held) this.reclaimChunk(ci);
    }
  }

  private reclaimChunk(ci: number): void {
    const c = this.live[ci - this.chunkBase]!;
    if (c === null) return;
    if (this.heads.draw(ci) < 0 || this.regenerator === null) this.kept.set(ci, new KeptColumns(c));
    this.heads.setPages(ci, c.clPos);
    this.live[ci - this.chunkBase] = null;
    this.liveChunks--;
    // Nothing else refers to a reclaimed chunk's columns; an append overwrites every row before it is read.
    this.spare = c;
  }

  /** A reclaimed chunk, rebuilt (or found) in the cache of the two most recently read. */
  private rebuilt(ci: number): Chunk {
    const idx = this.cacheIdx;
    const cache = this.cache;
    for (let k = 0; k < cache.length; k++) {
      if (idx[k] !== ci) continue;
      const c = cache[k]!;
      if (k > 0) {
        cache[k] = cache[0]!;
        idx[k] = idx[0]!;
        cache[0] = c;
        idx[0] = ci;
      }
      return c;
    }
    const c = cache.length < 2 ? new Chunk() : cache.pop()!;
    if (idx.length > cache.length) idx.pop();
    cache.unshift(c);
    idx.unshift(ci);
    this.fill(c, ci);
    this.rebuilds++;
    return c;
  }

  private fill(c: Chunk, ci: number): void {
    const start = ci << CHUNK_BITS;
    const kept = this.kept.get(ci);
    if (kept !== undefined) {
      c.bornUs.set(kept.bornUs);
      c.bodyBytes.set(kept.bodyBytes);
      c.tag.set(kept.tag);
    } else {
      this.regenerator!.regenerate(this.index, this.heads.draw(ci), CHUNK, c.bornUs, c.bodyBytes, c.tag);
    }
    for (let i = 0; i < CHUNK; i++) {
      c.originKey[i] = messageKey(this.index, start + i, this.genAt(start + i));
      c.originBornUs[i] = c.bornUs[i]!;
      c.reconsumeTimes[i] = 0;
    }
    this.heads.fillClPos(ci, c.clPos);
  }

  /** The first offset of the first chunk whose columns are held (maxOffset's chunk start if none is). */
  get liveFrom(): number {
    for (let si = 0; si < this.live.length; si++) if (this.live[si] !== null) return (this.chunkBase + si) << CHUNK_BITS;
    return (this.chunkBase + this.live.length) << CHUNK_BITS;
  }

  /** Number of chunks whose columns are held (for memory accounting in tests and benchmarks). */
  get chunksHeld(): number {
    return this.liveChunks;
  }
}
