// RebalancePushImpl#messageQueueChanged (spec §10.4): after a topic's assignment changed, a new subVersion,
// the per-topic thresholds divided among every ProcessQueue of the instance, and a heartbeat to every
// broker to announce the new subscription version.
import type { PushConsumer } from "./PushConsumer.ts";

/** `queues`: processQueueTable.size() — all topics, retry queues and dropped-but-not-removed ones included. */
export function messageQueueChanged(c: PushConsumer, topic: number, queues: number): void {
  const now = c.ctx.nowUs;
  c.setSubVersion(topic, Math.floor(now / 1000));
  if (queues !== 0) {
    const g = c.groupModel.config;
    if (g.pullThresholdForTopic !== -1) c.config.pullThresholdForQueue = Math.max(1, Math.floor(g.pullThresholdForTopic / queues));
    if (g.pullThresholdSizeForTopic !== -1) c.config.pullThresholdSizeForQueue = Math.max(1, Math.floor(g.pullThresholdSizeForTopic / queues));
    c.ctx.trace.emit(c.T.thresholdChanged, now, c.index, c.config.pullThresholdForQueue, c.config.pullThresholdSizeForQueue);
  }
  c.sendHeartbeats(false);
}
