// A 4096-message chunk of a FateColumn, in its forms (full, sparse compact, dense compact, plain), and
// the one shared plain chunk per base fate. (Split from FateColumn.ts to keep files under 400 lines.)
import { FATE_DROPPED, FATE_FILTERED, FATE_RESOLVED, isAwaiting } from "./fateBits.ts";

export const CHUNK_BITS = 12;
export const CHUNK = 1 << CHUNK_BITS;
export const MASK = CHUNK - 1;
/** Above this many exceptions a compact chunk keeps a dense array instead (a Map entry costs tens of
 * bytes; the array 8 KiB). It turns sparse again at half as many (a replay moves most of a chunk's
 * messages from one count to the next). */
export const EXCEPTIONS_MAX = 256;
/** Fate values are below this. */
export const FATE_VALUES = (FATE_RESOLVED | FATE_DROPPED) + 1;
/** Per fate value, how many messages of a chunk have it. Zero between uses. */
const scratch = new Uint16Array(FATE_VALUES);

/**
 * 4096 messages of a column. Full: one fate per message (`fates`), and how many are unresolved.
 * Compact (every message resolved): `base` and `exceptions`, and how many messages it holds that the
 * group awaits — every one of them in the retry chain. With many exceptions a compact chunk is dense:
 * `fates` again, with a tally of its fate values to see when one of them covers nearly all (`base`).
 * With none, it is plain: the column holds the shared plain chunk of its base (plainChunk).
 */
export class FateChunk {
  compact = false;
  unresolved = 0;
  base = 0;
  exceptions: Map<number, number> | null = null;
  awaiting = 0;
  /** Dense compact chunk: messages per fate value, and how many are filtered out (never written). */
  tally: Uint16Array | null = null;
  filtered = 0;
  constructor(public fates: Uint16Array | null) {}
}

/**
 * Per fate value, the one compact chunk that every plain compact chunk of that base (one without
 * exceptions) is: its awaited count follows from the base — all 4096 messages or none, since filtered
 * ones would be exceptions to an awaited base. Nearly every retained chunk is plain, and costs its slot
 * in `chunks` instead of an object. Shared, so never written: a write to such a chunk makes it its own
 * (`own`) first. (Not frozen: a frozen object has another hidden class, and every read of a chunk would
 * then check which.) Made on first use, for the few base values a run meets.
 */
const plainChunks: (FateChunk | undefined)[] = new Array<FateChunk | undefined>(FATE_VALUES).fill(undefined);

export function plainChunk(base: number): FateChunk {
  let c = plainChunks[base];
  if (c === undefined) {
    c = new FateChunk(null);
    c.compact = true;
    c.base = base;
    c.awaiting = isAwaiting(base) ? CHUNK : 0;
    plainChunks[base] = c;
  }
  return c;
}

export const isPlain = (c: FateChunk) => plainChunks[c.base] === c;

/**
 * The most common fate among a chunk's delivered messages (filtered ones are never asked about), the
 * exceptions to it, and how many messages the group awaits. A filtered message reads as the base unless
 * the base itself is awaited: then it is kept as an exception, so that every message reads as awaited
 * exactly when it is.
 */
export function summarize(f: Uint16Array): { base: number; exceptions: number; awaiting: number } {
  let base = FATE_FILTERED;
  let best = 0;
  let awaiting = 0;
  for (let i = 0; i < CHUNK; i++) {
    const v = f[i]!;
    if (isAwaiting(v)) awaiting++;
    if ((v & FATE_FILTERED) !== 0) continue;
    const n = ++scratch[v]!;
    if (n > best) {
      best = n;
      base = v;
    }
  }
  for (let i = 0; i < CHUNK; i++) scratch[f[i]!] = 0;
  let exceptions = 0;
  for (let i = 0; i < CHUNK; i++) if (isException(f[i]!, base)) exceptions++;
  return { base, exceptions, awaiting };
}

export function isException(v: number, base: number): boolean {
  return v !== base && ((v & FATE_FILTERED) === 0 || isAwaiting(base));
}
