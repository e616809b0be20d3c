// PullMessageService (§1), DefaultMQPushConsumerImpl#pullMessage's checks (§2, §2.2) and PullCallback
// (§4.3, §4.4) of one consumer instance: every PullRequest of the instance goes round this loop.
import type { NodeContext } from "../net/Node.ts";
import type { Trace } from "../sim/Trace.ts";
import { PullSysFlag, ResponseCode } from "../protocol/codes.ts";
import { PullMessageRequest, QueryConsumerOffsetRequest, type PullMessageResponse, type QueryConsumerOffsetResponse } from "../protocol/commands.ts";
import { Pool } from "../protocol/Pool.ts";
import type { Routes } from "../protocol/routes.ts";
import { CLIENT_CONSTANTS } from "../scenario/defaults.ts";
import { computePullFromWhere, storedOffsetOf } from "./computePullFromWhere.ts";
import { LocalFileOffsetStore } from "./LocalFileOffsetStore.ts";
import type { ClientObserver, ClientStats } from "./ClientObserver.ts";
import type { PullRequest } from "./PullRequest.ts";
import type { PushConsumer } from "./PushConsumer.ts";
import { ClientTimer } from "./timers.ts";
import { PULL_NOT_SENT, PULL_TIMEOUT } from "./pullCodes.ts";
import { FLOW_KIND, LATER_REASON, type ClientTrace } from "./trace.ts";
import { processPullResult, PullResultBooks } from "./processPullResult.ts";

export class PullMessageService {
  /** The context's trace, kept at hand: it is written on every step. */
  private readonly trace: Trace;
  private readonly requests = new Pool(() => new PullMessageRequest());
  /** What this instance's pulls carried and its tag re-check dropped, per queue (processPullResult.ts). */
  readonly books: PullResultBooks;

  constructor(
    private readonly c: PushConsumer,
    private readonly ctx: NodeContext,
    private readonly T: ClientTrace,
    private readonly routes: Routes,
    private readonly stats: ClientStats,
    private readonly observer: ClientObserver,
  ) {
    this.trace = ctx.trace;
    this.books = new PullResultBooks(routes.queues.length);
  }

  /**
   * The PullMessageService thread takes the request at once: pullMessage is cheap and non-blocking
   * (§1), so it runs inline at the same virtual instant instead of through a zero-delay event.
   */
  executePullRequestImmediately(pr: PullRequest): void {
    this.pullMessage(pr);
  }

  executePullRequestLater(pr: PullRequest, delayMs: number, reason: number): void {
    this.trace.emit(this.T.pullLater, this.ctx.nowUs, pr.mq, this.c.index, delayMs, reason);
    this.ctx.timer(delayMs * 1000, ClientTimer.PULL_DISPATCH, pr.id);
  }

  // ---------------------------------------------------------------- pullMessage (§2)

  pullMessage(pr: PullRequest): void {
    const c = this.c;
    const pq = pr.pq;
    const cfg = c.config;
    if (pq.dropped) return this.end(pr); // step 1: the request dies
    const now = this.ctx.nowUs;
    pq.lastPullTimestampUs = now; // step 2
    const exc = cfg.pullTimeDelayMillsWhenException;
    if (c.state !== "RUNNING") return this.executePullRequestLater(pr, exc, LATER_REASON.notRunning);
    if (c.paused) {
      this.stats.flowControl[FLOW_KIND.paused]! += 1;
      return this.executePullRequestLater(pr, CLIENT_CONSTANTS.PULL_TIME_DELAY_MILLS_WHEN_SUSPEND, LATER_REASON.paused);
    }
    const cachedCount = pq.msgCount;
    const cachedMiB = pq.cachedMiB;
    const fcDelay = CLIENT_CONSTANTS.PULL_TIME_DELAY_MILLS_WHEN_CACHE_FLOW_CONTROL;
    if (cachedCount > cfg.pullThresholdForQueue) {
      c.queueFlowControlTimes++;
      this.stats.flowControl[FLOW_KIND.count]! += 1;
      this.trace.emit(this.T.flowControl, now, pr.mq, c.index, FLOW_KIND.count, cachedCount);
      return this.executePullRequestLater(pr, fcDelay, LATER_REASON.flowControl);
    }
    if (cachedMiB > cfg.pullThresholdSizeForQueue) {
      c.queueFlowControlTimes++;
      this.stats.flowControl[FLOW_KIND.size]! += 1;
      this.trace.emit(this.T.flowControl, now, pr.mq, c.index, FLOW_KIND.size, cachedMiB);
      return this.executePullRequestLater(pr, fcDelay, LATER_REASON.flowControl);
    }
    if (!c.orderly) {
      // Step 8, concurrent consumption only: span flow control.
      const span = pq.getMaxSpan();
      if (span > cfg.consumeConcurrentlyMaxSpan) {
        c.queueMaxSpanFlowControlTimes++;
        this.stats.flowControl[FLOW_KIND.span]! += 1;
        this.trace.emit(this.T.flowControl, now, pr.mq, c.index, FLOW_KIND.span, span);
        return this.executePullRequestLater(pr, fcDelay, LATER_REASON.flowControl);
      }
    } else {
      // Step 9, orderly: not locked at the broker → 1 s later; the first pull since the queue was added
      // reads the start offset again from the offset store (§10.6) and starts there.
      if (!pq.locked) return this.executePullRequestLater(pr, exc, LATER_REASON.notLocked);
      if (!pr.previouslyLocked) return this.fixFirstPullOffset(pr);
    }
    const topic = pr.topic;
    if (!c.isSubscribed(topic)) return this.executePullRequestLater(pr, exc, LATER_REASON.noSubscription);
    this.pullKernelImpl(pr, topic);
  }

