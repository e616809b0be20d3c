// What every retained chunk of a consume queue keeps for as long as it is retained, whether its columns
// are held or reclaimed (QueueStore): the producer draw of its first message, the born time and
// commit-log position of its first message, and — once reclaimed — the positions of its 16 pages (runs of
// 2^PAGE_BITS messages). A queue retains a chunk until retention deletes it, ≈ 13 000 chunks per queue in
// a day at 625 msg/s, so these live in typed columns (8 + 8 + 8 + 15 × 4 = 84 B a chunk) rather than in
// an object per chunk with a number[] of pages and boxed doubles (≈ 290 B).
//
// The columns come in blocks of BLOCK chunks, addressed by absolute chunk index: retention drops whole
// blocks below the oldest retained chunk (nothing is copied), and a queue never holds more than one
// block it has not filled. A block starts with room for a few chunks and doubles up to BLOCK, so a
// queue that stays small (a retry queue, a short test) costs little.
//
// Page positions are integral commit-log positions, non-decreasing along a chunk in the normal case, so
// a chunk keeps them as Uint32 offsets from its first message's position (page 0's offset is 0 and is
// not stored). A chunk where one does not fit exactly — a slow queue whose chunk spans 4 GiB of commit
// log or more, a position that went back after a crash cut the commit-log tail — keeps its 16 positions
// as doubles instead, in a map of such rare chunks.

export const CHUNK_BITS = 12;
/** The page-cache test judges a message by the first message of its block of 2^PAGE_BITS (QueueStore#pagePos). */
export const PAGE_BITS = 8;
const PAGES = 1 << (CHUNK_BITS - PAGE_BITS);
/** Stored page offsets per chunk (page 0's is 0). */
const DELTAS = PAGES - 1;
const BLOCK_BITS = 8;
const BLOCK = 1 << BLOCK_BITS;
const BLOCK_MASK = BLOCK - 1;
/** Chunks a new block has room for before it first doubles. */
const ROOM_FIRST = 8;

class Block {
  /** Producer draw of each chunk's first message, −1 if the chunk cannot be replayed (QueueStore#append). */
  readonly draw: Float64Array;
  readonly firstBornUs: Float64Array;
  readonly firstClPos: Float64Array;
  /** Pages 1..15 of each chunk, as offsets from firstClPos (meaningful once the chunk is reclaimed). */
  readonly pageDelta: Uint32Array;
  constructor(readonly room: number, from?: Block) {
    this.draw = new Float64Array(room);
    this.firstBornUs = new Float64Array(room);
    this.firstClPos = new Float64Array(room);
    this.pageDelta = new Uint32Array(room * DELTAS);
    if (from !== undefined) {
      this.draw.set(from.draw);
      this.firstBornUs.set(from.firstBornUs);
      this.firstClPos.set(from.firstClPos);
      this.pageDelta.set(from.pageDelta);
    }
  }
}

export class ChunkTable {
  /** Block index (chunk index >>> BLOCK_BITS) of blocks[0]. */
  private blockBase = 0;
  private readonly blocks: Block[] = [];
  /** Page positions of the reclaimed chunks whose offsets do not fit a Uint32 exactly, by chunk index. */
  private readonly pagesExact = new Map<number, Float64Array>();

  /**
   * Starts chunk `ci`, the one after the last started (or the first retained after a drop or a truncate).
   */
  open(ci: number, draw: number, firstBornUs: number, firstClPos: number): void {
    const bi = (ci >>> BLOCK_BITS) - this.blockBase;
    const j = ci & BLOCK_MASK;
    let b = this.blocks[bi];
    if (b === undefined) {
      if (bi !== this.blocks.length) throw new RangeError(`chunk ${ci} does not follow the last chunk started`);
      b = new Block(Math.max(ROOM_FIRST, Math.min(BLOCK, 2 * (j + 1))));
      this.blocks.push(b);
    } else if (j >= b.room) {
      b = new Block(Math.min(BLOCK, Math.max(2 * b.room, j + 1)), b);
      this.blocks[bi] = b;
    }
    b.draw[j] = draw;
    b.firstBornUs[j] = firstBornUs;
    b.firstClPos[j] = firstClPos;
  }

