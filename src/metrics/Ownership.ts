// Who owned each queue when: one interval per ProcessQueue (creation → drop), the duplicates each
// owner consumed while it held the queue, and the time the queue had no owner at all.

export interface OwnerInterval {
  clientId: string;
  consumer: number; // consumer address (incarnation)
  fromUs: number;
  toUs: number | null;
  /** Successful consumptions of already-consumed messages by this owner during this interval. */
  duplicates: number;
}

interface QueueOwnership {
  intervals: OwnerInterval[];
  owners: number;
  orphanSinceUs: number; // −1 while owned
  orphanUs: number;
}

export class Ownership {
  private readonly byKey = new Map<number, QueueOwnership>();

  private entry(group: number, mq: number): QueueOwnership {
    const key = group * 1048576 + mq;
    let e = this.byKey.get(key);
    if (!e) {
      e = { intervals: [], owners: 0, orphanSinceUs: 0, orphanUs: 0 };
      this.byKey.set(key, e);
    }
    return e;
  }

  open(group: number, mq: number, consumer: number, clientId: string, nowUs: number): void {
    const e = this.entry(group, mq);
    if (e.owners === 0 && e.orphanSinceUs >= 0) e.orphanUs += nowUs - e.orphanSinceUs;
    e.owners++;
    e.orphanSinceUs = -1;
    e.intervals.push({ clientId, consumer, fromUs: nowUs, toUs: null, duplicates: 0 });
  }

  close(group: number, mq: number, consumer: number, nowUs: number): void {
    const e = this.entry(group, mq);
    for (let i = e.intervals.length - 1; i >= 0; i--) {
      const iv = e.intervals[i]!;
      if (iv.consumer === consumer && iv.toUs === null) {
        iv.toUs = nowUs;
        e.owners--;
        if (e.owners === 0) e.orphanSinceUs = nowUs;
        return;
      }
    }
  }

  duplicate(group: number, mq: number, consumer: number): void {
    const e = this.byKey.get(group * 1048576 + mq);
    if (!e) return;
    for (let i = e.intervals.length - 1; i >= 0; i--) {
      const iv = e.intervals[i]!;
      if (iv.consumer === consumer) {
        iv.duplicates++;
        return;
      }
    }
  }

  intervals(group: number, mq: number): readonly OwnerInterval[] {
    return this.byKey.get(group * 1048576 + mq)?.intervals ?? [];
  }

  /** Seconds without any owner up to `nowUs` (from the start of the run). */
  orphanSeconds(group: number, mq: number, nowUs: number): number {
    const e = this.byKey.get(group * 1048576 + mq);
    if (!e) return nowUs / 1e6;
    return (e.orphanUs + (e.owners === 0 && e.orphanSinceUs >= 0 ? nowUs - e.orphanSinceUs : 0)) / 1e6;
  }

  /** Owner intervals started after a queue's first owner: every move of a queue between consumers. */
  changes(): number {
    let n = 0;
    for (const e of this.byKey.values()) n += Math.max(0, e.intervals.length - 1);
    return n;
  }
}
