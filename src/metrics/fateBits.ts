// The fate bits of one message for one subject (see MessageFates), and what follows from them.
// (Split from FateColumn.ts, which re-exports them, so that FateChunk.ts can use them too.)

export const FATE_COUNT_MASK = 0x1f; // successful consumes, saturating at 31
export const FATE_RETRYING = 0x20; // sent back at least once: copies of it may be in the retry chain
export const FATE_LOST = 0x40; // deleted by retention or a truncation (or skipped by an offset reset) while unconsumed
export const FATE_DLQ = 0x80; // ended in %DLQ%<group>
export const FATE_FILTERED = 0x100; // the group's tag filter excludes it: never delivered
export const FATE_SKIPPED = 0x200; // below the start offset a new group chose with no stored offset (§10.6)
/** Lost because it was dropped (a broadcasting listener call failed, §7.3; or the broker discarded a
 * send-back, retryQueueNums 0): always with FATE_LOST, so `dropped` is a part of `lost` message by message. */
export const FATE_DROPPED = 0x400;
/** Bits that settle a message for the group's counters: consumed, dead-lettered, lost, skipped at start. */
export const FATE_SETTLED = FATE_COUNT_MASK | FATE_DLQ | FATE_LOST | FATE_SKIPPED;
/** Bits that resolve a message as far as the group's progress goes (only copies of it may still come). */
export const FATE_RESOLVED = FATE_SETTLED | FATE_RETRYING | FATE_FILTERED;

/**
 * A message's fate after one more successful consumption: its count plus one (saturating); the first one
 * also takes back a DLQ, loss or skip verdict (the message turned up after all).
 */
export function consumedFate(fate: number): number {
  const count = fate & FATE_COUNT_MASK;
  const kept = count === 0 ? fate & ~(FATE_LOST | FATE_DROPPED | FATE_SKIPPED) : fate;
  return (kept & ~(FATE_COUNT_MASK | FATE_DLQ)) | Math.min(FATE_COUNT_MASK, count + 1);
}

/** A message the group still awaits: delivered to it and not settled (possibly in the retry chain). */
export const isAwaiting = (fate: number) => (fate & (FATE_SETTLED | FATE_FILTERED)) === 0;

/** Messages a group still awaits, and of those the ones whose copies are in the retry chain. */
export interface AwaitingCount {
  awaiting: number;
  retrying: number;
}