  private block(ci: number): Block {
    return this.blocks[(ci >>> BLOCK_BITS) - this.blockBase]!;
  }

  draw(ci: number): number {
    return this.block(ci).draw[ci & BLOCK_MASK]!;
  }
  setDraw(ci: number, draw: number): void {
    this.block(ci).draw[ci & BLOCK_MASK] = draw;
  }
  firstBornUs(ci: number): number {
    return this.block(ci).firstBornUs[ci & BLOCK_MASK]!;
  }
  firstClPos(ci: number): number {
    return this.block(ci).firstClPos[ci & BLOCK_MASK]!;
  }

  /**
   * Keeps chunk `ci`'s page positions: `clPos` row k·2^PAGE_BITS for each page k (the chunk's commit-log
   * column). As offsets from its first position when every one reads back exactly, else as doubles.
   */
  setPages(ci: number, clPos: Float64Array): void {
    const b = this.block(ci);
    const j = ci & BLOCK_MASK;
    const first = b.firstClPos[j]!;
    this.pagesExact.delete(ci);
    // Each offset is stored as u = (pos − first) >>> 0 and read back as first + u: kept only if that
    // reproduces pos exactly (Object.is: −0 too); page 0 reads back as first itself.
    let fits = Object.is(clPos[0], first);
    for (let k = 1; k < PAGES && fits; k++) {
      const pos = clPos[k << PAGE_BITS]!;
      const u = (pos - first) >>> 0;
      fits = Object.is(first + u, pos);
      b.pageDelta[j * DELTAS + k - 1] = u;
    }
    if (fits) return;
    const pages = new Float64Array(PAGES);
    for (let k = 0; k < PAGES; k++) pages[k] = clPos[k << PAGE_BITS]!;
    this.pagesExact.set(ci, pages);
  }

  /** Writes chunk `ci`'s kept page positions into every row of `clPos` (each row gets its page's). */
  fillClPos(ci: number, clPos: Float64Array): void {
    const exact = this.pagesExact.get(ci);
    const b = this.block(ci);
    const j = ci & BLOCK_MASK;
    const first = b.firstClPos[j]!;
    for (let k = 0; k < PAGES; k++) {
      const pos = exact !== undefined ? exact[k]! : k === 0 ? first : first + b.pageDelta[j * DELTAS + k - 1]!;
      clPos.fill(pos, k << PAGE_BITS, (k + 1) << PAGE_BITS);
    }
  }

  /** Forgets every chunk below `ci` (retention deleted them): whole blocks go. */
  dropBelow(ci: number): void {
    const drop = Math.min((ci >>> BLOCK_BITS) - this.blockBase, this.blocks.length);
    if (drop > 0) this.blocks.splice(0, drop);
    if (drop > 0 || this.blocks.length === 0) this.blockBase = Math.max(this.blockBase, ci >>> BLOCK_BITS);
    if (this.pagesExact.size > 0) for (const k of this.pagesExact.keys()) if (k < ci) this.pagesExact.delete(k);
  }

  /** Forgets every chunk from `ci` on (a crash cut the queue's tail); the next opened is `ci`. */
  truncate(ci: number): void {
    const blocksKept = Math.max(0, ((ci + BLOCK_MASK) >>> BLOCK_BITS) - this.blockBase);
    if (blocksKept < this.blocks.length) this.blocks.length = blocksKept;
    if (this.pagesExact.size > 0) for (const k of this.pagesExact.keys()) if (k >= ci) this.pagesExact.delete(k);
  }

  /** Chunks whose page positions are kept as doubles (for tests). */
  get pagesExactCount(): number {
    return this.pagesExact.size;
  }
}
