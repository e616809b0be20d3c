// A broker's `store` block and the scenario's `startTime`: commit-log files, retention in the RocketMQ
// way, and disk thresholds (rocketmq-broker.md §1.1, §2). Names follow MessageStoreConfig.
import { STORE_DEFAULTS } from "./defaults.ts";
import { InputError } from "./errors.ts";
import { checkKeys, isRecord, readInt, readNumber, show } from "./read.ts";
import type { StoreModel } from "./types.ts";
import { formatBytes, parseBytes, parseDurationUs } from "./units.ts";

const STORE_KEYS = [
  "mappedFileSizeCommitLog", "fileReservedTime", "deleteWhen", "cleanResourceInterval", "deleteFileBatchMax",
  "diskBytes", "diskUsedBytes", "diskMaxUsedSpaceRatio", "diskSpaceCleanForciblyRatio", "diskSpaceWarningLevelRatio",
];
/** Room a message needs in a file beyond its body: header, topic name, end-of-file blank (§1.1), rounded up. */
const FILE_ROOM_BEYOND_BODY = 512;

/** `startTime`: the local time of day at virtual time 0, "HH:MM" or "HH:MM:SS" → µs after midnight. */
export function parseStartTime(raw: unknown): number {
  if (raw === undefined) return 0;
  const m = typeof raw === "string" ? /^(\d{2}):(\d{2})(?::(\d{2}))?$/.exec(raw) : null;
  const [h, min, s] = m ? [Number(m[1]), Number(m[2]), Number(m[3] ?? 0)] : [NaN, NaN, NaN];
  if (!m || h > 23 || min > 59 || s > 59) {
    throw new InputError("startTime", `${show(raw)} must be a local time of day "HH:MM" or "HH:MM:SS" from 00:00 to 23:59:59 (it places deleteWhen's hours)`);
  }
  return ((h * 60 + min) * 60 + s) * 1_000_000;
}

/** `deleteWhen`: RocketMQ's ";"-separated list of hours, e.g. "04" or "04;16". */
function parseDeleteWhen(raw: unknown, path: string): number[] {
  const parts = typeof raw === "string" ? raw.split(";") : [];
  const hours = parts.map((p) => (/^\d{1,2}$/.test(p.trim()) ? Number(p.trim()) : NaN));
  if (hours.length === 0 || hours.some((h) => !(h >= 0 && h <= 23))) {
    throw new InputError(path, `${show(raw)} must be hours of the day 00–23 separated by ";", e.g. "04" or "04;16"`);
  }
  return hours;
}

export function normalizeStore(raw: unknown, path: string, startTimeUs: number, maxMessageSize: number): StoreModel {
  const store: StoreModel = { ...STORE_DEFAULTS, deleteWhenHours: [...STORE_DEFAULTS.deleteWhenHours], startTimeUs };
  if (raw === undefined) return store;
  if (!isRecord(raw)) throw new InputError(path, "must be an object");
  checkKeys(raw, STORE_KEYS, path);
  if (raw.mappedFileSizeCommitLog !== undefined) {
    const p = `${path}.mappedFileSizeCommitLog`;
    const bytes = parseBytes(raw.mappedFileSizeCommitLog, p);
    const min = maxMessageSize + FILE_ROOM_BEYOND_BODY;
    if (bytes < min || bytes > 2 ** 40) {
      throw new InputError(p, `${show(raw.mappedFileSizeCommitLog)} must be from ${formatBytes(min)} (maxMessageSize + ${FILE_ROOM_BEYOND_BODY} B: a message never straddles files) to 1 TiB`);
    }
    store.mappedFileSizeCommitLog = bytes;
  }
  if (raw.fileReservedTime !== undefined) {
    const us = parseDurationUs(raw.fileReservedTime, `${path}.fileReservedTime`);
    if (us <= 0) throw new InputError(`${path}.fileReservedTime`, "must be greater than 0 (RocketMQ's default is 72h)");
    store.fileReservedTimeUs = us;
  }
  if (raw.deleteWhen !== undefined) store.deleteWhenHours = parseDeleteWhen(raw.deleteWhen, `${path}.deleteWhen`);
  if (raw.cleanResourceInterval !== undefined) {
    const us = parseDurationUs(raw.cleanResourceInterval, `${path}.cleanResourceInterval`);
    if (us < 1000) throw new InputError(`${path}.cleanResourceInterval`, "must be at least 1ms (RocketMQ's default is 10s)");
    store.cleanResourceIntervalUs = us;
  }
  if (raw.deleteFileBatchMax !== undefined) store.deleteFileBatchMax = readInt(raw, "deleteFileBatchMax", `${path}.deleteFileBatchMax`, 1, 10_000);
  if (raw.diskBytes !== undefined) {
    store.diskBytes = parseBytes(raw.diskBytes, `${path}.diskBytes`);
    if (store.diskBytes <= 0) throw new InputError(`${path}.diskBytes`, "must be greater than 0");
  }
  if (raw.diskUsedBytes !== undefined) {
    if (store.diskBytes === Infinity) throw new InputError(`${path}.diskUsedBytes`, "needs diskBytes (the disk's capacity)");
    store.diskOtherBytes = parseBytes(raw.diskUsedBytes, `${path}.diskUsedBytes`);
    if (store.diskOtherBytes >= store.diskBytes) {
      throw new InputError(`${path}.diskUsedBytes`, `must be less than diskBytes (${formatBytes(store.diskBytes)})`);
    }
  }
  const ratio = (key: "diskMaxUsedSpaceRatio" | "diskSpaceCleanForciblyRatio" | "diskSpaceWarningLevelRatio", lo: number, hi: number) => {
    if (raw[key] !== undefined) store[key] = readNumber(raw, key, `${path}.${key}`, lo, hi) / 100;
  };
  // Percentages, as RocketMQ's fields; ranges are the 5.x clamps (§2.5).
  ratio("diskMaxUsedSpaceRatio", 10, 95);
  ratio("diskSpaceCleanForciblyRatio", 30, 85);
  ratio("diskSpaceWarningLevelRatio", 35, 90);
  return store;
}
