// Where a BROADCASTING group stands on a queue. Its offsets live in each instance's local file
// (LocalFileOffsetStore, spec §12.2), not on the broker, and every instance reads every queue, so the
// group is as far as its slowest running instance: the summary, the sampler's lags and the checks
// read the least of its running instances' positions (the worst lag).
import type { PushConsumer } from "../client/PushConsumer.ts";
import type { Cluster } from "../model/Cluster.ts";

/** The group's current incarnations that are running now (started, not shut down or crashed). */
export function runningInstances(cl: Cluster, group: number): PushConsumer[] {
  return cl.consumers.filter((c) => c.group === group && c.alive && c.state === "RUNNING");
}

/**
 * The least in-memory offset (offsetStore.readOffset) the group's running instances hold for `mq`; −1 if
 * one of them holds none yet (it will start wherever §10.6 puts it) or none is running — read as the
 * queue's min offset by the lags, as a clustering group without a committed offset.
 */
export function broadcastCommittedOffset(running: readonly PushConsumer[], mq: number): number {
  if (running.length === 0) return -1;
  let least = Infinity;
  for (const c of running) least = Math.min(least, c.offsetStore.readOffset(mq));
  return least;
}

/** The least next pull offset of the group's running instances on `mq`; −1 if one of them has no pull request for it, or none runs. */
export function broadcastNextOffset(running: readonly PushConsumer[], mq: number): number {
  if (running.length === 0) return -1;
  let least = Infinity;
  for (const c of running) least = Math.min(least, c.rebalance.pullRequestOf(mq)?.nextOffset ?? -1);
  return least;
}
