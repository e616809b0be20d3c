// Per-broker topic configuration: how many of a topic's queues on a broker are readable and writable
// now, and the topic's permission there — the TopicConfigManager table of each broker, which is also
// what the name server hands out as QueueData (readQueueNums, writeQueueNums, perm; broker spec §7.1).
//
// Queue numbering in Routes is static: Routes allocates for every (topic, broker) the most queues the
// run can ever have, and this table says how many of them (queueIds 0..n−1) are in use now. Plain
// arrays indexed topic × brokers so a pull or send check costs a few array reads.

/** RocketMQ's PermName bits. */
export const PermName = { PERM_INHERIT: 1, PERM_WRITE: 2, PERM_READ: 4 } as const;

/** Read and write (PERM_READ | PERM_WRITE), a new topic's default. */
export const PERM_RW = PermName.PERM_READ | PermName.PERM_WRITE;

// PermName#isReadable / #isWriteable
export function isReadable(perm: number): boolean {
  return (perm & PermName.PERM_READ) === PermName.PERM_READ;
}
export function isWriteable(perm: number): boolean {
  return (perm & PermName.PERM_WRITE) === PermName.PERM_WRITE;
}

export class TopicConfigs {
  /** Bumped on every change, so route copies can tell whether anything moved. */
  version = 0;
  private readonly read: Int32Array;
  private readonly write: Int32Array;
  private readonly perms: Int32Array;
  /** Each broker's brokerPermission (BrokerConfig), 6 unless a brokerPermission fault changed it. */
  private readonly brokerPerms: Int32Array;

  constructor(readonly topicCount: number, readonly brokerCount: number) {
    const n = topicCount * brokerCount;
    this.read = new Int32Array(n);
    this.write = new Int32Array(n);
    this.perms = new Int32Array(n).fill(PERM_RW);
    this.brokerPerms = new Int32Array(brokerCount).fill(PERM_RW);
  }

  private slot(topic: number, broker: number): number {
    return topic * this.brokerCount + broker;
  }

  readQueueNums(topic: number, broker: number): number {
    return this.read[topic * this.brokerCount + broker]!;
  }
  writeQueueNums(topic: number, broker: number): number {
    return this.write[topic * this.brokerCount + broker]!;
  }
  /** PermName bits; 6 (read and write) unless changed. */
  perm(topic: number, broker: number): number {
    return this.perms[topic * this.brokerCount + broker]!;
  }

  /**
   * The perm the name server hands out for the topic on `broker`: BrokerController#registerBrokerAll
   * (4.9.7, 5.1.4) registers every topic with the broker's permission when that is not read+write, else
   * with the topic's own.
   */
  registeredPerm(topic: number, broker: number): number {
    const b = this.brokerPerms[broker]!;
    return b === PERM_RW ? this.perms[topic * this.brokerCount + broker]! : b;
  }

  /** A broker's brokerPermission changed (it re-registers with the name server at once). */
  setBrokerPermission(broker: number, perm: number, atUs: number): void {
    if (this.brokerPerms[broker] === perm) return;
    // The state it replaces, per topic of the broker.
    for (let t = 0; t < this.topicCount; t++) this.changes.push(atUs, t, broker, this.readQueueNums(t, broker), this.registeredPerm(t, broker));
    this.brokerPerms[broker] = perm;
    this.version++;
  }

  /** `atUs`: when (for the readability history); the run's initial configs are set at 0. */
  update(topic: number, broker: number, read: number, write: number, perm: number, atUs = 0): void {
    const i = this.slot(topic, broker);
    if (this.read[i] === read && this.write[i] === write && this.perms[i] === perm) return;
    // A change at 0 replaces a state that never held.
    if (atUs > 0) this.changes.push(atUs, topic, broker, this.read[i]!, this.registeredPerm(topic, broker));
    this.read[i] = read;
    this.write[i] = write;
    this.perms[i] = perm;
    this.version++;
  }

  /**
   * What was readable before each change after the start: flat (atUs, topic, broker, readQueueNums,
   * registered perm) — rare, kept for the metrics (a queue nobody may read is not an orphan).
   */
  private readonly changes: number[] = [];

  /**
   * The spans in [0, nowUs) during which queue `queueId` of the topic on `broker` was not readable by the
   * broker's config (queueId ≥ readQueueNums or the registered perm without read), as [from, to) pairs.
   * Empty for every queue of a run without updateTopic/brokerPermission changes.
   */
  unreadableSpans(topic: number, broker: number, queueId: number, nowUs: number): number[] {
    const out: number[] = [];
    if (this.changes.length === 0) return out;
    const add = (from: number, to: number) => {
      if (to <= from) return;
      if (out.length > 0 && out[out.length - 1] === from) out[out.length - 1] = to;
      else out.push(from, to);
    };
    // Each entry holds the state in force from the previous change (or 0) until its own time.
    let t = 0;
    for (let i = 0; i < this.changes.length; i += 5) {
      if (this.changes[i + 1] !== topic || this.changes[i + 2] !== broker) continue;
      const atUs = this.changes[i]!;
      if (!(queueId < this.changes[i + 3]! && isReadable(this.changes[i + 4]!))) add(t, Math.min(atUs, nowUs));
      t = atUs;
    }
    if (!(queueId < this.readQueueNums(topic, broker) && isReadable(this.registeredPerm(topic, broker)))) add(t, nowUs);
    return out;
  }

}
