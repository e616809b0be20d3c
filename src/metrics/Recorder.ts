// The run's books: what brokers and consumers report as it happens (the cluster's observer), kept as
// counters, histograms, message fates and queue ownership for the sampler and the summary. It only
// records: nothing here is read by the model.
import type { ClusterObserver } from "../model/Cluster.ts";
import type { Marker } from "../model/records.ts";
import type { Routes } from "../protocol/routes.ts";
import type { Model } from "../scenario/types.ts";
import { Histogram } from "../sim/Histogram.ts";
import { GroupFates, MessageFates } from "./MessageFates.ts";
import { Ownership } from "./Ownership.ts";

export class Recorder implements ClusterObserver {
  readonly groups: GroupFates[];
  readonly fates: MessageFates;
  readonly ownership = new Ownership();
  /** Messages producers stored, all topics. */
  producedTotal = 0;
  /** CONSUMER_SEND_MSG_BACK requests accepted (events, not messages). */
  sentBackTotal = 0;
  /** End-to-end latency of samples already taken; add `endToEndInterval` for the whole run, µs. */
  readonly endToEnd = new Histogram();
  /** End-to-end latency of the current sample interval (merged into endToEnd at each sample). */
  readonly endToEndInterval = new Histogram();

  constructor(
    model: Pick<Model, "groups">,
    routes: Routes,
    /** Chart markers, shared with the fault plan. */
    readonly markers: Marker[],
  ) {
    this.groups = model.groups.map(() => new GroupFates());
    this.fates = new MessageFates(model, routes, this.groups);
  }

  // ---------------------------------------------------------------- brokers

  messageStored(mq: number, offset: number, tag: number): void {
    this.producedTotal++;
    this.fates.stored(mq, offset, tag);
  }
  messagesDeleted(mq: number, from: number, to: number): void {
    this.fates.deleted(mq, from, to);
  }
  messagesTruncated(mq: number, from: number, to: number): void {
    this.fates.truncated(mq, from, to);
  }
  commitLogDeleted(broker: number, files: number, reason: number, nowUs: number): void {
    const why = ["deleteWhen hour", "disk above diskMaxUsedSpaceRatio", "disk above the forced-clean ratio"][reason] ?? "";
    this.markers.push({ tUs: nowUs, kind: "retention", label: `broker ${broker}: ${files} commit-log file${files === 1 ? "" : "s"} deleted (${why})` });
  }
  sentBack(): void {
    this.sentBackTotal++;
  }
  retrying(group: number, originKey: number): void {
    this.fates.markRetrying(group, originKey);
  }
  deadLettered(group: number, originKey: number): void {
    this.fates.markDlq(group, originKey);
  }
  discarded(group: number, originKey: number): void {
    this.fates.markDropped(group, originKey);
  }

  // ---------------------------------------------------------------- consumers

  consumed(group: number, mq: number, _offset: number, originKey: number, originBornUs: number, consumerAddr: number, nowUs: number): void {
    if (this.fates.recordConsumed(group, originKey)) this.ownership.duplicate(group, mq, consumerAddr);
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
  offsetSkipped(group: number, mq: number, offset: number): void {
    this.fates.markLost(group, mq, 0, offset);
  }
  startOffsetChosen(group: number, mq: number, offset: number, fromStoredOffset: boolean): void {
    // A stored offset is where the group left off: whatever lies below it, it settled (or a reset
    // skipped, counted by offsetSkipped). Without one the client chose a place (§10.6): below it,
    // what the group has not settled it will never be given.
    if (!fromStoredOffset) this.fates.markSkippedAtStart(group, mq, offset);
  }

  // Orderly and broadcasting books: filled in by the metrics work of issue 12 (placeholders).
  consumeDropped(_group: number, _mq: number, _offset: number, _originKey: number, _consumerAddr: number, _nowUs: number): void {}
  lockRefreshed(_group: number, _mq: number, _consumerAddr: number, _nowUs: number): void {}
  lockLost(_group: number, _mq: number, _consumerAddr: number, _nowUs: number): void {}
  orderlySuspended(_group: number, _mq: number, _offset: number, _consumerAddr: number, _nowUs: number): void {}
  orderlyCommitted(_group: number, _mq: number, _offset: number, _consumerAddr: number, _nowUs: number): void {}

  /** Successful consumptions of every group, duplicates included. */
  get consumeOkTotal(): number {
    return this.groups.reduce((a, f) => a + f.consumeOk, 0);
  }
}
