// The per-(group, queue) state the derivation moves record by record: open runs of each reason, owners
// and who owned the queue when, committed offsets, and the pull log that measures progress.
import type { Ownership } from "./enrich.ts";
import type { PullLog } from "./intervals.ts";

export interface Run {
  startUs: number;
  lastUs: number;
  endUs: number;
  figures: Record<string, number | string>;
}

/** One consumer slot's committed offset on the queue (its offsetUpdate records) and since when. */
export interface Committed {
  offset: number;
  sinceUs: number;
}

export class QueueState {
  readonly owners = new Map<number, number>();
  everOwned = false;
  ownerless: Run | null = null;
  readonly flow = new Map<string, Run>();
  readonly fail = new Map<number, Run>();
  readonly later = new Map<string, Run>();
  readonly illegal = new Map<number, Run>();
  readonly committed = new Map<number, Committed>();
  /** The offset each slot's next pull asks for: pqCreated's nextOffset, then each answer's nextBeginOffset. */
  readonly nextOffset = new Map<number, number>();
  /** Time of the last pullResult per slot, to tell an error's pullLater from a refused connection's. */
  readonly lastResultUs = new Map<number, number>();
  readonly pulls: PullLog = { tUs: [], msgs: [] };
  /** Who held the queue when (the pool's load is the owner's). */
  readonly ownedBy: Ownership[] = [];
  /** ProcessQueues dropped for pull expiry, per slot, until the queue is recreated. */
  readonly expired = new Map<number, Run>();
  constructor(
    readonly group: number,
    readonly mq: number,
  ) {}
}
