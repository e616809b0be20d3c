// The name server's broker table (broker spec §4.1, §4.5): for every broker group, which node answers
// as which brokerId. Brokers register and unregister (a closed channel is removed at once); clients and
// slaves read it at their own polls — a client's copy is only as fresh as its last route poll.
// Plain data, written by the model layer on a node's start, crash and role change.

/** brokerIds per group: 0 the master, 1… the slaves (at most two). */
export const MAX_BROKER_IDS = 3;

export class NameServer {
  /** group × MAX_BROKER_IDS + brokerId → node address, −1 when none is registered. */
  readonly addrs: Int32Array;
  /** Bumped by every change. */
  version = 0;

  constructor(readonly groups: number) {
    this.addrs = new Int32Array(groups * MAX_BROKER_IDS).fill(-1);
  }

  register(group: number, brokerId: number, node: number): void {
    this.unregister(node);
    this.addrs[group * MAX_BROKER_IDS + brokerId] = node;
    this.version++;
  }

  unregister(node: number): void {
    for (let i = 0; i < this.addrs.length; i++) {
      if (this.addrs[i] === node) {
        this.addrs[i] = -1;
        this.version++;
      }
    }
  }

  /** The registered master of a group (id 0), −1 if none. */
  master(group: number): number {
    return this.addrs[group * MAX_BROKER_IDS]!;
  }
}

/**
 * A client's copy of the broker addresses (MQClientInstance#brokerAddrTable), refreshed at its route
 * polls. Without replicas it is fixed: group b is node b.
 */
export class BrokerAddrTable {
  readonly addrs: Int32Array;

  constructor(readonly groups: number) {
    this.addrs = new Int32Array(groups * MAX_BROKER_IDS).fill(-1);
    for (let b = 0; b < groups; b++) this.addrs[b * MAX_BROKER_IDS] = b;
  }

  copyFrom(ns: NameServer): void {
    this.addrs.set(ns.addrs);
  }

  /**
   * findBrokerAddressInSubscribe(name, id, onlyThisBroker = false) (§4.4): `id`; if absent and id ≠ 0,
   * id + 1; if still absent, the first entry of the map (the lowest id present). −1: the group has none.
   */
  subscribe(group: number, id: number): number {
    const base = group * MAX_BROKER_IDS;
    let n = this.addrs[base + id]!;
    if (n < 0 && id !== 0 && id + 1 < MAX_BROKER_IDS) n = this.addrs[base + id + 1]!;
    if (n < 0) n = this.first(group);
    return n;
  }

  /** Offset commits and queries (§4.6): the master if present, else any member (the lowest id). */
  admin(group: number): number {
    return this.first(group);
  }

  /** findBrokerAddressInPublish / onlyThisBroker lookups of id 0: locks, send-backs; −1 without a master. */
  master(group: number): number {
    return this.addrs[group * MAX_BROKER_IDS]!;
  }

  /** The brokerId a node has in this copy, −1 if absent. */
  idOf(group: number, node: number): number {
    for (let id = 0; id < MAX_BROKER_IDS; id++) if (this.addrs[group * MAX_BROKER_IDS + id] === node) return id;
    return -1;
  }

  /** Every node in the copy, group by group in id order (heartbeats and unregistration go to all). */
  nodes(): number[] {
    const out: number[] = [];
    for (const n of this.addrs) if (n >= 0) out.push(n);
    return out;
  }

  private first(group: number): number {
    for (let id = 0; id < MAX_BROKER_IDS; id++) {
      const n = this.addrs[group * MAX_BROKER_IDS + id]!;
      if (n >= 0) return n;
    }
    return -1;
  }
}
