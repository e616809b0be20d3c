// The run's books: what brokers and consumers report as it happens (the cluster's observer), kept as
// counters, histograms, message fates, queue ownership (and locks) and orderly blocks for the sampler
// and the summary. It only records: nothing here is read by the model.
//
// Fates are kept per fate subject (MessageFates): a CLUSTERING group, or each instance slot of a
// BROADCASTING group. A consumer's report names its consumer, which picks the subject; a broker's
// report names only the group, so it goes to every subject of the group (a broadcasting group sends
// nothing back, so the broker has nothing to say about it but retention and truncation).
import type { ClusterObserver } from "../model/Cluster.ts";
import type { Marker } from "../model/records.ts";
import type { Routes } from "../protocol/routes.ts";
import type { Model } from "../scenario/types.ts";
import { Histogram } from "../sim/Histogram.ts";
import { FateTotals, MessageFates, type FateCounts } from "./MessageFates.ts";
import { OrderlyBooks } from "./OrderlyBooks.ts";
import { Ownership } from "./Ownership.ts";
import { ReplayBooks } from "./ReplayBooks.ts";

export class Recorder implements ClusterObserver {
  /** Per group, its fate counters: a CLUSTERING group's own, a BROADCASTING group's summed over its
   * instance slots (so its `produced` is the messages times its instance slots). */
  readonly groups: readonly FateCounts[];
  readonly fates: MessageFates;
  readonly ownership = new Ownership();
  readonly orderly = new OrderlyBooks();
  /** Each group's duplicates by cause (rollback, reset, rebalance, retryReplay). */
  readonly replays: ReplayBooks;
  /** Per group: whether it consumes ORDERLY (the orderly books are kept only then). */
  private readonly orderlyGroup: boolean[];
  /** Messages producers stored, all topics. */
  producedTotal = 0;
  /** CONSUMER_SEND_MSG_BACK requests accepted (events, not messages). */
  sentBackTotal = 0;
  /** End-to-end latency of samples already taken; add `endToEndInterval` for the whole run, µs. */
  readonly endToEnd = new Histogram();
  /** End-to-end latency of the current sample interval (merged into endToEnd at each sample). */
  readonly endToEndInterval = new Histogram();

  constructor(
    model: Pick<Model, "groups" | "topics" | "seed" | "profile">,
    routes: Routes,
    /** Chart markers, shared with the fault plan. */
    readonly markers: Marker[],
  ) {
    this.fates = new MessageFates(model, routes);
    const subjects = this.fates.subjects;
    this.groups = model.groups.map((g) =>
      g.messageModel === "BROADCASTING" ? new FateTotals(this.fates.subjectsOf(g.index).map((s) => subjects[s]!.counters)) : subjects[g.index]!.counters,
    );
    this.orderlyGroup = model.groups.map((g) => g.consumeMode === "ORDERLY");
    this.replays = new ReplayBooks(model.groups.length, routes.queues.length);
  }

  // ---------------------------------------------------------------- brokers

  messageStored(mq: number, offset: number, tag: number): void {
    this.producedTotal++;
    this.fates.stored(mq, offset, tag);
  }
  messagesDeleted(mq: number, from: number, to: number): void {
    this.fates.deleted(mq, from, to);
  }
  messagesTruncated(mq: number, from: number, to: number, gen: number): void {
    this.fates.truncated(mq, from, to, gen);
    this.replays.truncated(mq, from);
  }
  commitLogDeleted(broker: number, files: number, reason: number, nowUs: number): void {
    const why = ["deleteWhen hour", "disk above diskMaxUsedSpaceRatio", "disk above the forced-clean ratio"][reason] ?? "";
    this.markers.push({ tUs: nowUs, kind: "retention", label: `broker ${broker}: ${files} commit-log file${files === 1 ? "" : "s"} deleted (${why})` });
  }
  sentBack(): void {
    this.sentBackTotal++;
  }
  retrying(group: number, originKey: number): void {
    for (const s of this.fates.subjectsOf(group)) this.fates.markRetrying(s, originKey);
  }
  deadLettered(group: number, originKey: number): void {
    for (const s of this.fates.subjectsOf(group)) this.fates.markDlq(s, originKey);
  }
  /** The broker discarded a sent-back message (retryQueueNums 0): lost, and counted dropped. */
  discarded(group: number, originKey: number): void {
    for (const s of this.fates.subjectsOf(group)) this.fates.markDropped(s, originKey);
  }

