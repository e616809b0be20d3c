// The message key: a message's identity across re-deliveries and retry copies (QueueStore, MessageFates).

/**
 * A message's identity: its queue, its offset, and the generation of that offset — 0, or 1 to 31 once a
 * lost tail gave the offset out again (truncateTo), so a message a consumer still holds is never taken
 * for the one that refilled its offset (RocketMQ tells them apart by msgId).
 */
export function messageKey(queueIndex: number, offset: number, gen = 0): number {
  return gen * KEY_GEN_UNIT + queueIndex * 4294967296 + offset;
}
// keyQueue and keyOffset avoid `%`, a slow floating-point remainder on keys beyond 2^31 (the fates read
// them per message): division by a power of two, floor and the product are exact on safe integers.
export function keyQueue(key: number): number {
  const high = Math.floor(key / 4294967296);
  return high >= 0 ? high & 65535 : high % 65536;
}
export function keyOffset(key: number): number {
  return key - Math.trunc(key / 4294967296) * 4294967296;
}
export function keyGen(key: number): number {
  return Math.floor(key / KEY_GEN_UNIT);
}
/** 2^48: queues below 65 536, generations below 32, so every key is a safe integer. */
const KEY_GEN_UNIT = 281474976710656;
/** Generations cycle through 1…GEN_MAX (a queue cut more often reuses them: a confusion, not a crash). */
export const GEN_MAX = 31;
