// Pseudo-random streams derived from one root seed.
//
// Each component draws from its own stream, named by a label ("consumer/G1/c2/consumeTime") and
// seeded from hash(rootSeed, label). Streams are independent of one another's existence, so adding
// a component (or an extra draw in one) never shifts the numbers any other component sees — the
// property that keeps scenario results comparable across model changes (TigerBeetle's VOPR does the
// same). All hashing is 32-bit integer arithmetic (Math.imul), identical on every platform.

import seedrandom from "seedrandom";

/** A uniform random number generator on [0, 1). */
export type Rng = () => number;

/** The full state of an alea generator (seedrandom's): four numbers. */
export interface AleaState {
  c: number;
  s0: number;
  s1: number;
  s2: number;
}

/** A generator whose state can be saved and restored: the same draws as `get(label)`'s. */
export interface StatefulRng extends Rng {
  state(): AleaState;
}

/** A generator that continues from a saved state exactly as the original did. */
export function restoreRng(state: AleaState): StatefulRng {
  return seedrandom.alea("", { state }) as unknown as StatefulRng;
}

const TWO_POW_32 = 4294967296;
const TWO_POW_53 = 9007199254740992;

/**
 * A stable 64-bit hash of a string's UTF-16 code units, as [hi, lo] unsigned 32-bit words.
 * Two multiplicative lanes (cyrb53's construction) with a final cross-mix.
 */
export function hashString64(s: string): [hi: number, lo: number] {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < s.length; i++) {
    const ch = s.charCodeAt(i);
    h1 = Math.imul(h1 ^ ch, 0x9e3779b1);
    h2 = Math.imul(h2 ^ ch, 0x5f356495);
  }
  h1 ^= s.length;
  h1 = Math.imul(h1 ^ (h1 >>> 16), 0x85ebca6b) ^ Math.imul(h2 ^ (h2 >>> 13), 0xc2b2ae35);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 0x85ebca6b) ^ Math.imul(h1 ^ (h1 >>> 13), 0xc2b2ae35);
  return [fmix32(h2) >>> 0, fmix32(h1) >>> 0];
}

/**
 * The seed string of the stream `label` under `rootSeed`: 16 hex digits of a 64-bit hash of both.
 * A string because seedrandom hashes its seed as text; hex keeps it readable in diagnostics.
 */
export function deriveSeed(rootSeed: number, label: string): string {
  assertSeed(rootSeed);
  const [labelHi, labelLo] = hashString64(label);
  const seedHi = hiWord(rootSeed);
  const seedLo = rootSeed >>> 0;
  let h1 = fmix32(labelLo ^ Math.imul(seedLo, 0xcc9e2d51));
  let h2 = fmix32(labelHi ^ Math.imul(seedHi, 0x1b873593) ^ 0x6a09e667);
  h1 = fmix32(h1 + Math.imul(h2, 0x85ebca6b));
  h2 = fmix32(h2 + Math.imul(h1, 0xc2b2ae35) + seedLo);
  return hex8(h1) + hex8(h2);
}

/** Independent, cached random streams keyed by label, all derived from one root seed. */
export class RandomStreams {
  private readonly streams = new Map<string, Rng>();

  constructor(readonly rootSeed: number) {
    assertSeed(rootSeed);
  }

  /** The stream for `label`; the same object on every call, so draws continue where they left off. */
  get(label: string): Rng {
    let rng = this.streams.get(label);
    if (rng === undefined) {
      rng = seedrandom.alea(deriveSeed(this.rootSeed, label));
      this.streams.set(label, rng);
    }
    return rng;
  }

  /**
   * A new stream for `label` whose state can be saved (`state()`) and restored (restoreRng): the same
   * draws as get(label). Not cached: the caller owns it (a producer checkpoints its streams).
   */
  stateful(label: string): StatefulRng {
    return seedrandom.alea(deriveSeed(this.rootSeed, label), { state: true }) as unknown as StatefulRng;
  }
}

/**
 * A uniform number in [0, 1) determined by (seed, a, b, c) alone — no state. Used for attributes of
 * a message (consume time, failure) that must come out the same on every re-delivery of it.
 * Arguments are safe integers (negative ones allowed); each is split into 32-bit words and absorbed
 * murmur3-style into two lanes, which are then finalised and joined into 53 bits.
 */
export function hashUniform(seed: number, a: number, b: number, c: number): number {
  return hashUniformFrom(hashSeedLane1(seed), hashSeedLane2(seed), a, b, c);
}

/**
 * hashUniform's two lanes once `seed` is absorbed (its low word into lane 1, its high word into lane 2):
 * hashUniformFrom(hashSeedLane1(seed), hashSeedLane2(seed), a, b, c) is hashUniform(seed, a, b, c), so a
 * caller hashing many tuples under one seed absorbs it once.
 */
export function hashSeedLane1(seed: number): number {
  return mixH(0x9747b28c ^ mixK(seed >>> 0));
}

export function hashSeedLane2(seed: number): number {
  return mixH(0x3c6ef372 ^ mixK(hiWord(seed)));
}

/** hashUniform from the seed's lanes (hashSeedLane1, hashSeedLane2). */
export function hashUniformFrom(h1: number, h2: number, a: number, b: number, c: number): number {
  let k: number;
  // Each input: low word into lane 1 and high word into lane 2, then the other way round, so every
  // input bit reaches both lanes. Unrolled because this runs once per simulated message attribute.
  k = mixK(a >>> 0);
  h2 = mixH(h2 ^ k);
  k = mixK(hiWord(a));
  h1 = mixH(h1 ^ k);
  k = mixK(b >>> 0);
  h1 = mixH(h1 ^ k);
  k = mixK(hiWord(b));
  h2 = mixH(h2 ^ k);
  k = mixK(c >>> 0);
  h2 = mixH(h2 ^ k);
  k = mixK(hiWord(c));
  h1 = mixH(h1 ^ k);
  h1 = (h1 + h2) | 0;
  h2 = (h2 + h1) | 0;
  h1 = fmix32(h1);
  h2 = fmix32(h2);
  h1 = (h1 + h2) | 0;
  h2 = (h2 + h1) | 0;
  return ((h1 >>> 5) * 67108864 + (h2 >>> 6)) / TWO_POW_53;
}

/** The high 32 bits of a safe integer in two's complement (−1 for small negatives). */
function hiWord(x: number): number {
  return ((x - (x >>> 0)) / TWO_POW_32) | 0;
}

function mixK(k: number): number {
  k = Math.imul(k, 0xcc9e2d51);
  k = (k << 15) | (k >>> 17);
  return Math.imul(k, 0x1b873593);
}

function mixH(h: number): number {
  h = (h << 13) | (h >>> 19);
  return (Math.imul(h, 5) + 0xe6546b64) | 0;
}

/** murmur3's 32-bit finaliser: every input bit affects every output bit. */
export function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return h ^ (h >>> 16);
}

/** x as 8 lowercase hex digits (its low 32 bits). */
export function hex8(x: number): string {
  return (x >>> 0).toString(16).padStart(8, "0");
}

function assertSeed(seed: number): void {
  if (!Number.isSafeInteger(seed)) throw new RangeError(`root seed must be a safe integer, got ${seed}`);
}
