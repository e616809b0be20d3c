// AllocateMessageQueueAveragelyByCircle ("AVG_BY_CIRCLE"), spec §11.2: round robin, so consumer i
// gets queues i, i+N, i+2N, … and each consumer's queues are spread over the whole sorted list
// (across brokers) instead of forming one contiguous block as AVG does.
import { checkAllocateInputs } from "./check.ts";

export function allocateAveragelyByCircle<T>(currentCid: string, mqAll: readonly T[], cidAll: readonly string[]): T[] {
  if (!checkAllocateInputs(currentCid, mqAll, cidAll)) return [];
  const index = cidAll.indexOf(currentCid);
  const result: T[] = [];
  for (let k = index; k < mqAll.length; k += cidAll.length) result.push(mqAll[k]!);
  return result;
}
