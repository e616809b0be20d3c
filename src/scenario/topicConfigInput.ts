// A topic's per-broker config in the scenario (issue 19): `readQueueNums`, `writeQueueNums` and `perm`
// on a topic apply on every broker of the topic (TopicConfig as `mqadmin updateTopic` sets it; broker
// spec §7.1). Absent, a topic reads and writes all its `queuesPerBroker` queues (perm "rw").
import { readEnum, readInt } from "./read.ts";

/** PermName bits: PERM_READ 4, PERM_WRITE 2 (RocketMQ's PermName). */
export const PERM_BY_NAME = { rw: 6, r: 4, w: 2, none: 0 } as const;
export type PermInput = keyof typeof PERM_BY_NAME;
export const PERM_NAMES = Object.keys(PERM_BY_NAME) as PermInput[];

/** TopicConfig's queue counts are 1..1024 here (queuesPerBroker's range). */
export const QUEUE_NUMS_MIN = 1;
export const QUEUE_NUMS_MAX = 1024;

export interface TopicConfigModel {
  readQueueNums: number;
  writeQueueNums: number;
  /** PermName bits. */
  perm: number;
}

export function readQueueNums(raw: Record<string, unknown>, key: string, path: string): number {
  return readInt(raw, key, `${path}.${key}`, QUEUE_NUMS_MIN, QUEUE_NUMS_MAX);
}

export function readPerm(raw: Record<string, unknown>, key: string, path: string): number {
  return PERM_BY_NAME[readEnum(raw, key, `${path}.${key}`, PERM_NAMES)];
}

/** The topic's `config` field of TopicModel, or {} when the scenario gives none of the three fields. */
export function normalizeTopicConfig(raw: Record<string, unknown>, path: string, queuesPerBroker: number): { config?: TopicConfigModel } {
  if (raw.readQueueNums === undefined && raw.writeQueueNums === undefined && raw.perm === undefined) return {};
  return {
    config: {
      readQueueNums: raw.readQueueNums === undefined ? queuesPerBroker : readQueueNums(raw, "readQueueNums", path),
      writeQueueNums: raw.writeQueueNums === undefined ? queuesPerBroker : readQueueNums(raw, "writeQueueNums", path),
      perm: raw.perm === undefined ? PERM_BY_NAME.rw : readPerm(raw, "perm", path),
    },
  };
}
