// ConsumerManager (spec §13.8): the channels of every group learned from heartbeats, the subscriptions
// they announce, and when the group must be told (NOTIFY_CONSUMER_IDS_CHANGED). Tested on its own; the
// broker's use of it (who gets notified, when the scan runs) is in Broker.test.ts.
import { describe, expect, it } from "vitest";
import type { SubscriptionData } from "../protocol/commands.ts";
import { ConsumerManager } from "./ConsumerManager.ts";

const G = 0;
const H = 1;
const TOPIC_T = 0;
const TOPIC_U = 1;
const sub = (topic: number, subVersion: number, tagSet: ReadonlySet<number> | null = null): SubscriptionData => ({ topic, tagSet, subVersion });

describe("ConsumerManager.register: which heartbeats notify the group", () => {
  it("a new channel notifies; the same channel again with the same topics does not", () => {
    const m = new ConsumerManager();
    expect(m.register(G, 101, "c1", [sub(TOPIC_T, 1)], 0)).toBe(true);
    expect(m.register(G, 101, "c1", [sub(TOPIC_T, 2)], 1000)).toBe(false);
    expect(m.register(G, 102, "c2", [sub(TOPIC_T, 2)], 2000)).toBe(true);
    expect(m.channelsOf(G)).toEqual([101, 102]);
  });

  it("a known channel announcing a topic the group did not subscribe yet notifies", () => {
    const m = new ConsumerManager();
    m.register(G, 101, "c1", [sub(TOPIC_T, 1)], 0);
    expect(m.register(G, 101, "c1", [sub(TOPIC_T, 1), sub(TOPIC_U, 1)], 1000)).toBe(true);
  });

  it("a group's subVersion only increases, and its tag set changes only with a newer subVersion", () => {
    const m = new ConsumerManager();
    const a = new Set([0]);
    const b = new Set([1]);
    m.register(G, 101, "c1", [sub(TOPIC_T, 100, a)], 0);
    m.register(G, 102, "c2", [sub(TOPIC_T, 50, b)], 0);
    expect(m.subscription(G, TOPIC_T)).toEqual({ subVersion: 100, tagSet: a });
    m.register(G, 102, "c2", [sub(TOPIC_T, 150, b)], 0);
    expect(m.subscription(G, TOPIC_T)).toEqual({ subVersion: 150, tagSet: b });
  });

  it("groups are kept apart: channels, client ids and subscriptions", () => {
    const m = new ConsumerManager();
    m.register(G, 101, "c1", [sub(TOPIC_T, 1)], 0);
    expect(m.channelsOf(H)).toEqual([]);
    expect(m.consumerIdList(H)).toBeNull();
    expect(m.subscription(H, TOPIC_T)).toBeUndefined();
  });

  it("consumerIdList lists client ids in channel-address order, a shared id once per channel", () => {
    const m = new ConsumerManager();
    m.register(G, 103, "shared", [], 0);
    m.register(G, 101, "c1", [], 0);
    m.register(G, 102, "shared", [], 0);
    expect(m.consumerIdList(G)).toEqual(["c1", "shared", "shared"]);
  });
});

describe("ConsumerManager.unregister", () => {
  it("removes the channel from the named group and returns that group; −1 if it was not registered there", () => {
    const m = new ConsumerManager();
    m.register(G, 101, "c1", [], 0);
    m.register(G, 102, "c2", [], 0);
    expect(m.unregister(101, H)).toBe(-1);
    expect(m.unregister(101, G)).toBe(G);
    expect(m.unregister(101, G)).toBe(-1);
    expect(m.channelsOf(G)).toEqual([102]);
  });

  it("group −1 (a closed connection) finds the channel in whatever group it is", () => {
    const m = new ConsumerManager();
    m.register(H, 201, "c1", [], 0);
    expect(m.unregister(201, -1)).toBe(H);
    expect(m.channelsOf(H)).toEqual([]);
  });

  it("the last channel leaving drops the group and its subscriptions", () => {
    const m = new ConsumerManager();
    m.register(G, 101, "c1", [sub(TOPIC_T, 1)], 0);
    m.unregister(101, G);
    expect(m.consumerIdList(G)).toBeNull();
    expect(m.subscription(G, TOPIC_T)).toBeUndefined();
    // The next heartbeat is a new channel and a new topic again.
    expect(m.register(G, 101, "c1", [sub(TOPIC_T, 1)], 0)).toBe(true);
  });
});

describe("ConsumerManager.scanNotActive (ClientHousekeepingService)", () => {
  it("removes channels silent for more than the limit, in address order, and keeps the rest", () => {
    const m = new ConsumerManager();
    m.register(G, 103, "c3", [], 0);
    m.register(G, 101, "c1", [], 0);
    m.register(G, 102, "c2", [], 0);
    m.register(G, 102, "c2", [], 50);
    m.register(H, 201, "d1", [], 0);
    const expired: number[] = [];
    m.scanNotActive(100, 100, (addr) => expired.push(addr));
    expect(expired).toEqual([]); // silent for exactly the limit: kept
    m.scanNotActive(101, 100, (addr) => expired.push(addr));
    expect(expired).toEqual([101, 103, 201]);
    expect(m.channelsOf(G)).toEqual([102]);
    expect(m.channelsOf(H)).toEqual([]);
  });

  it("a heartbeat refreshes the channel's last update", () => {
    const m = new ConsumerManager();
    m.register(G, 101, "c1", [], 0);
    m.register(G, 101, "c1", [], 90);
    const expired: number[] = [];
    m.scanNotActive(150, 100, (addr) => expired.push(addr));
    expect(expired).toEqual([]);
  });

  it("clear forgets every channel and subscription (a restarted broker)", () => {
    const m = new ConsumerManager();
    m.register(G, 101, "c1", [sub(TOPIC_T, 1)], 0);
    m.clear();
    expect(m.consumerIdList(G)).toBeNull();
    expect(m.subscription(G, TOPIC_T)).toBeUndefined();
  });
});
