// Topic routes: which queues a topic has on which broker — what the name server tells every client and
// what each broker's TopicConfigManager knows of its own part. The queue layout is static for a run and
// shared read-only by every component. Queues are numbered globally (MessageQueue order: topic,
// brokerName, queueId), and every message, offset table and trace record names a queue by that number.
//
// Per (topic, broker) the layout holds the most queues the run can ever have there: queuesPerBroker, the
// topic's readQueueNums / writeQueueNums and every updateTopic fault's. How many of them are readable and
// writable now (queueIds 0..n−1) and the topic's perm live in `topicConfigs`, which faults change (issue 19).
//
// Besides the scenario's topics, every group has %RETRY%<group> (retryQueueNums queues on every broker,
// created by heartbeats, spec §9.2, §13.8) and %DLQ%<group> (one queue on every broker).
import type { FaultModel } from "../scenario/faultTypes.ts";
import type { Model } from "../scenario/types.ts";
import { PERM_RW, TopicConfigs } from "./topicConfig.ts";

export interface QueueRoute {
  readonly index: number;
  readonly topic: string;
  readonly topicIndex: number;
  readonly brokerName: string;
  readonly brokerIndex: number;
  readonly queueId: number;
}

export interface TopicRoute {
  readonly index: number;
  readonly name: string;
  /** Global queue indexes in MessageQueue order (brokerName, queueId). */
  readonly queues: readonly number[];
  /** Brokers holding the topic, by name. */
  readonly brokers: readonly number[];
  /** Index of the scenario topic, or −1 for %RETRY% / %DLQ% topics. */
  readonly modelTopic: number;
  /** Group of a %RETRY% topic, else −1. */
  readonly retryOf: number;
  /** Group of a %DLQ% topic, else −1. */
  readonly dlqOf: number;
  /** How long the broker keeps the topic's messages, µs; Infinity for retry and DLQ topics. */
  readonly retentionUs: number;
}

export class Routes {
  readonly queues: QueueRoute[] = [];
  readonly topics: TopicRoute[] = [];
  private readonly retryTopics: number[] = [];
  private readonly dlqTopics: number[] = [];
  private readonly brokerQueues: number[][];
  /** Every broker's TopicConfigManager table (= the name server's QueueData): read/write nums and perm now. */
  readonly topicConfigs: TopicConfigs;

  constructor(model: Pick<Model, "brokers" | "topics" | "groups"> & { readonly faults?: readonly FaultModel[] }) {
    this.brokerQueues = model.brokers.map(() => []);
    const allBrokers = model.brokers.map((b) => b.index);
    const initial: [topic: number, broker: number, read: number, write: number, perm: number][] = [];
    for (const t of model.topics) {
      const read = t.config?.readQueueNums ?? t.queuesPerBroker;
      const write = t.config?.writeQueueNums ?? t.queuesPerBroker;
      const perBroker = t.brokers.map(() => Math.max(t.queuesPerBroker, read, write));
      for (const f of model.faults ?? []) {
        if (f.kind !== "updateTopic" || f.topic !== t.index) continue;
        const i = t.brokers.indexOf(f.broker);
        perBroker[i] = Math.max(perBroker[i]!, f.readQueueNums ?? 0, f.writeQueueNums ?? 0);
      }
      this.addTopic(model, t.name, t.brokers, (b) => perBroker[t.brokers.indexOf(b)]!, t.index, -1, -1, t.retentionUs);
      for (const b of t.brokers) initial.push([t.index, b, read, write, t.config?.perm ?? PERM_RW]);
    }
    for (const g of model.groups) {
      const perBroker = Math.max(1, g.subscriptionGroup?.retryQueueNums ?? model.brokers[0]!.config.retryQueueNums);
      this.retryTopics.push(this.addTopic(model, `%RETRY%${g.name}`, allBrokers, () => perBroker, -1, g.index, -1, Infinity));
      this.dlqTopics.push(this.addTopic(model, `%DLQ%${g.name}`, allBrokers, () => 1, -1, -1, g.index, Infinity));
      for (const b of allBrokers) {
        initial.push([this.retryTopics[g.index]!, b, perBroker, perBroker, PERM_RW]);
        initial.push([this.dlqTopics[g.index]!, b, 1, 1, PERM_RW]);
      }
    }
    this.topicConfigs = new TopicConfigs(this.topics.length, model.brokers.length);
    for (const [topic, broker, read, write, perm] of initial) this.topicConfigs.update(topic, broker, read, write, perm);
    this.topicConfigs.version = 0; // the configs the run starts with
  }

  private addTopic(
    model: Pick<Model, "brokers">, name: string, brokers: readonly number[], perBroker: (broker: number) => number,
    modelTopic: number, retryOf: number, dlqOf: number, retentionUs: number,
  ): number {
    const brokerName = (b: number) => model.brokers[b]!.name;
    const index = this.topics.length;
    const sorted = [...brokers].sort((a, b) => (brokerName(a) < brokerName(b) ? -1 : brokerName(a) > brokerName(b) ? 1 : 0));
    const queues: number[] = [];
    for (const b of sorted) {
      for (let q = 0, n = perBroker(b); q < n; q++) {
        const mq = this.queues.length;
        this.queues.push({ index: mq, topic: name, topicIndex: index, brokerName: brokerName(b), brokerIndex: b, queueId: q });
        this.brokerQueues[b]!.push(mq);
        queues.push(mq);
      }
    }
    this.topics.push({ index, name, queues, brokers: sorted, modelTopic, retryOf, dlqOf, retentionUs });
    return index;
  }

  /** Broker groups (by name). */
  get brokerCount(): number {
    return this.brokerQueues.length;
  }
  topicOf(mq: number): number {
    return this.queues[mq]!.topicIndex;
  }
  brokerOf(mq: number): number {
    return this.queues[mq]!.brokerIndex;
  }
  topicQueues(topic: number): readonly number[] {
    return this.topics[topic]!.queues;
  }
  topicName(topic: number): string {
    return this.topics[topic]!.name;
  }
  isRetryTopic(topic: number): boolean {
    return this.topics[topic]!.retryOf >= 0;
  }
  /** Whether the queue belongs to a scenario topic (not %RETRY% / %DLQ%). */
  isOrdinary(mq: number): boolean {
    return this.topics[this.queues[mq]!.topicIndex]!.modelTopic >= 0;
  }
  retryTopic(group: number): number {
    return this.retryTopics[group]!;
  }
  /** The queue of %RETRY%<group> on `broker` (the first, with several retry queues). */
  retryQueue(group: number, broker: number): number {
    return this.topics[this.retryTopics[group]!]!.queues.find((q) => this.queues[q]!.brokerIndex === broker)!;
  }
  dlqQueue(group: number, broker: number): number {
    return this.topics[this.dlqTopics[group]!]!.queues.find((q) => this.queues[q]!.brokerIndex === broker)!;
  }
  /** Every queue a broker hosts (all topics, retry and DLQ), ascending. */
  queuesOf(broker: number): readonly number[] {
    return this.brokerQueues[broker]!;
  }
  /** "Topic@broker#queueId", as faults and reports name a queue. */
  label(mq: number): string {
    const q = this.queues[mq]!;
    return `${q.topic}@${q.brokerName}#${q.queueId}`;
  }
}