  offsetCommitted(group: number, mq: number, offset: number): void {
    this.replays.committed(group, mq, offset);
  }
  /** `group` and `originKey`, when the broker gives them, let the replay be followed by message (ReplayBooks). */
  retryReplayed(mq: number, offset: number, group?: number, originKey?: number): void {
    this.replays.retryReplayed(mq, offset, group, originKey);
  }

  // ---------------------------------------------------------------- consumers

  consumed(group: number, mq: number, offset: number, originKey: number, originBornUs: number, consumerAddr: number, nowUs: number): void {
    const subject = this.fates.subjectOf(group, consumerAddr);
    const duplicate = this.fates.recordConsumed(subject, originKey);
    if (duplicate) this.ownership.duplicate(group, mq, consumerAddr);
    this.replays.consumed(group, mq, offset, originKey, consumerAddr, duplicate);
    if (this.orderlyGroup[group]) this.orderly.consumed(subject, mq, offset, nowUs);
    this.endToEndInterval.record(Math.max(0, nowUs - originBornUs));
  }
  queueOpened(group: number, mq: number, consumerAddr: number, clientId: string, nowUs: number): void {
    this.ownership.open(group, mq, consumerAddr, clientId, nowUs);
  }
  queueClosed(group: number, mq: number, consumerAddr: number, nowUs: number): void {
    this.ownership.close(group, mq, consumerAddr, nowUs);
  }
  assignmentChanged(nowUs: number, label: string): void {
    this.markers.push({ tUs: nowUs, kind: "rebalance", label });
  }
  /** `consumerAddr` picks the instance of a BROADCASTING group (whose offsets are its own); −1 otherwise. */
  offsetSkipped(group: number, mq: number, offset: number, consumerAddr = -1): void {
    this.fates.markLost(this.fates.subjectOf(group, consumerAddr), mq, 0, offset);
    this.replays.skipped(group, mq, offset);
  }
  offsetReset(group: number, mq: number, offset: number, consumerAddr = -1): void {
    this.fates.markSkippedAtStart(this.fates.subjectOf(group, consumerAddr), mq, offset);
    this.replays.skipped(group, mq, offset);
  }
  startOffsetChosen(group: number, mq: number, offset: number, fromStoredOffset: boolean, consumerAddr = -1): void {
    // A stored offset is where the group (a broadcasting instance: its local file) left off: whatever
    // lies below it, it settled (or a reset skipped, counted by offsetSkipped). Without one the client
    // chose a place (§10.6): below it, what the subject has not settled it will never be given.
    if (!fromStoredOffset) this.fates.markSkippedAtStart(this.fates.subjectOf(group, consumerAddr), mq, offset);
    this.replays.started(group, mq, offset, fromStoredOffset, consumerAddr);
  }
  /** BROADCASTING: a failed message was dropped (§7.3): lost for that instance, and counted dropped. */
  consumeDropped(group: number, _mq: number, _offset: number, originKey: number, consumerAddr: number, _nowUs: number): void {
    this.fates.markDropped(this.fates.subjectOf(group, consumerAddr), originKey);
  }
  lockRefreshed(group: number, mq: number, consumerAddr: number, nowUs: number): void {
    this.ownership.lockRefreshed(group, mq, consumerAddr, nowUs);
  }
  lockLost(group: number, mq: number, consumerAddr: number, nowUs: number): void {
    this.ownership.lockLost(group, mq, consumerAddr, nowUs);
  }
  orderlySuspended(group: number, mq: number, offset: number, consumerAddr: number, nowUs: number): void {
    this.orderly.suspended(this.fates.subjectOf(group, consumerAddr), mq, offset, nowUs);
  }
  orderlyCommitted(group: number, mq: number, offset: number, consumerAddr: number, nowUs: number): void {
    this.orderly.committed(this.fates.subjectOf(group, consumerAddr), mq, offset, nowUs);
  }

  /** Successful consumptions of every subject, duplicates included. */
  get consumeOkTotal(): number {
    return this.fates.subjects.reduce((a, s) => a + s.counters.consumeOk, 0);
  }
}
