// LocalFileOffsetStore, spec §12.2: a BROADCASTING instance's offsets. In memory it behaves as the remote
// store (§12.1: update, freeze, remove); persisting writes them into a file of the instance's host
// (<localOffsetStoreDir>/<clientId>/<group>/offsets.json) instead of sending them to a broker. The file
// is a plain map handed in by whoever builds the instance, so it outlives the instance: a restarted
// JVM on the same host loads it back; a lost host loses it.
import { RemoteBrokerOffsetStore } from "./RemoteBrokerOffsetStore.ts";

/** The offsets.json of one instance slot: queue → offset. */
export type LocalOffsetFile = Map<number, number>;

export class LocalFileOffsetStore extends RemoteBrokerOffsetStore {
  constructor(private readonly file: LocalOffsetFile) {
    // Nothing is ever committed to a broker.
    super({ commitOffset: () => {} });
    // load(): the file's offsets come back into memory at start.
    for (const [mq, offset] of [...file.entries()].sort((a, b) => a[0] - b[0])) this.values.set(mq, offset);
  }

  /** readOffset(mq, READ_FROM_STORE): the file's value (updating memory, not increase-only), −1 if absent. */
  readFromStore(mq: number): number {
    const v = this.file.get(mq);
    if (v === undefined) return -1;
    this.updateOffset(mq, v, false);
    return v;
  }

  /** persistAll(mqs): writes the in-memory offsets of `mqs` into the file; other entries stay, in both. */
  override persistAll(mqs: ReadonlySet<number>): void {
    if (mqs.size === 0) return;
    for (const mq of [...this.values.keys()].sort((a, b) => a - b)) if (mqs.has(mq)) this.file.set(mq, this.values.get(mq)!);
  }

  /** persist(mq): writes that one entry into the file. */
  override persist(mq: number): void {
    const v = this.values.get(mq);
    if (v !== undefined) this.file.set(mq, v);
  }
}