  /**
   * The orderly first pull's computePullFromWhereWithException (§2 step 9): READ_FROM_STORE is a broker
   * query in CLUSTERING (answered in onFirstPullOffset), the local file in BROADCASTING.
   */
  private fixFirstPullOffset(pr: PullRequest): void {
    const c = this.c;
    if (c.offsetStore instanceof LocalFileOffsetStore) {
      // The file never fails to read; without an entry only LAST and TIMESTAMP need the broker.
      const stored = c.offsetStore.readFromStore(pr.mq);
      if (stored >= 0) return this.firstPullAt(pr, stored, true);
      if (c.groupModel.consumeFromWhere === "CONSUME_FROM_FIRST_OFFSET") return this.firstPullAt(pr, 0, false);
    }
    // The broker query (for a file without the entry: the max offset or the timestamp's). A broker
    // that refuses the connection fails it at once.
    const broker = c.route.adminNode(pr.mq);
    if (broker < 0 || !this.ctx.canConnect(broker)) return this.onFirstPullOffset(pr, null);
    const tsUs = this.ctx.nowUs - c.groupModel.consumeTimestampBeforeUs;
    this.ctx.request(broker, new QueryConsumerOffsetRequest(c.group, pr.mq, tsUs), 5_000_000, -1 - pr.id);
  }

  /** The answer (null: time-out or refused) of the orderly first pull's offset query. */
  onFirstPullOffset(pr: PullRequest, resp: QueryConsumerOffsetResponse | null): void {
    const c = this.c;
    if (pr.pq.dropped) return this.end(pr);
    const exc = c.config.pullTimeDelayMillsWhenException;
    // BROADCASTING asked only for the max / timestamp offset: its failure throws in both profiles.
    if (resp === null && !c.clustering) return this.executePullRequestLater(pr, exc, LATER_REASON.exception);
    const stored = resp !== null && !c.clustering ? -1 : storedOffsetOf(c.profile, resp?.code ?? null, resp?.offset ?? -1);
    const offset = computePullFromWhere(c.groupModel.consumeFromWhere, this.routes.isRetryTopic(this.routes.topicOf(pr.mq)), {
      stored, maxOffset: resp?.maxOffset ?? 0, searchOffset: resp?.searchOffset ?? 0,
    });
    // 5.x: a failed read or a negative result → try again in 1 s. 4.9 swallows the failure and pulls
    // at −1: the broker answers OFFSET_MOVED to its min offset (broker spec §4.6, issues #1825, #2708).
    if (offset < 0 && c.profile === "5.x") return this.executePullRequestLater(pr, exc, LATER_REASON.exception);
    this.firstPullAt(pr, offset, stored >= 0);
  }

  /** The first pull starts at `offset`; the books learn where (it may differ from the rebalance's choice). */
  private firstPullAt(pr: PullRequest, offset: number, fromStoredOffset: boolean): void {
    const c = this.c;
    if (offset >= 0 && offset !== pr.nextOffset) this.observer.startOffsetChosen(c.group, pr.mq, offset, fromStoredOffset, c.addr);
    pr.previouslyLocked = true;
    pr.nextOffset = offset;
    // The rest of pullMessage from step 10, now rather than after another turn of the checks.
    const topic = this.routes.topicOf(pr.mq);
    if (!this.c.isSubscribed(topic)) return this.executePullRequestLater(pr, this.c.config.pullTimeDelayMillsWhenException, LATER_REASON.noSubscription);
    this.pullKernelImpl(pr, topic);
  }

