// ConsumerManager and ClientHousekeepingService (spec §13.8): the channels of every group, learned from
// heartbeats, and the subscriptions they carry; channels leave by UNREGISTER_CLIENT, by the connection
// closing, or silently when no heartbeat came for channelExpiredTimeout. A new channel, a new subscribed
// topic, or a channel that leaves by itself notifies the group at once (NOTIFY_CONSUMER_IDS_CHANGED).
import type { SubscriptionData } from "../protocol/commands.ts";

interface Channel {
  clientId: string;
  lastUpdateUs: number;
}

interface Subscription {
  subVersion: number;
  tagSet: ReadonlySet<number> | null;
}

export class ConsumerManager {
  /** group → channel (client address) → client id and last heartbeat. */
  private readonly channels = new Map<number, Map<number, Channel>>();
  /** [group][topic]: the subscription heartbeats announced (newest subVersion); arrays, not Maps, for
   * the lookup every pull makes. */
  private readonly byGroupTopic: (Subscription[] | undefined)[] = [];

  /**
   * registerConsumer: registers or refreshes the channel, learns the subscriptions. Returns whether
   * the group must be notified (a new channel or a newly subscribed topic).
   */
  register(group: number, from: number, clientId: string, subs: readonly SubscriptionData[], nowUs: number): boolean {
    let chans = this.channels.get(group);
    if (!chans) {
      chans = new Map();
      this.channels.set(group, chans);
    }
    const isNew = !chans.has(from);
    chans.set(from, { clientId, lastUpdateUs: nowUs });
    const table = (this.byGroupTopic[group] ??= []);
    let topicsChanged = false;
    for (const s of subs) {
      const old = table[s.topic];
      if (old === undefined) topicsChanged = true;
      if (old === undefined || s.subVersion > old.subVersion) table[s.topic] = { subVersion: s.subVersion, tagSet: s.tagSet };
    }
    return isNew || topicsChanged;
  }

  /**
   * Removes the channel at `from` (unregister or connection closed); `group` −1 looks in every group.
   * Returns the group it left, or −1 if it was not registered.
   */
  unregister(from: number, group: number): number {
    for (const [g, chans] of this.channels) {
      if (group >= 0 && g !== group) continue;
      if (!chans.delete(from)) continue;
      if (chans.size === 0) {
        this.channels.delete(g);
        this.byGroupTopic[g] = undefined;
      }
      return g;
    }
    return -1;
  }

  /** scanNotActiveChannel: removes channels silent for longer than `limitUs`, without notifying anyone. */
  scanNotActive(nowUs: number, limitUs: number, onExpired: (addr: number) => void): void {
    for (const chans of this.channels.values()) {
      for (const [addr, ch] of [...chans.entries()].sort((a, b) => a[0] - b[0])) {
        if (nowUs - ch.lastUpdateUs > limitUs) {
          chans.delete(addr);
          onExpired(addr);
        }
      }
    }
  }

  /** The group's channels, by address. */
  channelsOf(group: number): number[] {
    const chans = this.channels.get(group);
    return chans ? [...chans.keys()].sort((a, b) => a - b) : [];
  }

  /** GET_CONSUMER_LIST_BY_GROUP: the client id of every channel (a shared id appears twice); null if none. */
  consumerIdList(group: number): string[] | null {
    const chans = this.channels.get(group);
    if (!chans || chans.size === 0) return null;
    return [...chans.entries()].sort((a, b) => a[0] - b[0]).map(([, ch]) => ch.clientId);
  }

  /** The subscription of `group` to `topic` as heartbeats announced it; undefined if none. */
  subscription(group: number, topic: number): Subscription | undefined {
    const row = this.byGroupTopic[group];
    return row === undefined ? undefined : row[topic];
  }

  /** A restarted broker knows nobody until clients heartbeat again. */
  clear(): void {
    this.channels.clear();
    this.byGroupTopic.length = 0;
  }
}
