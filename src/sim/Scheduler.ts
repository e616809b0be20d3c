// The simulation kernel's event scheduler: a binary heap on (atUs, seq).
//
// Events are tagged data — (kind, target, a, b), all numbers — stored in parallel typed arrays and
// dispatched to one handler per kind, so the hot path allocates nothing per event. `seq` is a global
// issue counter: events due at the same microsecond run in the order they were scheduled (FIFO).
// Time is an integer count of microseconds; every time handed in is checked to be a safe integer.

/** Handles one event kind. `target`, `a`, `b` are whatever the scheduling code put there. */
export type EventHandler = (target: number, a: number, b: number) => void;

/** Names a pending event more finely than its kind (say, a delivery by its request code); diagnostics only. */
export type EventLabel = (target: number, a: number, b: number) => string;

/** Why `runUntil` returned. */
export type RunOutcome =
  | "until" // every event due at or before untilUs ran; the clock now reads untilUs
  | "idle" // nothing left to run before untilUs — same as "until" but the heap is empty
  | "eventLimit" // maxEvents events have run; the clock reads the last event's time
  | "timeLimit" // the next event lies beyond maxTimeUs
  | "budget" // eventBudget events ran in this call; events due by untilUs may remain (call again)
  | "pendingLimit" // more than PENDING_EVENTS_MAX events are pending (describePending says which)
  | "stopped"; // a handler called stop()

export interface SchedulerLimits {
  /** Hard cap on events executed over the scheduler's life (default 2^52). */
  maxEvents?: number;
  /** Hard cap on virtual time; events due after it never run (default 2^52 µs ≈ 142 years). */
  maxTimeUs?: number;
  /** Initial slot capacity; grows by doubling. */
  initialCapacity?: number;
}

const SLOT_BITS = 22;
const SLOT_LIMIT = 1 << SLOT_BITS; // slots: pending events (cancelled ones not yet dropped included)
// Slots kept free once PENDING_EVENTS_MAX is passed, so the event that passed it, and what runs while
// the run winds down (its partial report), can still schedule: a model fans out at most a few events
// per instance in one handler, far below this.
const SLOT_RESERVE = 1 << 18;
/**
 * More pending events than this stop the run: runUntil returns "pendingLimit" after the event that
 * passed it, with the model consistent, so the caller can still report. Only a handler scheduling
 * more than SLOT_RESERVE events at once could reach the hard end of the slot table, which throws.
 */
export const PENDING_EVENTS_MAX = SLOT_LIMIT - SLOT_RESERVE;
// An id is gen · 2^22 + slot; keeping gen below 2^31 keeps every id a safe integer (< 2^53).
const GEN_MASK = 0x7fffffff;
const CANCELLED = -1;
// Cancelled events are deleted lazily, when they reach the top. When they outnumber live ones (and
// there are enough to matter) the heap is rebuilt without them, so a model that keeps re-arming a
// far-future timeout cannot fill memory with dead entries.
const COMPACT_CANCELLED_MIN = 1024;

export class Scheduler {
  /** Current virtual time in µs. Read-only for model code. */
  nowUs = 0;
  /** Events executed so far (cancelled ones are not counted). */
  eventsRun = 0;
  readonly maxEvents: number;
  readonly maxTimeUs: number;

  private handlers: (EventHandler | undefined)[] = [];
  private kindNames: string[] = [];
  private kindLabels: (EventLabel | undefined)[] = [];
  private seqNext = 0;
  private stopRequested = false;
  /** Set once more than PENDING_EVENTS_MAX slots were in use; every runUntil then returns "pendingLimit". */
  private overflowed = false;
  private overflowAtUs = 0;
  /** scheduleAt takes the slow path (grow, or the pending limit) when free slots fall to this. */
  private freeLow = 0;
  // Slot storage: an event's payload, by slot.
  private cap: number;
  private kind: Int32Array;
  private target: Float64Array;
  private argA: Float64Array;
  private argB: Float64Array;
  private gen: Uint32Array;
  private freeSlots: Int32Array;
  private freeCount: number;
  // Heap of slot indices, each entry's key (atUs, seq) beside it: comparisons never go through a slot.
  private heap: Int32Array;
  private heapAtUs: Float64Array;
  private heapSeq: Float64Array;
  private size = 0;
  private live = 0;
  private cancelledInHeap = 0;

