// AllocateMessageQueueByMachineRoom ("MACHINE_ROOM"), spec §11.4: only queues on brokers named
// "<room>@<broker>" whose room is one of consumeridcs are allocated; queues of other rooms go to no one.
import { checkAllocateInputs } from "./check.ts";
import type { AllocateStrategy } from "./strategies.ts";

/**
 * @param consumeridcs the rooms this group consumes from (RocketMQ's setConsumeridcs)
 * @param brokerNameOf the brokerName of a queue
 */
export function allocateByMachineRoom<T>(
  consumeridcs: Iterable<string>,
  brokerNameOf: (mq: T) => string,
): AllocateStrategy<T> {
  const rooms = new Set(consumeridcs);
  return (currentCid, mqAll, cidAll) => {
    if (!checkAllocateInputs(currentCid, mqAll, cidAll)) return [];
    const index = cidAll.indexOf(currentCid);
    const n = cidAll.length;
    const pre = mqAll.filter((mq) => {
      const parts = splitLikeJava(brokerNameOf(mq), "@");
      return parts.length === 2 && rooms.has(parts[0]!);
    });
    // Not AVG's arithmetic: every consumer first takes a block of floor(|pre| / N), and the
    // remainder (the tail after the N blocks) is dealt one each to the first consumers. Hence
    // §15.1's 5 queues over 2 consumers: {0,1,4} and {2,3}.
    const mod = Math.floor(pre.length / n);
    const rem = pre.length % n;
    const result = pre.slice(index * mod, index * mod + mod);
    if (rem > index) result.push(pre[index + mod * n]!);
    return result;
  };
}

/**
 * String.split(literal) as Java does it: trailing empty strings are dropped, so "room1@broker@"
 * has 2 parts there (and is accepted) while "room1@" has only 1. Leading empty strings stay.
 */
function splitLikeJava(s: string, separator: string): string[] {
  const parts = s.split(separator);
  while (parts.length > 0 && parts[parts.length - 1] === "") parts.pop();
  return parts;
}
