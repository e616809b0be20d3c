// AllocateMachineRoomNearby ("MACHINE_ROOM_NEARBY-<inner>"), spec §11.5: a queue is consumed in its
// own machine room while that room has any consumer; only rooms left without consumers have their
// queues shared by everyone. The split within a room is delegated to an inner strategy.
import { AllocateError, checkAllocateInputs } from "./check.ts";
import type { AllocateStrategy } from "./strategies.ts";

/** Says where a broker's queue and a consumer are deployed (RocketMQ's MachineRoomResolver). */
export interface MachineRoomResolver<T> {
  /** The machine room of the broker holding `mq`; empty is an error. */
  brokerDeployIn(mq: T): string;
  /** The machine room of the consumer with client id `cid`; empty is an error. */
  consumerDeployIn(cid: string): string;
}

export function allocateMachineRoomNearby<T>(inner: AllocateStrategy<T>, resolver: MachineRoomResolver<T>): AllocateStrategy<T> {
  return (currentCid, mqAll, cidAll) => {
    if (!checkAllocateInputs(currentCid, mqAll, cidAll)) return [];
    const mqByRoom = groupBy(mqAll, (mq) => roomOrThrow(resolver.brokerDeployIn(mq), `mq ${String(mq)}`));
    const cidByRoom = groupBy(cidAll, (cid) => roomOrThrow(resolver.consumerDeployIn(cid), `consumer id ${cid}`));
    const myRoom = resolver.consumerDeployIn(currentCid);
    const result: T[] = [];
    // (a) My own room's queues, shared among the consumers of my room only.
    const mqMine = mqByRoom.get(myRoom);
    if (mqMine !== undefined) result.push(...inner(currentCid, mqMine, cidByRoom.get(myRoom)!));
    // (b) Rooms nobody consumes in: their queues are shared among all consumers. RocketMQ walks a
    // TreeMap, so rooms go in String.compareTo order; the default sort compares UTF-16 code units too.
    for (const room of [...mqByRoom.keys()].sort()) {
      if (room === myRoom || cidByRoom.has(room)) continue;
      result.push(...inner(currentCid, mqByRoom.get(room)!, cidAll));
    }
    return result;
  };
}

/** Groups in input order within each group, so the inner strategy still sees sorted lists. */
function groupBy<V>(items: readonly V[], keyOf: (item: V) => string): Map<string, V[]> {
  const groups = new Map<string, V[]>();
  for (const item of items) {
    const key = keyOf(item);
    const group = groups.get(key);
    if (group === undefined) groups.set(key, [item]);
    else group.push(item);
  }
  return groups;
}

function roomOrThrow(room: string, what: string): string {
  // RocketMQ rejects a null or empty room rather than grouping such queues or consumers together.
  if (!room) throw new AllocateError(`Machine room is null for ${what}`);
  return room;
}