  /** PullAPIWrapper#pullKernelImpl (§2.2): build the header and send the async RPC. */
  private pullKernelImpl(pr: PullRequest, topic: number): void {
    const c = this.c;
    const now = this.ctx.nowUs;
    // The node recalculatePullFromWhichNode picks (broker spec §4.4); none in the route: "The broker[…]
    // not exist" is thrown, as a refused connection is (§2 step 11).
    const broker = c.route.pullNode(pr.mq);
    if (broker < 0 || !this.ctx.canConnect(broker)) {
      // Connection refused: pullKernelImpl throws synchronously (§2 step 11).
      this.stats.pulls.exception++;
      this.stats.pullCodes.add(c.group, PULL_NOT_SENT);
      return this.executePullRequestLater(pr, c.config.pullTimeDelayMillsWhenException, LATER_REASON.exception);
    }
    // commitOffsetEnable only in CLUSTERING, and never towards a slave (the bit is cleared, §4.6).
    const commit = c.clustering && !c.route.isSlave(pr.mq, broker) ? c.offsetStore.readOffset(pr.mq) : -1;
    const req = this.requests.take();
    req.consumerGroup = c.group;
    req.mq = pr.mq;
    req.queueOffset = pr.nextOffset;
    req.maxMsgNums = c.config.pullBatchSize;
    // An in-memory offset of 0 is not piggy-backed (the COMMIT_OFFSET bit needs a value > 0).
    req.commitOffset = commit > 0 ? commit : 0;
    req.sysFlag = PullSysFlag.FLAG_SUSPEND | (commit > 0 ? PullSysFlag.FLAG_COMMIT_OFFSET : 0);
    req.subVersion = c.subVersionOf(topic);
    req.suspendTimeoutMillis = CLIENT_CONSTANTS.BROKER_SUSPEND_MAX_TIME_MILLIS;
    req.subscription = null;
    if (c.config.postSubscriptionWhenPull) {
      req.sysFlag |= PullSysFlag.FLAG_SUBSCRIPTION;
      req.subscription = c.tagSetOf(topic);
    }
    pr.reqOffset = pr.nextOffset;
    pr.reqSentUs = now;
    pr.inFlight = true;
    this.trace.emit(this.T.pullSent, now, pr.mq, c.index, pr.reqOffset, commit > 0 ? commit : -1);
    this.ctx.request(broker, req, CLIENT_CONSTANTS.CONSUMER_TIMEOUT_MILLIS_WHEN_SUSPEND * 1000, pr.id);
  }

  // ---------------------------------------------------------------- PullCallback (§4)

  /** The answer to a pull request's PULL_MESSAGE. */
  onResponse(pr: PullRequest, resp: PullMessageResponse): void {
    const code = resp.code;
    pr.inFlight = false;
    const answered = code === ResponseCode.SUCCESS || code === ResponseCode.PULL_NOT_FOUND || code === ResponseCode.PULL_RETRY_IMMEDIATELY || code === ResponseCode.PULL_OFFSET_MOVED;
    this.trace.emit(this.T.pullResult, this.ctx.nowUs, pr.mq, this.c.index, code, answered ? resp.nextBeginOffset : -1);
    // processPullResult → updatePullFromWhichNode (broker spec §4.4).
    if (answered) this.c.route.suggested(pr.mq, resp.suggestWhichBrokerId);
    const pulls = this.stats.pulls;
    this.stats.pullCodes.add(this.c.group, code);
    switch (code) {
      case ResponseCode.SUCCESS:
        pulls.found++;
        return this.onFound(pr, resp);
      case ResponseCode.PULL_NOT_FOUND:
        pulls.noNewMsg++;
        return this.onNoMessage(pr, resp.nextBeginOffset);
      case ResponseCode.PULL_RETRY_IMMEDIATELY:
        pulls.noMatchedMsg++;
        return this.onNoMessage(pr, resp.nextBeginOffset);
      case ResponseCode.PULL_OFFSET_MOVED:
        pulls.offsetIllegal++;
        return this.onOffsetIllegal(pr, resp.nextBeginOffset);
      default:
        // MQBrokerException → onException (§4.4).
        pulls.exception++;
        // FLOW_CONTROL has its own 20 ms from 4.9.5 (5.1.0); earlier clients wait the exception delay (§4.4).
        if (code === ResponseCode.FLOW_CONTROL && this.c.profile !== "4.7") {
          return this.executePullRequestLater(pr, CLIENT_CONSTANTS.PULL_TIME_DELAY_MILLS_WHEN_BROKER_FLOW_CONTROL, LATER_REASON.brokerFlowControl);
        }
        return this.executePullRequestLater(pr, this.c.config.pullTimeDelayMillsWhenException, LATER_REASON.exception);
    }
  }

