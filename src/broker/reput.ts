// DefaultMessageStore.ReputMessageService (broker spec §1.2, §9.1): one thread that loops "sleep 1 ms,
// doReput()". doReput writes a consume-queue unit for every message appended to the commit log since the
// last pass, then notifies the pulls held on its queue. So a message is not pullable — and wakes nobody —
// until the first reput pass after it was appended.
//
// The model puts the passes on a fixed grid: every multiple of REPUT_INTERVAL_US, aligned at time 0. The
// real thread drifts (each pass takes its own time; the sleep is "at least 1 ms"), so its phase is
// arbitrary; a grid aligned at 0 is the simplest phase that is deterministic, needs no random draw, and
// is the same on every broker (a per-broker random phase would add nothing a user can check). A message
// born (stored) at b is dispatched at the first pass at or after b — a message stored exactly on a pass
// is dispatched by that pass, which is how the lazy store works anyway (it holds every message born by
// now before anything reads it).
//
// What a pull at t can read is therefore everything born at or before the last pass ≤ t: the consume
// queue's max offset (getMaxOffsetInQueue = units written, broker spec §1.3) is the dispatched count, not
// the stored count. `dispatchedMax` finds it from the tail of the queue: the messages born after the last
// pass are at most the ones born within the last millisecond, so a short backward walk finds the boundary;
// a longer run (a burst) falls back to the queue's binary search.
import type { QueueStore } from "./QueueStore.ts";

/** ReputMessageService's sleep between two doReput passes (1 ms, 4.9.x and 5.x). */
export const REPUT_INTERVAL_US = 1_000;

/** Steps of the backward walk before dispatchedMax switches to the binary search. */
const WALK_STEPS_MAX = 8;

// Both by division and rounding rather than `%`: times are doubles, and a double's `%` is a slow
// floating-point remainder (~20 ns); for integers below 2^53 the rounded quotient is exact, so the
// results are those of `t − t % 1000` (truncation, as `%` truncates) and `t − r + 1000`.

/** The last reput pass at or before `nowUs` (times are integer µs ≥ 0 in the model). */
export function lastReputTickUs(nowUs: number): number {
  return Math.trunc(nowUs / REPUT_INTERVAL_US) * REPUT_INTERVAL_US;
}

/** The reput pass that dispatches a message stored at `atUs`: the first pass at or after it. */
export function reputTickAtOrAfterUs(atUs: number): number {
  if (atUs >= 0) return Math.ceil(atUs / REPUT_INTERVAL_US) * REPUT_INTERVAL_US;
  const r = atUs % REPUT_INTERVAL_US;
  return r === 0 ? atUs : atUs - r + REPUT_INTERVAL_US;
}

/** The queue's consume-queue max offset at `nowUs`: one past the last message born by the last pass. */
export function dispatchedMax(q: QueueStore, nowUs: number): number {
  const tick = lastReputTickUs(nowUs);
  const floor = q.minOffset;
  let m = q.maxOffset;
  // The common case, from the queue's own note of its last append: everything stored is dispatched.
  if (m <= floor || (q.tailBornOffset === m - 1 && q.tailBornUs <= tick)) return m;
  for (let i = 0; i < WALK_STEPS_MAX; i++) {
    if (m <= floor || q.bornUs(m - 1) <= tick) return m;
    m--;
  }
  if (m <= floor) return m;
  // A burst: the first message born after the pass (born times never decrease along a queue).
  let o = q.firstBornAtOrAfter(floor, tick);
  while (o < m && q.bornUs(o) <= tick) o++;
  return o;
}
