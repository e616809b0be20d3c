// The records broker and client exchange — RocketMQ's request headers and responses, with the fields the
// model reads. A record crosses the network as a whole: the sender fills it, the receiver reads it during
// its handler and copies what it keeps; nobody holds on to a record after its handler returns. That is
// what lets the busy ones (PULL_MESSAGE and its answer) be reused from a pool: the transport hands a
// record back to its pool once it has been handled (`release`), so a pull round trip allocates nothing.
//
// Queues, topics, groups and clients are referred to by the model's numbers (global queue index, topic
// index, group index, node address) rather than by strings: the routes (routes.ts) translate.
import { RequestCode, ResponseCode } from "./codes.ts";
import type { Pool } from "./Pool.ts";

/** Where a record is in its life, as the transport sees it. */
export const enum Envelope {
  /** Being filled by its sender. */
  NEW = 0,
  /** A oneway message. */
  ONEWAY = 1,
  /** A request on its way. */
  REQUEST = 2,
  /** A request its receiver has and must answer (or defer) before its handler returns. */
  DELIVERED = 3,
  /** A request its receiver keeps and will answer later (or drop). */
  DEFERRED = 4,
  /** An answer. */
  RESPONSE = 5,
  /** Answered, failed or dropped: nobody may use it any more. */
  DONE = 6,
}

/**
 * The envelope a record travels in: what the transport stamps on it (RemotingCommand's opaque and flag,
 * and the asker's future), and the pool it returns to. One class for every kind of record, so the
 * transport's hot path reads and writes it monomorphically, whatever record it carries.
 */
export class Stamp {
  state: Envelope = Envelope.NEW;
  /** Sender and receiver addresses. */
  from = 0;
  to = 0;
  /** The asker's number for the request (and its answer): which of its requests this is. */
  cookie = 0;
  /** On an answer: the code of the request it answers. */
  requestCode = 0;
  /** On a request: when it was sent and how long its asker waits, µs. */
  sentUs = 0;
  timeoutUs = 0;
  /** The pool the record returns to after it has been handled; null for records made fresh. */
  pool: Pool<Command> | null = null;
  /** True while the record waits in its pool. */
  pooled = false;
}

/** What every record carries: its code (a RequestCode, or a ResponseCode on answers) and its envelope. */
export abstract class Command {
  abstract code: number;
  readonly stamp = new Stamp();

  /** Where the record is in its life (the envelope's state). */
  get envelope(): Envelope {
    return this.stamp.state;
  }
  set envelope(state: Envelope) {
    this.stamp.state = state;
  }
  /** The sender's address. */
  get from(): number {
    return this.stamp.from;
  }
  set from(addr: number) {
    this.stamp.from = addr;
  }
  /** The receiver's address. */
  get to(): number {
    return this.stamp.to;
  }
  set to(addr: number) {
    this.stamp.to = addr;
  }
  /** The asker's number for the request (and its answer). */
  get cookie(): number {
    return this.stamp.cookie;
  }
  /** On an answer: the code of the request it answers. */
  get requestCode(): number {
    return this.stamp.requestCode;
  }
  /** On a request: when it was sent, µs. */
  get sentUs(): number {
    return this.stamp.sentUs;
  }
  /** On a request: how long its asker waits, µs. */
  get timeoutUs(): number {
    return this.stamp.timeoutUs;
  }

  release(): void {
    const pool = this.stamp.pool;
    if (pool !== null) pool.put(this);
  }
}

/** Messages as columns: `count` rows of what a message is, as far as the consumer pipeline cares. */
export interface MessageColumns {
  readonly count: number;
  readonly offsets: ArrayLike<number>;
  readonly bodyBytes: ArrayLike<number>;
  readonly tag: ArrayLike<number>;
  readonly originKey: ArrayLike<number>;
  readonly originBornUs: ArrayLike<number>;
  readonly reconsumeTimes: ArrayLike<number>;
}

/**
 * A batch of messages' columns. A pull answer carries one, a consume task owns one; the client keeps
 * its own copy of each message in the ProcessQueue.
 */
export class MessageBatch implements MessageColumns {
  count = 0;
  /** Queue offset of each message in the queue it was pulled from. */
  offsets: Float64Array;
  /** Body length of each message, bytes: at most the broker's maxMessageSize, itself at most 1 GiB
   * (normalizeScenario), so 32 bits hold it. Sums of bodies are kept in doubles, never here. */
  bodyBytes: Int32Array;
  /** Tag index (−1: none). */
  tag: Int16Array;
  /** Identity of the original message across retries (queue × 2^32 + offset of the original). */
  originKey: Float64Array;
  /** Born time of the original message, µs. */
  originBornUs: Float64Array;
  /** RECONSUME_TIME: 0 for an original, n for its n-th retry copy. */
  reconsumeTimes: Uint16Array;

