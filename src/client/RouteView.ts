// What a consumer instance knows of the broker nodes (broker spec §4.4–§4.6): its copy of the name
// server's broker table, refreshed at its route polls (pollNameServerInterval, 30 s: the first 10 ms
// after start, then every 30 s — MQClientInstance#startScheduledTask), and PullAPIWrapper's
// pullFromWhichNodeTable (the node each queue's broker last suggested). Without replicas the table
// never changes and every lookup gives the group's only node, so no poll is scheduled at all.
//
// It also keeps the topics' subscribe sets (topicRouteData2TopicSubscribeInfo, spec §10): per broker
// whose perm is readable, queueIds 0..readQueueNums−1 — copied at start (the consumer's start fetches
// its topics' routes) and at each route poll after a topic config changed. A changed set only takes
// effect at the next rebalance: updateTopicSubscribeInfo just stores it (DefaultMQPushConsumerImpl,
// 4.9.7 and 5.1.4; rebalanceImmediately is called only on start and CONSUMER_IDS_CHANGED).
import type { NodeContext } from "../net/Node.ts";
import { BrokerAddrTable, type NameServer } from "../protocol/NameServer.ts";
import type { Routes } from "../protocol/routes.ts";
import { isReadable } from "../protocol/topicConfig.ts";
import { ClientTimer } from "./timers.ts";

/** MQClientInstance's first route poll after start, µs. */
export const ROUTE_POLL_FIRST_US = 10_000;

export class RouteView {
  readonly addrs: BrokerAddrTable;
  /** pullFromWhichNodeTable: the suggested brokerId per queue (MASTER_ID 0 until a broker suggests). */
  private readonly pullFrom: Uint8Array;
  private startedUs = -1;
  private pollArmed = false;
  /** The name-server version the copy was taken at. */
  private seenVersion = 0;
  /** The topic-config version the subscribe sets were taken at (−1: before start). */
  private seenTopicVersion = -1;
  /** Per route topic: its subscribe set (global queue indexes in MessageQueue order). */
  private subscribe: (readonly number[])[] = [];

  constructor(
    private readonly ctx: NodeContext,
    private readonly routes: Routes,
    /** The name server; null without replicas (the table is fixed). */
    private readonly nameServer: NameServer | null,
    /** pollNameServerInterval, ms. */
    private readonly pollIntervalMs: number,
    /** The polls' start phase in [0, 1) of the interval (0: aligned). */
    private readonly phase = 0,
  ) {
    this.addrs = new BrokerAddrTable(routes.brokerCount);
    this.pullFrom = new Uint8Array(nameServer === null ? 0 : routes.queues.length);
    if (nameServer !== null) {
      this.addrs.copyFrom(nameServer);
      this.seenVersion = nameServer.version;
    }
  }

  /** The consumer started: its polls are due at start + 10 ms + k × 30 s. */
  start(): void {
    this.startedUs = this.ctx.nowUs;
    this.copyTopicConfigs();
    if (this.nameServer !== null && this.nameServer.version !== this.seenVersion) this.nameServerChanged();
  }

  /** The name server changed: the copy catches up at the next poll (only then is a timer needed). */
  nameServerChanged(): void {
    if (this.nameServer !== null) this.armPoll();
  }

  /** A broker's topic config changed (updateTopic): the subscribe sets follow at the next poll. */
  topicConfigChanged(): void {
    this.armPoll();
  }

  private armPoll(): void {
    if (this.startedUs < 0 || this.pollArmed) return;
    const first = this.startedUs + ROUTE_POLL_FIRST_US + Math.round(this.phase * this.pollIntervalMs * 1000);
    const period = this.pollIntervalMs * 1000;
    const now = this.ctx.nowUs;
    const k = now <= first ? 0 : Math.ceil((now - first) / period);
    this.pollArmed = true;
    this.ctx.timerAt(first + k * period, ClientTimer.ROUTE_POLL);
  }

  /** updateTopicRouteInfoFromNameServer: take the name server's table as it is now. */
  onPoll(): void {
    this.pollArmed = false;
    if (this.routes.topicConfigs.version !== this.seenTopicVersion) this.copyTopicConfigs();
    if (this.nameServer === null) return;
    this.addrs.copyFrom(this.nameServer);
    this.seenVersion = this.nameServer.version;
  }

  /**
   * The topic's subscribe set in this copy — mqAll of rebalanceByTopic. While every broker of the topic
   * reads all its queues, this is the route's own list.
   */
  subscribeQueues(topic: number): readonly number[] {
    return this.subscribe[topic] ?? this.routes.topicQueues(topic);
  }

  /** topicRouteData2TopicSubscribeInfo for every topic (MQClientInstance, 4.9.7 and 5.1.4). */
  private copyTopicConfigs(): void {
    const routes = this.routes;
    const tc = routes.topicConfigs;
    this.seenTopicVersion = tc.version;
    this.subscribe = routes.topics.map((t) => {
      const all = t.queues;
      const readable = all.filter((mq) => {
        const q = routes.queues[mq]!;
        return isReadable(tc.registeredPerm(t.index, q.brokerIndex)) && q.queueId < tc.readQueueNums(t.index, q.brokerIndex);
      });
      return readable.length === all.length ? all : readable;
    });
  }

  /** The node a pull of `mq` goes to (findBrokerAddressInSubscribe with recalculatePullFromWhichNode). */
  pullNode(mq: number): number {
    const group = this.routes.brokerOf(mq);
    if (this.nameServer === null) return group;
    return this.addrs.subscribe(group, this.pullFrom[mq]!);
  }

  /** Whether `node` is a slave in this copy (the pull's COMMIT_OFFSET bit is cleared for it, §4.6). */
  isSlave(mq: number, node: number): boolean {
    return this.nameServer !== null && this.addrs.idOf(this.routes.brokerOf(mq), node) > 0;
  }

  /** updatePullFromWhichNode: every pull answer carries the broker's suggestion. */
  suggested(mq: number, brokerId: number): void {
    if (this.nameServer !== null) this.pullFrom[mq] = brokerId;
  }

  // Without a name server the table is the fixed one (group b is node b, id 0), so these need no check.

  /** Offset commits and queries (§4.6): the master, else a slave; −1 if the group has no node. */
  adminNode(mq: number): number {
    return this.addrs.admin(this.routes.brokerOf(mq));
  }

  /** Locks and send-backs need the master (§4.5); −1 when the copy has none. */
  masterNode(mq: number): number {
    return this.addrs.master(this.routes.brokerOf(mq));
  }

  /** A broker group's master node, −1 if the copy has none. */
  groupMaster(group: number): number {
    return this.addrs.master(group);
  }

  /** A broker group's node for a group-level request (GET_CONSUMER_LIST_BY_GROUP): master, else a slave. */
  groupNode(group: number): number {
    return this.addrs.admin(group);
  }

  /** Every node (heartbeats go to all, slaves included, §4.3). */
  allNodes(): number[] {
    return this.addrs.nodes();
  }
}
