// AllocateMessageQueueConsistentHash ("CONSISTENT_HASH"), spec §11.6, with the ring of
// ConsistentHashRouter / VirtualNode (common/consistenthash). Adding or removing a consumer moves
// only the queues that consumer takes or gives up, unlike AVG where one join reshuffles everything.
import { createHash } from "node:crypto";
import { AllocateError, checkAllocateInputs } from "./check.ts";
import type { AllocateStrategy, MessageQueueName } from "./strategies.ts";

/** RocketMQ's default number of virtual nodes per consumer (no-argument constructor). */
const VIRTUAL_NODE_COUNT_DEFAULT = 10;

export interface ConsistentHashOptions {
  /** Virtual nodes per consumer on the ring; an integer ≥ 0 (0 leaves the ring empty: nobody gets anything). */
  virtualNodeCount?: number;
  /** Replaces the MD5 hash; must return an integer in the safe range (RocketMQ's HashFunction returns a long). */
  hashFunction?: (key: string) => number;
}

/** @param queueName topic, brokerName and queueId of a queue, from which its ring key is formed */
export function allocateConsistentHash<T>(
  queueName: (mq: T) => MessageQueueName,
  options: ConsistentHashOptions = {},
): AllocateStrategy<T> {
  const virtualNodeCount = options.virtualNodeCount ?? VIRTUAL_NODE_COUNT_DEFAULT;
  // Checked when the strategy is built, as RocketMQ's constructor does, not on every rebalance.
  if (!Number.isInteger(virtualNodeCount) || virtualNodeCount < 0) {
    throw new AllocateError(`illegal virtualNodeCnt :${virtualNodeCount}`);
  }
  const hash = options.hashFunction ?? memoizedMd5Hash();
  return (currentCid, mqAll, cidAll) => {
    if (!checkAllocateInputs(currentCid, mqAll, cidAll)) return [];
    const ring = buildRing(cidAll, virtualNodeCount, hash);
    return mqAll.filter((mq) => routeNode(ring, hash(messageQueueToString(queueName(mq)))) === currentCid);
  };
}

/** Ring entries sorted by hash ascending; hashes are distinct. */
interface Ring {
  hashes: number[];
  cids: string[];
}

function buildRing(cidAll: readonly string[], virtualNodeCount: number, hash: (key: string) => number): Ring {
  // A map keyed by hash, like RocketMQ's TreeMap: when two virtual nodes hash alike, the one
  // inserted later (later consumer in cidAll order) owns the point.
  const owners = new Map<number, string>();
  // Virtual nodes currently on the ring per consumer. RocketMQ numbers a consumer's new virtual
  // nodes after the ones it already has, which matters only if cidAll repeats a consumer.
  const replicaCounts = new Map<string, number>();
  for (const cid of cidAll) {
    const existing = replicaCounts.get(cid) ?? 0;
    for (let r = 0; r < virtualNodeCount; r++) {
      const point = hash(`${cid}-${r + existing}`);
      const previous = owners.get(point);
      if (previous !== undefined) replicaCounts.set(previous, (replicaCounts.get(previous) ?? 0) - 1);
      owners.set(point, cid);
      replicaCounts.set(cid, (replicaCounts.get(cid) ?? 0) + 1);
    }
  }
  const hashes = [...owners.keys()].sort((a, b) => a - b);
  return { hashes, cids: hashes.map((h) => owners.get(h)!) };
}

/** The owner of the first ring point at or after `keyHash`, wrapping to the lowest; undefined on an empty ring. */
function routeNode(ring: Ring, keyHash: number): string | undefined {
  let lo = 0;
  let hi = ring.hashes.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (ring.hashes[mid]! < keyHash) lo = mid + 1;
    else hi = mid;
  }
  return ring.cids[lo === ring.hashes.length ? 0 : lo];
}

/** Entries kept by one strategy's MD5 memo before it starts afresh. */
const MD5_MEMO_ENTRIES_MAX = 65_536;

/**
 * MD5 remembered per strategy. Every rebalance of every consumer re-hashes N × virtualNodeCount ring
 * keys and M queue keys that rarely change, and a digest costs about twenty times a Map lookup. The
 * memo cannot change an answer, MD5 being a pure function of the key, so clearing it whole when it
 * is full (simpler than evicting) changes only speed.
 */
function memoizedMd5Hash(): (key: string) => number {
  const memo = new Map<string, number>();
  return (key) => {
    let value = memo.get(key);
    if (value === undefined) {
      if (memo.size >= MD5_MEMO_ENTRIES_MAX) memo.clear();
      value = md5Hash(key);
      memo.set(key, value);
    }
    return value;
  };
}

/**
 * ConsistentHashRouter's default MD5Hash: the first 4 digest bytes read big-endian as an unsigned
 * 32-bit number (in a Java long, so never negative). Not 64 bits: the other 12 bytes are unused.
 * Java hashes key.getBytes() in the platform charset; UTF-8 here, the same for ASCII keys.
 */
function md5Hash(key: string): number {
  return createHash("md5").update(key, "utf8").digest().readUInt32BE(0);
}

/** MessageQueue#toString, the key a queue is routed by. */
function messageQueueToString(name: MessageQueueName): string {
  return `MessageQueue [topic=${name.topic}, brokerName=${name.brokerName}, queueId=${name.queueId}]`;
}