  constructor(capacity = 32) {
    this.offsets = new Float64Array(capacity);
    this.bodyBytes = new Int32Array(capacity);
    this.tag = new Int16Array(capacity);
    this.originKey = new Float64Array(capacity);
    this.originBornUs = new Float64Array(capacity);
    this.reconsumeTimes = new Uint16Array(capacity);
  }

  get capacity(): number {
    return this.offsets.length;
  }

  /** Appends row `i` of `src` (room for it must have been made). */
  add(src: MessageColumns, i: number): void {
    const n = this.count++;
    this.offsets[n] = src.offsets[i]!;
    this.bodyBytes[n] = src.bodyBytes[i]!;
    this.tag[n] = src.tag[i]!;
    this.originKey[n] = src.originKey[i]!;
    this.originBornUs[n] = src.originBornUs[i]!;
    this.reconsumeTimes[n] = src.reconsumeTimes[i]!;
  }

  /** Makes room for `n` messages (contents are not kept). */
  reserve(n: number): void {
    if (n <= this.offsets.length) return;
    let cap = this.offsets.length;
    while (cap < n) cap *= 2;
    this.offsets = new Float64Array(cap);
    this.bodyBytes = new Int32Array(cap);
    this.tag = new Int16Array(cap);
    this.originKey = new Float64Array(cap);
    this.originBornUs = new Float64Array(cap);
    this.reconsumeTimes = new Uint16Array(cap);
  }
}

// ------------------------------------------------------------------------------------------ PULL_MESSAGE

/** PullMessageRequestHeader (spec §2.2). */
export class PullMessageRequest extends Command {
  code: number = RequestCode.PULL_MESSAGE;
  consumerGroup = 0;
  /** The MessageQueue (global queue index): topic, brokerName and queueId in one number. */
  mq = 0;
  queueOffset = 0;
  maxMsgNums = 0;
  sysFlag = 0;
  /** Meaningful only with FLAG_COMMIT_OFFSET. */
  commitOffset = 0;
  suspendTimeoutMillis = 0;
  subVersion = 0;
  /** The subscription expression with FLAG_SUBSCRIPTION: accepted tag indexes, null = "*". */
  subscription: ReadonlySet<number> | null = null;
}

/** The answer to PULL_MESSAGE: PullMessageResponseHeader plus the messages (spec §4.1). */
export class PullMessageResponse extends Command {
  code: number = ResponseCode.SUCCESS;
  /** The node the consumer should pull this queue from next (0: the master, broker spec §4.4). */
  suggestWhichBrokerId = 0;
  nextBeginOffset = 0;
  minOffset = 0;
  maxOffset = 0;
  readonly msgs = new MessageBatch();
}

// --------------------------------------------------------------------------------- offsets (§13.6, §13.7)

/**
 * QUERY_CONSUMER_OFFSET for a newly assigned queue (spec §10.6). The model answers GET_MAX_OFFSET and
 * SEARCH_OFFSET_BY_TIMESTAMP(timestamp) in the same round trip: computePullFromWhere asks them right
 * after, of the same broker, and only their answers matter here.
 */
export class QueryConsumerOffsetRequest extends Command {
  code: number = RequestCode.QUERY_CONSUMER_OFFSET;
  constructor(
    readonly consumerGroup: number,
    readonly mq: number,
    /** consumeTimestamp for the search, µs of virtual time. */
    readonly timestampUs: number,
  ) {
    super();
  }
}

export class QueryConsumerOffsetResponse extends Command {
  /** SUCCESS with `offset`, or QUERY_NOT_FOUND. */
  code: number = ResponseCode.SUCCESS;
  offset = -1;
  maxOffset = 0;
  searchOffset = 0;
}

/** UPDATE_CONSUMER_OFFSET, oneway. */
export class UpdateConsumerOffsetRequest extends Command {
  code: number = RequestCode.UPDATE_CONSUMER_OFFSET;
  constructor(
    readonly consumerGroup: number,
    readonly mq: number,
    readonly commitOffset: number,
  ) {
    super();
  }
}

// ------------------------------------------------------------------------------------- registry (§13.8)

/** One SubscriptionData of a heartbeat. */
export interface SubscriptionData {
  topic: number;
  /** Accepted tag indexes; null = "*". */
  tagSet: ReadonlySet<number> | null;
  subVersion: number;
}

/** HEART_BEAT with the consumer's data (HeartbeatData / ConsumerData). */
export class HeartbeatRequest extends Command {
  code: number = RequestCode.HEART_BEAT;
  constructor(
    readonly clientId: string,
    readonly consumerGroup: number,
    readonly subscriptions: readonly SubscriptionData[],
  ) {
    super();
  }
}

