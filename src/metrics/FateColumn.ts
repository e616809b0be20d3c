// One group's fates on one queue: a column of 4096-message chunks (see MessageFates). A chunk whose
// messages are all resolved is compact: its most common fate, the exceptions to it, and how many of its
// messages the group still awaits (every one of them in the retry chain); reads and writes work on
// either form, so a fate stays answerable for the whole run while memory follows the backlog.
// (Split from MessageFates.ts to keep files under 400 lines; MessageFates re-exports what callers use.)
import { FATE_FILTERED, FATE_RESOLVED, FATE_RETRYING, consumedFate, isAwaiting, type AwaitingCount } from "./fateBits.ts";
import { CHUNK, CHUNK_BITS, EXCEPTIONS_MAX, FATE_VALUES, FateChunk, MASK, isException, isPlain, plainChunk, summarize } from "./FateChunk.ts";

export {
  FATE_COUNT_MASK, FATE_DLQ, FATE_DROPPED, FATE_FILTERED, FATE_LOST, FATE_RESOLVED, FATE_RETRYING, FATE_SETTLED, FATE_SKIPPED, consumedFate,
  isAwaiting, type AwaitingCount,
} from "./fateBits.ts";

/** One group's fates on one queue. */
export class FateColumn {
  /** Messages stored so far (= the queue's max offset). */
  max = 0;
  /** Messages stored below this offset arrive lost: the group's consumers may be past it (a crash lost
   * the tail they had read, and new messages refill those offsets). */
  skipBelow = -1;
  /** Compact chunks, and the awaited messages they hold. */
  compactChunks = 0;
  compactAwaiting = 0;
  /** No unresolved message lies below (advanced by firstUnresolved). */
  private resolvedUpTo = 0;
  private readonly chunks: FateChunk[] = [];
  /**
   * Fates of messages a crash took from the tail (truncate), by (offset, generation), for good: a
   * consumer may still hold one — after new messages refilled its offset too — and its consumption or
   * send-back must find its own fate, not the refill's.
   */
  private superseded: Map<number, number> | null = null;
  /** Generation breakpoints as the queue's (QueueStore#genAt): (from offset, generation) pairs. */
  private readonly gens: number[] = [];

  /** Stores the fate of the message at `offset` (≥ max; offsets skipped in between never existed). */
  append(offset: number, fate: number): void {
    if (offset < this.max) throw new RangeError(`fate of offset ${offset} appended below the column's max ${this.max}`);
    while (this.max < offset) this.put(this.max, FATE_FILTERED);
    this.put(offset, fate);
  }

  private put(offset: number, fate: number): void {
    const ci = offset >>> CHUNK_BITS;
    let c = this.chunks[ci];
    if (c === undefined) {
      c = new FateChunk(new Uint16Array(CHUNK));
      this.chunks[ci] = c;
    }
    // The chunk being appended to is full: a chunk turns compact only once all its messages are in.
    c.fates![offset & MASK] = fate;
    if ((fate & FATE_RESOLVED) === 0) c.unresolved++;
    this.max = offset + 1;
    if ((offset & MASK) === MASK && c.unresolved === 0) this.compactChunk(ci, c);
  }

  /** The generation of the message now at `offset`. */
  genAt(offset: number): number {
    const g = this.gens;
    for (let i = g.length - 2; i >= 0; i -= 2) if (g[i]! <= offset) return g[i + 1]!;
    return 0;
  }

  /** The fate of the message (offset, generation): the current one's, or a superseded one's. */
  fateOf(offset: number, gen: number): number {
    if (gen === this.genAt(offset) && offset < this.max) return this.get(offset);
    const fate = this.superseded?.get(offset * 32 + gen);
    if (fate === undefined) throw new RangeError(`no fate for offset ${offset} generation ${gen}: the column holds ${this.max} messages`);
    return fate;
  }

  /** Writes the fate of the message (offset, generation). */
  setFate(offset: number, gen: number, fate: number): void {
    if (gen === this.genAt(offset) && offset < this.max) this.set(offset, fate);
    else if (this.superseded?.has(offset * 32 + gen)) this.superseded.set(offset * 32 + gen, fate);
    else throw new RangeError(`no fate for offset ${offset} generation ${gen}: the column holds ${this.max} messages`);
  }

  get(offset: number): number {
    if (offset >= this.max) throw new RangeError(`no fate for offset ${offset}: the column holds ${this.max} messages`);
    const c = this.chunks[offset >>> CHUNK_BITS]!;
    if (c.fates !== null) return c.fates[offset & MASK]!;
    return c.exceptions === null ? c.base : (c.exceptions.get(offset & MASK) ?? c.base);
  }

