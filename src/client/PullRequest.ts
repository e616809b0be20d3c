// PullRequest, spec §1: one circulates per (group, queue, ProcessQueue). It also carries the fields of
// its one in-flight PULL_MESSAGE RPC (request header, hold state at the broker, response), so a pull
// round trip allocates nothing: events refer to the request by id.
import { GetMessageResult } from "../broker/getMessage.ts";
import type { ProcessQueue } from "./ProcessQueue.ts";

export class PullRequest {
  nextOffset: number;
  previouslyLocked = false;

  // Request header of the RPC in flight (§2.2).
  reqOffset = 0;
  reqMaxMsgNums = 0;
  /** commitOffset piggy-backed, or −1 when the COMMIT_OFFSET bit is clear. */
  reqCommitOffset = -1;
  reqSubVersion = 0;
  reqSuspendTimeoutMs = 0;
  /** SUBSCRIPTION flag: the expression travels with the pull (postSubscriptionWhenPull, §2.2). */
  reqHasSubscription = false;
  /** Virtual time the RPC was sent (for pull round-trip figures). */
  reqSentUs = 0;
  /** True from sending the RPC until its response is handled. */
  inFlight = false;
  /** Serial of the RPC in flight: a response or time-out of an older one is ignored. */
  reqSerial = 0;

  // Broker-side hold state (§13.4).
  holdSinceUs = 0;
  holdTimeoutUs = 0;
  /** reqSerial when the broker held the request; a re-sent request makes the hold dead. */
  heldSerial = -1;

  // Response (§4.1): code, header and the accepted messages.
  respCode = 0;
  readonly result: GetMessageResult;

  constructor(
    /** Index in the world's pull-request table. */
    readonly id: number,
    /** Index of the owning consumer instance. */
    readonly consumer: number,
    /** Address of the owning incarnation (index + epoch × 2^20). */
    readonly consumerAddr: number,
    readonly group: number,
    /** Global queue index of the MessageQueue. */
    readonly mq: number,
    readonly pq: ProcessQueue,
    nextOffset: number,
    batchCapacity: number,
  ) {
    this.nextOffset = nextOffset;
    this.result = new GetMessageResult(batchCapacity);
  }
}