  constructor(limits: SchedulerLimits = {}) {
    this.maxEvents = limits.maxEvents ?? 2 ** 52;
    this.maxTimeUs = limits.maxTimeUs ?? 2 ** 52;
    assertTime(this.maxTimeUs, "maxTimeUs");
    if (!Number.isSafeInteger(this.maxEvents) || this.maxEvents < 0) {
      throw new RangeError(`maxEvents must be a non-negative safe integer, got ${this.maxEvents}`);
    }
    const capacity = limits.initialCapacity ?? 1024;
    if (!Number.isSafeInteger(capacity)) throw new RangeError(`initialCapacity must be an integer, got ${capacity}`);
    this.cap = Math.min(SLOT_LIMIT, Math.max(16, capacity));
    this.heapAtUs = new Float64Array(this.cap);
    this.heapSeq = new Float64Array(this.cap);
    this.kind = new Int32Array(this.cap);
    this.target = new Float64Array(this.cap);
    this.argA = new Float64Array(this.cap);
    this.argB = new Float64Array(this.cap);
    this.gen = new Uint32Array(this.cap);
    this.heap = new Int32Array(this.cap);
    this.freeSlots = new Int32Array(this.cap);
    for (let i = 0; i < this.cap; i++) this.freeSlots[i] = this.cap - 1 - i;
    this.freeCount = this.cap;
    this.freeLow = this.cap === SLOT_LIMIT ? SLOT_RESERVE : 0;
  }

  /**
   * Registers the handler of an event kind and returns the kind's number. `name`, and `label` if
   * given, are for diagnostics: an overflow names the kinds (and labels) that hold the most events.
   */
  defineKind(name: string, handler: EventHandler, label?: EventLabel): number {
    this.handlers.push(handler);
    this.kindNames.push(name);
    this.kindLabels.push(label);
    return this.handlers.length - 1;
  }

  kindName(kind: number): string {
    return this.kindNames[kind] ?? `kind#${kind}`;
  }

  /** Number of events scheduled and not yet run or cancelled. */
  get pending(): number { return this.live; }

  /** Schedules an event at absolute time `atUs` (≥ now). Returns an id for `cancel`. */
  scheduleAt(atUs: number, kind: number, target = 0, a = 0, b = 0): number {
    const slot = this.insert(atUs, kind, target, a, b);
    return this.gen[slot]! * SLOT_LIMIT + slot;
  }

  /** scheduleAt without an id (never cancelled): an id above 2^31 is a boxed number in V8, an allocation. */
  post(atUs: number, kind: number, target = 0, a = 0, b = 0): void {
    this.insert(atUs, kind, target, a, b);
  }

  /** Stores the event in a free slot and pushes it on the heap; returns the slot. */
  private insert(atUs: number, kind: number, target: number, a: number, b: number): number {
    if (!Number.isSafeInteger(atUs) || atUs < this.nowUs) {
      throw new RangeError(`scheduleAt: time ${atUs} µs must be a safe integer ≥ now (${this.nowUs} µs)`);
    }
    if (this.handlers[kind] === undefined) throw new RangeError(`scheduleAt: unknown event kind ${kind}`);
    if (this.freeCount <= this.freeLow) this.lowOnSlots();
    const slot = this.freeSlots[--this.freeCount]!;
    this.kind[slot] = kind;
    this.target[slot] = target;
    this.argA[slot] = a;
    this.argB[slot] = b;
    this.siftUp(this.size++, slot, atUs, this.seqNext++);
    this.live++;
    return slot;
  }

  /** Schedules an event `delayUs` (≥ 0) from now. */
  scheduleIn(delayUs: number, kind: number, target = 0, a = 0, b = 0): number {
    return this.scheduleAt(this.nowUs + delayUs, kind, target, a, b);
  }

  /** Cancels a pending event. Returns false if it already ran or was cancelled. */
  cancel(id: number): boolean {
    const slot = id % SLOT_LIMIT;
    const g = Math.floor(id / SLOT_LIMIT);
    if (slot >= this.cap || this.gen[slot] !== g || this.kind[slot] === CANCELLED) return false;
    // Lazy deletion: the slot stays in the heap and is skipped (and freed) when it reaches the top.
    this.kind[slot] = CANCELLED;
    this.live--;
    if (++this.cancelledInHeap >= COMPACT_CANCELLED_MIN && this.cancelledInHeap * 2 > this.size) this.compact();
    return true;
  }

  /** Makes the running `runUntil` return "stopped" after the current event. */
  stop(): void {
    this.stopRequested = true;
  }

  /** Time of the next pending event, or Infinity. */
  peekTimeUs(): number {
    this.dropCancelledTop();
    return this.size === 0 ? Infinity : this.heapAtUs[0]!;
  }