  /** The request or its answer was lost, or the broker died with it: the RPC timed out (§4.4). */
  onTimeout(pr: PullRequest): void {
    pr.inFlight = false;
    this.stats.pulls.exception++;
    this.stats.pullCodes.add(this.c.group, PULL_TIMEOUT);
    this.trace.emit(this.T.pullResult, this.ctx.nowUs, pr.mq, this.c.index, -1, -1);
    this.executePullRequestLater(pr, this.c.config.pullTimeDelayMillsWhenException, LATER_REASON.exception);
  }

  private onFound(pr: PullRequest, resp: PullMessageResponse): void {
    const c = this.c;
    pr.nextOffset = resp.nextBeginOffset;
    const msgs = resp.msgs;
    processPullResult(msgs, pr.recheckTags, pr.mq, this.books); // §4.2
    if (msgs.count === 0) return this.executePullRequestImmediately(pr);
    // No dropped check here (§4.3): a late response still fills a dead ProcessQueue.
    const pq = pr.pq;
    const dispatch = pq.putMessage(msgs, resp.maxOffset);
    if (pq.msgCount > this.stats.pqCountMax) this.stats.pqCountMax = pq.msgCount;
    if (pq.msgSize > this.stats.pqBytesMax) this.stats.pqBytesMax = pq.msgSize;
    c.consumeService.submitConsumeRequest(msgs, pq, pr.mq, dispatch);
    if (c.config.pullInterval > 0) this.executePullRequestLater(pr, c.config.pullInterval, LATER_REASON.pullInterval);
    else this.executePullRequestImmediately(pr);
  }

  /** NO_NEW_MSG and NO_MATCHED_MSG: move on, correctTagsOffset, pull again at once. */
  private onNoMessage(pr: PullRequest, nextBeginOffset: number): void {
    pr.nextOffset = nextBeginOffset;
    if (pr.pq.msgCount === 0) this.c.updateOffset(pr.mq, pr.nextOffset, true);
    this.executePullRequestImmediately(pr);
  }

  /** OFFSET_ILLEGAL (§4.3): drop the ProcessQueue; fix the offset now (5.2+) or after 10 s (4.9). */
  private onOffsetIllegal(pr: PullRequest, nextBeginOffset: number): void {
    pr.nextOffset = nextBeginOffset;
    pr.pq.dropped = true;
    const delayMs = this.c.profile === "5.x" ? 0 : CLIENT_CONSTANTS.OFFSET_ILLEGAL_FIX_DELAY_49;
    this.ctx.timer(delayMs * 1000, ClientTimer.OFFSET_ILLEGAL_FIX, pr.id);
  }

  onOffsetIllegalFix(pr: PullRequest): void {
    const c = this.c;
    const fivex = c.profile === "5.x";
    this.observer.offsetSkipped(c.group, pr.mq, pr.nextOffset, c.addr);
    if (fivex) c.offsetStore.updateAndFreezeOffset(pr.mq, pr.nextOffset);
    else c.offsetStore.updateOffset(pr.mq, pr.nextOffset, false);
    this.trace.emit(this.T.offsetUpdate, this.ctx.nowUs, pr.mq, c.index, pr.nextOffset, 0);
    c.offsetStore.persist(pr.mq);
    c.rebalance.removeProcessQueue(pr.mq, pr.pq);
    pr.pq.release(); // this pull request is not re-enqueued: its loop ends here
    if (fivex) c.rebalance.wakeup();
  }

  /** The answer or time-out of a pull reached an incarnation that is no longer alive: the pull ends. */
  abandon(pr: PullRequest): void {
    pr.inFlight = false;
    this.end(pr);
  }

  /**
   * A pull request's loop ends. Its dropped ProcessQueue gives back its memory — unless it is still in the
   * table: an orderly queue whose removal failed keeps its messages there, as in RocketMQ (§10.5).
   */
  private end(pr: PullRequest): void {
    if (!this.c.rebalance.holds(pr.mq, pr.pq)) pr.pq.release();
  }
}

