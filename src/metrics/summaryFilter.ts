// What message filtering cost on a queue (spec §4.2, §13.2), for the summary's per-queue rows of a group
// whose subscription to the topic filters (tags or SQL92); rows of "*" subscriptions and %RETRY% topics
// carry none, so summaries without filters keep their shape.
import type { Cluster } from "../model/Cluster.ts";
import type { GroupModel } from "../scenario/types.ts";

export interface QueueFilterBooks {
  /** Messages FOUND answers carried to the group's instances (before the client's tag re-check). */
  transferred: number;
  /** Consume-queue units the brokers' filter skipped while answering the group's pulls (a unit scanned
   * again, after a lost answer or a new owner, counts again: this is scan work). */
  filteredAtBroker: number;
  /** Messages the client's tag re-check dropped (tag hash collisions): transferred, never consumed. */
  filteredAtClient: number;
  /** Brokers' getMessage answers FOUND (SUCCESS) and NO_MATCHED_MESSAGE (PULL_RETRY_IMMEDIATELY). */
  pullsFound: number;
  pullsNoMatched: number;
}

/** The filter books of `grp` on queue `mq` of `topic`, or undefined when its subscription there is "*". */
export function queueFilterBooks(cl: Cluster, grp: GroupModel, topic: number, mq: number): QueueFilterBooks | undefined {
  const sub = grp.subscriptions.find((s) => s.topic === topic);
  if (sub === undefined || (sub.tagSet === null && sub.sql === undefined)) return undefined;
  let transferred = 0;
  let filteredAtClient = 0;
  // Every incarnation ever created: a replaced instance's books stay part of the run.
  for (const c of cl.incarnations) {
    if (c.group !== grp.index) continue;
    transferred += c.pull.books.transferred[mq] ?? 0;
    filteredAtClient += c.pull.books.filteredAtClient[mq] ?? 0;
  }
  const b = cl.filters.booksOf(grp.index, mq);
  return { transferred, filteredAtBroker: b.filteredAtBroker, filteredAtClient, pullsFound: b.found, pullsNoMatched: b.noMatched };
}
