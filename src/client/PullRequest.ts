// PullRequest, spec §1: one circulates per (group, queue, ProcessQueue). It also remembers its one
// PULL_MESSAGE in flight — what was asked, when — so the answer can be matched to it.
import type { ProcessQueue } from "./ProcessQueue.ts";

export class PullRequest {
  nextOffset: number;
  previouslyLocked = false;
  /** queueOffset of the request in flight. */
  reqOffset = 0;
  /** Virtual time the request in flight was sent. */
  reqSentUs = 0;
  /** True from sending the request until its answer or time-out is handled. */
  inFlight = false;

  constructor(
    /** Index in the consumer instance's table of pull requests (timers and answers refer to it). */
    readonly id: number,
    readonly group: number,
    /** Global queue index of the MessageQueue. */
    readonly mq: number,
    readonly pq: ProcessQueue,
    nextOffset: number,
    /** The MessageQueue's topic (topic index). */
    readonly topic: number,
    /**
     * The tag set processPullResult re-checks on the topic (recheckTagSet; null: none). Subscriptions never
     * change during a run, so it is looked up once here rather than on every answer.
     */
    readonly recheckTags: ReadonlySet<number> | null,
  ) {
    this.nextOffset = nextOffset;
  }
}