/** UNREGISTER_CLIENT from a clean shutdown, or the network's CHANNEL_CLOSED. */
export class UnregisterClientRequest extends Command {
  constructor(
    public code: number,
    readonly clientId: string,
    readonly consumerGroup: number,
  ) {
    super();
  }
}

export class GetConsumerListRequest extends Command {
  code: number = RequestCode.GET_CONSUMER_LIST_BY_GROUP;
  constructor(readonly consumerGroup: number) {
    super();
  }
}

export class GetConsumerListResponse extends Command {
  constructor(
    /** SUCCESS, or SYSTEM_ERROR when the broker knows no consumer of the group. */
    public code: number,
    readonly consumerIdList: string[] | null,
  ) {
    super();
  }
}

/** NOTIFY_CONSUMER_IDS_CHANGED, oneway broker → client. */
export class NotifyConsumerIdsChangedRequest extends Command {
  code: number = RequestCode.NOTIFY_CONSUMER_IDS_CHANGED;
  constructor(readonly consumerGroup: number) {
    super();
  }
}

// ---------------------------------------------------------------------------------- send-back (§9)

/**
 * CONSUMER_SEND_MSG_BACK. RocketMQ's header carries the message's commit-log offset and the broker
 * reads the message back from its store; the model carries what that read returns (the message's
 * columns) instead, so the broker never needs a message a consumer may still send back.
 */
export class ConsumerSendMsgBackRequest extends Command {
  code: number = RequestCode.CONSUMER_SEND_MSG_BACK;
  constructor(
    readonly consumerGroup: number,
    /** The queue and queue offset the message was consumed from (for the trace). */
    readonly mq: number,
    readonly offset: number,
    /** 0: the broker chooses 3 + reconsumeTimes; −1: straight to the DLQ. */
    readonly delayLevel: number,
    readonly maxReconsumeTimes: number,
    readonly originKey: number,
    readonly originBornUs: number,
    readonly bodyBytes: number,
    readonly tag: number,
    readonly reconsumeTimes: number,
  ) {
    super();
  }
}

/**
 * SEND_MESSAGE of a retry message to %RETRY%<group> by the client instance's internal producer: the
 * orderly service's sendMessageBack once a message reached maxReconsumeTimes (spec §8.4). The broker
 * decides by SendMessageProcessor#handleRetryAndDLQ: `reconsumeTimes` is the RECONSUME_TIME property
 * (4.9: the message's count; 5.x: count + 1), `delayLevel` 3 + count.
 */
export class SendRetryMessageRequest extends ConsumerSendMsgBackRequest {
  override code: number = RequestCode.SEND_MESSAGE;
}

export class SimpleResponse extends Command {
  constructor(public code: number) {
    super();
  }
}

// ---------------------------------------------------------------------------- locks (orderly, §8.5)

/** LOCK_BATCH_MQ: lock these queues of the group for this client id (orderly consumption, §8.5). */
export class LockBatchRequest extends Command {
  code: number = RequestCode.LOCK_BATCH_MQ;
  constructor(
    readonly consumerGroup: number,
    readonly clientId: string,
    readonly mqs: readonly number[],
  ) {
    super();
  }
}

export class LockBatchResponse extends Command {
  code: number = ResponseCode.SUCCESS;
  constructor(readonly lockOKMQSet: readonly number[]) {
    super();
  }
}

/** UNLOCK_BATCH_MQ: release the locks this client id holds on these queues (oneway here, §10.5). */
export class UnlockBatchRequest extends Command {
  code: number = RequestCode.UNLOCK_BATCH_MQ;
  constructor(
    readonly consumerGroup: number,
    readonly clientId: string,
    readonly mqs: readonly number[],
  ) {
    super();
  }
}

// ----------------------------------------------------------- between a group's nodes (broker spec §4.7)

/** SlaveSynchronize asks its master for the consumer offsets and the delay offsets. */
export class GetAllConsumerOffsetRequest extends Command {
  code: number = RequestCode.GET_ALL_CONSUMER_OFFSET;
}

/** The master's in-memory tables as they are when it answers (copies: the answer is a snapshot). */
export class GetAllConsumerOffsetResponse extends Command {
  code: number = ResponseCode.SUCCESS;
  constructor(
    /** ConsumerOffsetManager's table: offsetKey(group, mq) → offset. */
    readonly offsets: ReadonlyMap<number, number>,
    /** ScheduleMessageService#encode: delay level → next offset. */
    readonly delayOffsets: readonly number[],
    /** [5.x] the offset table's DataVersion counter (a slave adopts it). */
    readonly dataVersion = 0,
  ) {
    super();
  }
}
