// One consume queue of a broker, with the messages it holds, stored column-wise in typed-array chunks.
//
// Why chunks: memory must follow the backlog, not the number of messages ever produced. Chunks below
// the lowest offset anybody may still read are freed (MessageStore#reclaimBelow). Offsets are logical
// and never reused: minOffset moves up with retention, maxOffset is the next slot.

import type { MessageBatch } from "../protocol/commands.ts";

export const CHUNK_BITS = 12;
export const CHUNK = 1 << CHUNK_BITS;
const MASK = CHUNK - 1;
/** Offsets are addressed with 32-bit arithmetic; far beyond any run (2^31 messages in one queue). */
const OFFSET_LIMIT = 2 ** 31;

class Chunk {
  readonly bornUs = new Float64Array(CHUNK);
  readonly clPos = new Float64Array(CHUNK);
  readonly bodyBytes = new Int32Array(CHUNK);
  readonly tag = new Int16Array(CHUNK);
  readonly originKey = new Float64Array(CHUNK);
  readonly originBornUs = new Float64Array(CHUNK);
  readonly reconsumeTimes = new Uint8Array(CHUNK);
}

/** Message key: identifies an original message across re-deliveries and retry copies. */
export function messageKey(queueIndex: number, offset: number): number {
  return queueIndex * 4294967296 + offset;
}
export function keyQueue(key: number): number {
  return Math.floor(key / 4294967296);
}
export function keyOffset(key: number): number {
  return key % 4294967296;
}

export class QueueStore {
  /** Lowest logical offset still readable (moved by retention). */
  minOffset = 0;
  /** Next offset to be written (= number of messages ever appended). */
  maxOffset = 0;
  /** Chunk index of chunks[0]. */
  private chunkBase = 0;
  private chunks: (Chunk | null)[] = [];

  /**
   * @param index global queue index (all topics, brokers, retry and DLQ queues)
   */
  constructor(
    readonly index: number,
    readonly topic: string,
    readonly brokerName: string,
    readonly queueId: number,
  ) {}

  append(bornUs: number, clPos: number, bodyBytes: number, tag: number, originKey: number, originBornUs: number, reconsumeTimes: number): number {
    const offset = this.maxOffset;
    if (offset >= OFFSET_LIMIT) throw new RangeError(`queue ${this.topic}#${this.queueId}: more than 2^31 messages`);
    const ci = (offset >>> CHUNK_BITS) - this.chunkBase;
    let c = this.chunks[ci];
    if (c === undefined || c === null) {
      c = new Chunk();
      this.chunks[ci] = c;
    }
    const i = offset & MASK;
    c.bornUs[i] = bornUs;
    c.clPos[i] = clPos;
    c.bodyBytes[i] = bodyBytes;
    c.tag[i] = tag;
    c.originKey[i] = originKey < 0 ? messageKey(this.index, offset) : originKey;
    c.originBornUs[i] = originKey < 0 ? bornUs : originBornUs;
    c.reconsumeTimes[i] = reconsumeTimes;
    this.maxOffset = offset + 1;
    return offset;
  }

  /** First offset whose data is still physically stored. */
  get physicalMin(): number {
    return this.chunkBase << CHUNK_BITS;
  }

  private chunk(offset: number): Chunk {
    const c = this.chunks[(offset >>> CHUNK_BITS) - this.chunkBase];
    if (c === undefined || c === null || offset >= this.maxOffset) {
      throw new RangeError(`queue ${this.topic}@${this.brokerName}#${this.queueId}: offset ${offset} is not stored (stored ${this.physicalMin}..${this.maxOffset})`);
    }
    return c;
  }

  bornUs(offset: number): number {
    return this.chunk(offset).bornUs[offset & MASK]!;
  }
  clPos(offset: number): number {
    return this.chunk(offset).clPos[offset & MASK]!;
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

  /** Frees every whole chunk below `offset`. */
  freeBelow(offset: number): void {
    const target = Math.min(offset, this.maxOffset) >>> CHUNK_BITS;
    const drop = target - this.chunkBase;
    if (drop <= 0) return;
    this.chunks.splice(0, Math.min(drop, this.chunks.length));
    this.chunkBase = target;
  }

  /** Number of chunks held (for memory accounting in tests and benchmarks). */
  get chunksHeld(): number {
    let n = 0;
    for (const c of this.chunks) if (c) n++;
    return n;
  }
}