  /**
   * Runs every event due at or before `untilUs` (inclusive), in (atUs, seq) order. On "until"/"idle"
   * the clock is advanced to `untilUs`.
   */
  runUntil(untilUs: number, eventBudget = Infinity): RunOutcome {
    assertTime(untilUs, "untilUs");
    if (!(eventBudget > 0)) throw new RangeError(`eventBudget must be positive, got ${eventBudget}`);
    this.stopRequested = false;
    if (this.overflowed) return "pendingLimit";
    const handlers = this.handlers;
    // One comparison per event serves both the life-time cap and this call's budget; one, untilUs and maxTimeUs.
    const stopAt = Math.min(this.maxEvents, this.eventsRun + eventBudget);
    const lastUs = Math.min(untilUs, this.maxTimeUs);
    for (;;) {
      if (this.size === 0) return this.finishAt(untilUs, "idle");
      const slot = this.heap[0]!;
      const k = this.kind[slot]!;
      if (k === CANCELLED) {
        this.popTop();
        continue;
      }
      const t = this.heapAtUs[0]!;
      if (t > lastUs) return t > untilUs ? this.finishAt(untilUs, "until") : "timeLimit";
      if (this.eventsRun >= stopAt) return this.eventsRun >= this.maxEvents ? "eventLimit" : "budget";
      const target = this.target[slot]!;
      const a = this.argA[slot]!;
      const b = this.argB[slot]!;
      this.gen[slot] = (this.gen[slot]! + 1) & GEN_MASK; // as popTop does, the top being live
      this.freeSlots[this.freeCount++] = slot;
      const n = --this.size;
      if (n > 0) this.siftDown(0, this.heap[n]!, this.heapAtUs[n]!, this.heapSeq[n]!);
      this.live--;
      this.nowUs = t;
      this.eventsRun++;
      handlers[k]!(target, a, b);
      if (this.stopRequested) return this.overflowed ? "pendingLimit" : "stopped";
    }
  }

  /**
   * What fills the pending set, for a run stopped by "pendingLimit": "more than 3 932 160 pending
   * events at 0.012 s of virtual time: deliverToClient 3 900 000, clientTimer 30 000, …" — the kinds
   * (with their labels, when the kind has a label function) holding the most events, most first.
   */
  describePending(top = 3): string {
    const counts = new Map<string, number>();
    for (let i = 0; i < this.size; i++) {
      const slot = this.heap[i]!;
      const k = this.kind[slot]!;
      if (k === CANCELLED) continue;
      const label = this.kindLabels[k];
      const name = label === undefined ? this.kindName(k) : `${this.kindName(k)} ${label(this.target[slot]!, this.argA[slot]!, this.argB[slot]!)}`;
      counts.set(name, (counts.get(name) ?? 0) + 1);
    }
    // Ties by name, so the sentence never depends on the heap's layout.
    const rows = [...counts].sort((x, y) => y[1] - x[1] || (x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : 0));
    const shown = rows.slice(0, top).map(([name, n]) => `${name} ${groupDigits(n)}`);
    if (rows.length > top) shown.push("…");
    const atUs = this.overflowed ? this.overflowAtUs : this.nowUs;
    return `more than ${groupDigits(PENDING_EVENTS_MAX)} pending events at ${atUs / 1e6} s of virtual time: ${shown.join(", ")}`;
  }

  /** The slow path of scheduleAt: grow the slot table, or past PENDING_EVENTS_MAX ask the run to stop. */
  private lowOnSlots(): void {
    if (this.cap < SLOT_LIMIT) {
      if (this.freeCount === 0) this.grow();
      if (this.cap === SLOT_LIMIT) this.freeLow = SLOT_RESERVE;
      return;
    }
    if (this.cancelledInHeap > 0) this.compact();
    if (this.freeCount > SLOT_RESERVE) return;
    if (!this.overflowed) {
      this.overflowed = true;
      this.overflowAtUs = this.nowUs;
      this.stopRequested = true;
    }
    if (this.freeCount === 0) throw new SchedulerOverflowError(`Scheduler: ${this.describePending()}; one event scheduled more than ${groupDigits(SLOT_RESERVE)} others`);
  }

  private finishAt(untilUs: number, outcome: "until" | "idle"): RunOutcome {
    if (untilUs > this.maxTimeUs) {
      this.nowUs = Math.max(this.nowUs, this.maxTimeUs);
      return "timeLimit";
    }
    if (untilUs > this.nowUs) this.nowUs = untilUs;
    return this.size === 0 ? "idle" : outcome;
  }