  /** Writes a message's fate. A fate once resolved stays resolved (every writer adds a resolving bit). */
  set(offset: number, fate: number): void {
    if (offset >= this.max) throw new RangeError(`no fate for offset ${offset}: the column holds ${this.max} messages`);
    const ci = offset >>> CHUNK_BITS;
    let c = this.chunks[ci]!;
    const i = offset & MASK;
    if (!c.compact) {
      const f = c.fates!;
      const old = f[i]!;
      f[i] = fate;
      if ((old & FATE_RESOLVED) === 0 && (fate & FATE_RESOLVED) !== 0 && --c.unresolved === 0 && this.max >= (offset | MASK) + 1) {
        this.compactChunk(ci, c);
      }
      return;
    }
    if (isPlain(c)) {
      if (fate === c.base) return;
      c = this.own(ci, c);
    }
    const delta = (isAwaiting(fate) ? 1 : 0) - (isAwaiting(this.get(offset)) ? 1 : 0);
    c.awaiting += delta;
    this.compactAwaiting += delta;
    if (c.fates !== null) {
      this.writeDense(ci, c, c.fates, i, fate);
    } else if (fate === c.base) {
      c.exceptions?.delete(i);
      if (c.exceptions?.size === 0) this.chunks[ci] = plainChunk(c.base); // the last exception went
    } else {
      c.exceptions ??= new Map();
      c.exceptions.set(i, fate);
      if (c.exceptions.size > EXCEPTIONS_MAX) this.densify(c);
    }
  }

  /**
   * One more successful consumption of the current generation's message at `offset` (< max): writes
   * consumedFate of its fate and returns the fate it had. In a full chunk, one lookup serves both.
   */
  consume(offset: number): number {
    const c = this.chunks[offset >>> CHUNK_BITS]!;
    if (c.compact) {
      const old = this.get(offset);
      this.set(offset, consumedFate(old));
      return old;
    }
    const f = c.fates!;
    const old = f[offset & MASK]!;
    f[offset & MASK] = consumedFate(old);
    // As set does; the new fate, counting a consumption, is resolved.
    if ((old & FATE_RESOLVED) === 0 && --c.unresolved === 0 && this.max >= (offset | MASK) + 1) this.compactChunk(offset >>> CHUNK_BITS, c);
    return old;
  }

  /** The first offset whose message is not resolved (max if none). */
  firstUnresolved(): number {
    let o = this.resolvedUpTo;
    while (o < this.max) {
      const ci = o >>> CHUNK_BITS;
      const c = this.chunks[ci]!;
      if (c.compact || c.unresolved === 0) o = (ci + 1) * CHUNK;
      else if ((c.fates![o & MASK]! & FATE_RESOLVED) !== 0) o++;
      else break;
    }
    this.resolvedUpTo = Math.min(o, this.max);
    return this.resolvedUpTo;
  }

  /**
   * The first unresolved message in [from, to), or −1: whole chunks without one are skipped, so this
   * costs the unresolved part of the range, not its length.
   */
  nextUnresolved(from: number, to: number): number {
    const end = Math.min(to, this.max);
    let o = Math.max(from, this.firstUnresolved());
    while (o < end) {
      const ci = o >>> CHUNK_BITS;
      const c = this.chunks[ci]!;
      if (c.compact || c.unresolved === 0) o = (ci + 1) * CHUNK;
      else if ((c.fates![o & MASK]! & FATE_RESOLVED) !== 0) o++;
      else return o;
    }
    return -1;
  }

  /**
   * Adds the awaited messages: compact chunks' by their counters, the full chunks' walked (those hold
   * every unresolved message, and the chunk being appended to).
   */
  countAwaiting(out: AwaitingCount): void {
    out.awaiting += this.compactAwaiting;
    out.retrying += this.compactAwaiting;
    // A message of a lost tail whose copies live on in the retry chain is still awaited.
    if (this.superseded !== null) {
      for (const v of this.superseded.values()) {
        if (!isAwaiting(v)) continue;
        out.awaiting++;
        if ((v & FATE_RETRYING) !== 0) out.retrying++;
      }
    }
    for (let ci = 0; ci < this.chunks.length; ci++) {
      const c = this.chunks[ci]!;
      if (c.compact) continue;
      const f = c.fates!;
      const end = Math.min(CHUNK, this.max - ci * CHUNK);
      for (let i = 0; i < end; i++) {
        const v = f[i]!;
        if (!isAwaiting(v)) continue;
        out.awaiting++;
        if ((v & FATE_RETRYING) !== 0) out.retrying++;
      }
    }
  }

