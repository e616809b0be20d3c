// What PushConsumer, the pull loop and the books need of a consume service, concurrent (§7) or orderly
// (§8): both run consumeThreadMin workers over one FIFO of ConsumeRequests (§6).
import type { Command } from "../protocol/commands.ts";
import type { MessageColumns, ProcessQueue } from "./ProcessQueue.ts";

export interface ConsumeService {
  readonly threads: number;
  /** Workers stuck in a listener call that never returns. */
  readonly hungWorkers: number;
  /** Requests waiting for a worker. */
  readonly queueLength: number;
  readonly busyWorkers: number;
  /** submitConsumeRequest after a FOUND pull; `dispatchToConsume` is putMessage's answer (§3.1). */
  submitConsumeRequest(msgs: MessageColumns, pq: ProcessQueue, mq: number, dispatchToConsume?: boolean): void;
  /** A listener call returned [worker]. */
  onConsumeDone(worker: number): void;
  /** The answer (null: time-out) of a send-back or retry send in flight [cookie]. */
  onSendBackResponse(cookie: number, response: Command | null): void;
  /** A delayed re-submission is due [ticket]: the 5 s local retry (concurrent), submitConsumeRequestLater (orderly). */
  onLocalRetry(ticket: number): void;
  /** Calls fn for each message inside a listener call or awaiting its outcome (accounting, storage roots). */
  forEachInFlight(fn: (mq: number, offset: number, originKey: number) => void): void;
  /**
   * When the listener call holding `pq`'s consumeLock ends: −1 if none is running, Infinity if it never
   * will (orderly only; the concurrent service takes no consumeLock and answers −1).
   */
  consumeLockBusyUntil(pq: ProcessQueue): number;
  /**
   * consumeMessageService.shutdown begins (broker spec §8.2 step 1): its scheduler stops (local retries and
   * "later" re-submissions are discarded) and its executor takes no new request.
   */
  beginShutdown(): void;
  /** shutdownNow: requests queued for a worker are dropped (their messages stay cached, never consumed). */
  dropQueued(): void;
  /** No listener call runs and nothing is queued (the executor has terminated). */
  readonly drained: boolean;
}
