// AbstractAllocateMessageQueueStrategy#check, spec §11: bad inputs throw, a consumer missing from the
// list gets nothing.

export class AllocateError extends Error {}

/** Returns false when currentCid is not in cidAll (allocation is then empty). */
export function checkAllocateInputs(currentCid: string, mqAll: readonly unknown[] | null, cidAll: readonly string[] | null): boolean {
  if (!currentCid) throw new AllocateError("currentCID is empty");
  if (!mqAll || mqAll.length === 0) throw new AllocateError("mqAll is null or mqAll empty");
  if (!cidAll || cidAll.length === 0) throw new AllocateError("cidAll is null or cidAll empty");
  return cidAll.includes(currentCid);
}
