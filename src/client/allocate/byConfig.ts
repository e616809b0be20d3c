// AllocateMessageQueueByConfig ("CONFIG"), spec §11.3: every consumer gets the configured list,
// whoever asks and whatever the route says. RocketMQ runs no precheck here, so neither do we: an
// empty currentCid or an empty mqAll is not an error for this strategy.
import type { AllocateStrategy } from "./strategies.ts";

/** The strategy that answers `messageQueueList` to every call. */
export function allocateByConfig<T>(messageQueueList: readonly T[]): AllocateStrategy<T> {
  // Copied once so later changes to the caller's array cannot change the configuration, and copied
  // per call so a caller mutating one answer cannot change the next (RocketMQ hands out its own list).
  const configured = [...messageQueueList];
  return () => [...configured];
}
