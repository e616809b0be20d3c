// AllocateMessageQueueAveragely ("AVG"), spec §11.1: contiguous blocks, the remainder going to the
// first consumers of the sorted cid list.
import { checkAllocateInputs } from "./check.ts";

export function allocateAveragely<T>(currentCid: string, mqAll: readonly T[], cidAll: readonly string[]): T[] {
  if (!checkAllocateInputs(currentCid, mqAll, cidAll)) return [];
  const index = cidAll.indexOf(currentCid);
  const m = mqAll.length;
  const n = cidAll.length;
  const mod = m % n;
  const averageSize = m <= n ? 1 : mod > 0 && index < mod ? Math.floor(m / n) + 1 : Math.floor(m / n);
  const startIndex = mod > 0 && index < mod ? index * averageSize : index * averageSize + mod;
  const range = Math.min(averageSize, m - startIndex);
  const result: T[] = [];
  for (let i = 0; i < range; i++) result.push(mqAll[(startIndex + i) % m]!);
  return result;
}
