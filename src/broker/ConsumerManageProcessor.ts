// ConsumerManageProcessor#queryConsumerOffset (§13.7) with the max offset and the timestamp search the
// client asks next (§10.6), and the offsetQueryError fault (broker spec §10.4).
import type { NodeContext } from "../net/Node.ts";
import { ResponseCode } from "../protocol/codes.ts";
import { QueryConsumerOffsetResponse, type QueryConsumerOffsetRequest } from "../protocol/commands.ts";
import type { ConsumerOffsetManager } from "./ConsumerOffsetManager.ts";
import type { MessageSource, MessageStore } from "./MessageStore.ts";
import type { PullMessageProcessor } from "./PullMessageProcessor.ts";

export class ConsumerManageProcessor {
  /**
   * A fault: QUERY_CONSUMER_OFFSET is answered with this code (SYSTEM_BUSY: the consumer-manage pool's
   * queue is full, "[OVERLOAD]"; SYSTEM_ERROR) with this probability; null: answered normally.
   */
  offsetQueryError: { code: number; probability: number } | null = null;
  private offsetQueryRng: (() => number) | null = null;

  constructor(
    private readonly ctx: NodeContext,
    /** The broker's stream label prefix. */
    private readonly label: string,
    private readonly store: MessageStore,
    private readonly source: MessageSource,
    private readonly offsets: ConsumerOffsetManager,
    /** For the max offset this node holds (a slave's copy). */
    private readonly processor: PullMessageProcessor,
  ) {}

  /** With no stored offset the broker answers 0 when the queue starts in page cache. */
  queryConsumerOffset(req: QueryConsumerOffsetRequest): void {
    const now = this.ctx.nowUs;
    this.source.advanceTo(now);
    this.store.applyRetention(req.mq, now);
    const resp = new QueryConsumerOffsetResponse();
    let stored = this.offsets.queryOffset(req.consumerGroup, req.mq);
    if (stored < 0 && this.store.startAtZero(req.mq)) stored = 0;
    resp.code = stored >= 0 ? ResponseCode.SUCCESS : ResponseCode.QUERY_NOT_FOUND;
    resp.offset = stored;
    const err = this.offsetQueryError;
    if (err !== null) {
      this.offsetQueryRng ??= this.ctx.rng(`${this.label}/offsetQueryError`);
      if (err.probability >= 1 || this.offsetQueryRng() < err.probability) {
        // The admin requests for the max offset and the timestamp are served by another pool: they work.
        resp.code = err.code;
        resp.offset = -1;
      }
    }
    resp.maxOffset = this.processor.maxOf(req.mq);
    // searchOffset reads the stored messages; the consume queue ends at the dispatched ones (reput.ts).
    resp.searchOffset = Math.min(this.store.searchOffset(req.mq, req.timestampUs), resp.maxOffset);
    this.ctx.reply(req, resp);
  }
}