  private dropCancelledTop(): void {
    while (this.size > 0 && this.kind[this.heap[0]!] === CANCELLED) this.popTop();
  }

  /** Removes the heap's top and frees its slot. */
  private popTop(): void {
    const slot = this.heap[0]!;
    if (this.kind[slot] === CANCELLED) this.cancelledInHeap--;
    this.gen[slot] = (this.gen[slot]! + 1) & GEN_MASK;
    this.freeSlots[this.freeCount++] = slot;
    const n = --this.size;
    if (n > 0) this.siftDown(0, this.heap[n]!, this.heapAtUs[n]!, this.heapSeq[n]!);
  }

  /**
   * Drops every cancelled entry and re-heapifies. Pop order is fixed by the total order on
   * (atUs, seq), not by the heap's shape, so this cannot change which event runs next.
   */
  private compact(): void {
    const heap = this.heap;
    let kept = 0;
    for (let i = 0; i < this.size; i++) {
      const slot = heap[i]!;
      if (this.kind[slot] === CANCELLED) {
        this.gen[slot] = (this.gen[slot]! + 1) & GEN_MASK;
        this.freeSlots[this.freeCount++] = slot;
      } else {
        this.heapAtUs[kept] = this.heapAtUs[i]!;
        this.heapSeq[kept] = this.heapSeq[i]!;
        heap[kept++] = slot;
      }
    }
    this.size = kept;
    this.cancelledInHeap = 0;
    for (let i = (kept >> 1) - 1; i >= 0; i--) this.siftDown(i, heap[i]!, this.heapAtUs[i]!, this.heapSeq[i]!);
  }

  // The sifts place the entry (slot, key t, s) at hole i or above it (up) or below it (down).
  private siftUp(i: number, slot: number, t: number, s: number): void {
    const heap = this.heap;
    const at = this.heapAtUs;
    const seq = this.heapSeq;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const tp = at[parent]!;
      if (tp < t || (tp === t && seq[parent]! < s)) break;
      heap[i] = heap[parent]!;
      at[i] = tp;
      seq[i] = seq[parent]!;
      i = parent;
    }
    heap[i] = slot;
    at[i] = t;
    seq[i] = s;
  }

  private siftDown(i: number, slot: number, t: number, s: number): void {
    const heap = this.heap;
    const at = this.heapAtUs;
    const seq = this.heapSeq;
    const n = this.size;
    for (;;) {
      let child = 2 * i + 1;
      if (child >= n) break;
      let tc = at[child]!;
      const right = child + 1;
      if (right < n) {
        const tr = at[right]!;
        if (tr < tc || (tr === tc && seq[right]! < seq[child]!)) {
          child = right;
          tc = tr;
        }
      }
      if (t < tc || (t === tc && s < seq[child]!)) break;
      heap[i] = heap[child]!;
      at[i] = tc;
      seq[i] = seq[child]!;
      i = child;
    }
    heap[i] = slot;
    at[i] = t;
    seq[i] = s;
  }

  private grow(): void {
    const old = this.cap;
    const cap = Math.min(old * 2, SLOT_LIMIT);
    this.heapAtUs = grown(this.heapAtUs, cap);
    this.heapSeq = grown(this.heapSeq, cap);
    this.target = grown(this.target, cap);
    this.argA = grown(this.argA, cap);
    this.argB = grown(this.argB, cap);
    this.kind = grown(this.kind, cap);
    this.gen = grown(this.gen, cap);
    this.heap = grown(this.heap, cap);
    const free = new Int32Array(cap);
    free.set(this.freeSlots.subarray(0, this.freeCount));
    for (let s = cap - 1; s >= old; s--) free[this.freeCount++] = s;
    this.freeSlots = free;
    this.cap = cap;
  }
}

/** A copy of `a` in a new array of the same type and length `cap`. */
function grown<T extends Float64Array | Int32Array | Uint32Array>(a: T, cap: number): T {
  const n = new (a.constructor as new (length: number) => T)(cap);
  n.set(a);
  return n;
}

/** The slot table is full: a handler scheduled more events than the reserve kept after PENDING_EVENTS_MAX. */
export class SchedulerOverflowError extends RangeError {
  constructor(message: string) {
    super(message);
    this.name = "SchedulerOverflowError";
  }
}

/** 3932160 → "3 932 160". */
function groupDigits(n: number): string {
  return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, " ");
}

function assertTime(us: number, name: string): void {
  if (!Number.isSafeInteger(us) || us < 0) throw new RangeError(`${name} must be a non-negative safe integer of µs, got ${us}`);
}
