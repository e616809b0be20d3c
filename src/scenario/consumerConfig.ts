// A group's "config": DefaultMQPushConsumer / ClientConfig fields with RocketMQ's names, units and
// ranges (spec §0.1, §0.2, §15.5). The MiB settings also take a size string ("100MiB", "1GiB").
import { describeValue, InputError } from "./errors.ts";
import { CONSUMER_CONFIG_DEFAULTS, CONSUMER_CONFIG_RANGES, type ConsumerConfig } from "./defaults.ts";
import { checkKeys, isRecord, readInt, show } from "./read.ts";
import { parseMiBText } from "./units.ts";

/** Consumer fields where −1 means "off" and 0 is invalid (spec §10.4, §15.5). Not maxReconsumeTimes: 0 is a real setting there. */
const OFF_BY_MINUS_ONE: ReadonlySet<keyof ConsumerConfig> = new Set(["pullThresholdForTopic", "pullThresholdSizeForTopic"]);
/** Fields RocketMQ keeps in MiB: a number there is MiB, a size string is converted to MiB. */
export const MIB_SETTINGS: ReadonlySet<keyof ConsumerConfig> = new Set(["pullThresholdSizeForQueue", "pullThresholdSizeForTopic"]);

export function normalizeConsumerConfig(raw: unknown, path: string): ConsumerConfig {
  const config: ConsumerConfig = { ...CONSUMER_CONFIG_DEFAULTS };
  if (raw === undefined) return config;
  if (!isRecord(raw)) throw new InputError(path, "must be an object");
  checkKeys(raw, Object.keys(CONSUMER_CONFIG_DEFAULTS), path);
  const set = config as unknown as Record<string, unknown>;
  for (const k of Object.keys(raw)) {
    const key = k as keyof ConsumerConfig;
    const range = CONSUMER_CONFIG_RANGES[key];
    const p = `${path}.${k}`;
    if (range === "boolean") {
      if (typeof raw[k] !== "boolean") throw new InputError(p, `must be true or false, got ${describeValue(raw[k])}`);
      set[k] = raw[k];
      continue;
    }
    if (MIB_SETTINGS.has(key) && typeof raw[k] === "string") {
      const mib = parseMiBText(raw[k], p);
      const [min, max] = OFF_BY_MINUS_ONE.has(key) ? [1, range[1]] : range;
      if (mib < min || mib > max) throw new InputError(p, `${show(raw[k])} is ${mib} MiB, out of range [${min}, ${max}] MiB`);
      set[k] = mib;
    } else if (OFF_BY_MINUS_ONE.has(key)) {
      // checkConfig (§15.5): −1 switches the topic threshold off, anything else must lie in [1, max].
      const v = raw[k];
      if (v !== -1 && !(typeof v === "number" && Number.isInteger(v) && v >= 1 && v <= range[1])) {
        throw new InputError(p, `${show(v)} is out of range [1, ${range[1]}]; use -1 to switch it off`);
      }
      set[k] = v;
    } else {
      set[k] = readInt(raw, k, p, range[0], range[1]);
    }
  }
  // DefaultMQPushConsumerImpl#checkConfig (spec §15.5).
  if (config.consumeThreadMin > config.consumeThreadMax) {
    throw new InputError(`${path}.consumeThreadMin`, `consumeThreadMin (${config.consumeThreadMin}) is larger than consumeThreadMax (${config.consumeThreadMax})`);
  }
  return config;
}