  /**
   * Moves every message from `offset` on (their fates are settled by the caller) to the superseded ones;
   * appends resume there, as generation `gen`. A compact chunk holding `offset` turns full again.
   */
  truncate(offset: number, gen: number): void {
    if (offset >= this.max) return;
    this.superseded ??= new Map();
    for (let o = offset; o < this.max; o++) this.superseded.set(o * 32 + this.genAt(o), this.get(o));
    while (this.gens.length > 0 && this.gens[this.gens.length - 2]! >= offset) this.gens.length -= 2;
    this.gens.push(offset, gen);
    const keep = Math.ceil(offset / CHUNK);
    for (let ci = keep; ci < this.chunks.length; ci++) this.dropCounters(this.chunks[ci]!);
    this.chunks.length = keep;
    const within = offset & MASK;
    if (within > 0) {
      let c = this.chunks[keep - 1]!;
      if (isPlain(c)) c = this.own(keep - 1, c);
      this.dropCounters(c);
      const f = c.fates ?? this.materialize(c);
      c.compact = false;
      c.fates = f;
      c.exceptions = null;
      c.tally = null;
      f.fill(0, within);
      c.unresolved = 0;
      for (let i = 0; i < within; i++) if ((f[i]! & FATE_RESOLVED) === 0) c.unresolved++;
    }
    this.max = offset;
    if (this.resolvedUpTo > offset) this.resolvedUpTo = offset;
  }

  /** Chunks by form, and the exceptions the sparse compact ones keep (tests and measurements). */
  stats(): { full: number; compact: number; dense: number; exceptions: number } {
    let dense = 0;
    let exceptions = 0;
    for (const c of this.chunks) {
      if (c.compact && c.fates !== null) dense++;
      exceptions += c.exceptions?.size ?? 0;
    }
    return { full: this.chunks.length - this.compactChunks, compact: this.compactChunks, dense, exceptions };
  }

  private compactChunk(ci: number, c: FateChunk): void {
    const f = c.fates!;
    const s = summarize(f);
    c.compact = true;
    c.unresolved = 0;
    c.awaiting = s.awaiting;
    this.compactChunks++;
    this.compactAwaiting += s.awaiting;
    if (s.exceptions <= EXCEPTIONS_MAX) {
      this.sparsify(ci, c, f, s.base, s.exceptions);
    } else {
      c.base = s.base;
      this.makeDense(c, f); // the full array serves as is
    }
  }

  /** Turns a chunk sparse; with no exceptions, it becomes the shared plain chunk of its base. */
  private sparsify(ci: number, c: FateChunk, f: Uint16Array, base: number, exceptions: number): void {
    if (exceptions === 0) {
      this.chunks[ci] = plainChunk(base);
      return;
    }
    c.base = base;
    c.exceptions = new Map();
    for (let i = 0; i < CHUNK; i++) if (isException(f[i]!, base)) c.exceptions.set(i, f[i]!);
    c.fates = null;
    c.tally = null;
  }

  /** A sparse chunk past EXCEPTIONS_MAX exceptions goes dense. */
  private densify(c: FateChunk): void {
    this.makeDense(c, this.materialize(c));
    c.exceptions = null;
  }

  private makeDense(c: FateChunk, f: Uint16Array): void {
    const t = new Uint16Array(FATE_VALUES);
    let filtered = 0;
    for (let i = 0; i < CHUNK; i++) {
      t[f[i]!]!++;
      if ((f[i]! & FATE_FILTERED) !== 0) filtered++;
    }
    c.fates = f;
    c.tally = t;
    c.filtered = filtered;
  }

  /**
   * A write to a dense compact chunk. Its base follows the most common written fate (a value that comes
   * to cover nearly every message overtakes the old base on the way); once the exceptions to it are
   * few the chunk turns sparse again.
   */
  private writeDense(ci: number, c: FateChunk, f: Uint16Array, i: number, fate: number): void {
    const t = c.tally!;
    t[f[i]!]!--;
    const n = ++t[fate]!;
    f[i] = fate;
    if (n > t[c.base]!) c.base = fate;
    const exceptions = isAwaiting(c.base) ? CHUNK - t[c.base]! : CHUNK - c.filtered - t[c.base]!;
    if (exceptions <= EXCEPTIONS_MAX / 2) this.sparsify(ci, c, f, c.base, exceptions);
  }

  private materialize(c: FateChunk): Uint16Array {
    const f = new Uint16Array(CHUNK).fill(c.base);
    if (c.exceptions !== null) for (const [i, v] of c.exceptions) f[i] = v;
    return f;
  }

  private dropCounters(c: FateChunk): void {
    if (!c.compact) return;
    this.compactChunks--;
    this.compactAwaiting -= c.awaiting;
    if (!isPlain(c)) c.awaiting = 0; // a dropped plain chunk is shared: left as it is
  }

  /** A plain chunk about to be written: chunk `ci` gets its own copy (the shared one stays as it is). */
  private own(ci: number, plain: FateChunk): FateChunk {
    const c = new FateChunk(null);
    c.compact = true;
    c.base = plain.base;
    c.awaiting = plain.awaiting;
    this.chunks[ci] = c;
    return c;
  }
}
