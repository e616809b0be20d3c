// PullAPIWrapper#processPullResult's client-side tag re-check (spec §4.2): the broker matched tag *hash
// codes*, so with a tag subscription the client keeps only the messages whose tag string is in the
// subscription's tag set (a message without a tag never is). Tags are compared by index here, which is
// comparing strings: a topic's tag names are distinct. SQL92 subscriptions carry no tag set and are not
// re-checked (FilterAPI#build leaves tagsSet empty for them), nor is "*".
//
// What the re-check drops crossed the wire and is gone: the ProcessQueue never holds it. Its offset is
// committed later, as in RocketMQ — a kept message after it moves the queue's offset past it when
// consumed (removeMessage returns queueOffsetMax + 1 once the cache is empty), and a NO_NEW_MSG /
// NO_MATCHED_MSG answer with an empty cache runs correctTagsOffset. A FOUND answer left empty by the
// re-check only moves nextOffset and pulls again at once (§4.3); it does not correct the offset.
import type { MessageBatch } from "../protocol/commands.ts";
import type { SubscriptionModel } from "../scenario/types.ts";

/** One consumer instance's books of what pulls carried, per queue (global queue index). */
export class PullResultBooks {
  /** Messages in FOUND answers, before the re-check: what crossed the wire. */
  readonly transferred: Float64Array;
  /** Messages the re-check dropped. */
  readonly filteredAtClient: Float64Array;

  constructor(queueCount: number) {
    this.transferred = new Float64Array(queueCount);
    this.filteredAtClient = new Float64Array(queueCount);
  }
}

/** The tag set the client re-checks on `topic`: null for "*", SQL92, an unsubscribed or a %RETRY% topic. */
export function recheckTagSet(subscriptions: readonly SubscriptionModel[], topic: number): ReadonlySet<number> | null {
  for (let i = 0; i < subscriptions.length; i++) {
    const s = subscriptions[i]!;
    if (s.topic === topic) return s.tagSet;
  }
  return null;
}

/**
 * Filters a FOUND answer's messages in place (list order kept) and books them; the batch may end empty.
 * Allocation-free.
 */
export function processPullResult(msgs: MessageBatch, tagSet: ReadonlySet<number> | null, mq: number, books: PullResultBooks): void {
  const n = msgs.count;
  books.transferred[mq]! += n;
  if (tagSet === null) return;
  let kept = 0;
  for (let i = 0; i < n; i++) {
    if (!tagSet.has(msgs.tag[i]!)) continue;
    if (kept !== i) moveRow(msgs, i, kept);
    kept++;
  }
  if (kept === n) return;
  books.filteredAtClient[mq]! += n - kept;
  msgs.count = kept;
}

function moveRow(m: MessageBatch, from: number, to: number): void {
  m.offsets[to] = m.offsets[from]!;
  m.bodyBytes[to] = m.bodyBytes[from]!;
  m.tag[to] = m.tag[from]!;
  m.originKey[to] = m.originKey[from]!;
  m.originBornUs[to] = m.originBornUs[from]!;
  m.reconsumeTimes[to] = m.reconsumeTimes[from]!;
}
