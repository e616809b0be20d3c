// A group's `listener`: what the application's MessageListener does per call (time, failures, poison,
// hangs) and, for an orderly listener, what it returns and whether its context auto-commits (§8.4).
import { compileDist } from "./distributions.ts";
import type { Dist } from "./distKinds.ts";
import { describeValue, InputError } from "./errors.ts";
import { checkKeys, isRecord, readEnum, readNumber } from "./read.ts";
import { SCENARIO_DEFAULTS } from "./defaults.ts";
import type { ConsumeMode, OrderlyResults } from "./types.ts";

export interface ListenerModel {
  consumeTime: Dist;
  failureProbability: number;
  poisonFraction: number;
  hangFraction: number;
  orderlyResults: OrderlyResults;
}

const ORDERLY_DEFAULTS: Readonly<Record<string, unknown>> = { autoCommit: true, successResult: "SUCCESS", failureResult: "SUSPEND_CURRENT_QUEUE_A_MOMENT" };

export function normalizeListener(raw: unknown, path: string, consumeMode: ConsumeMode): ListenerModel {
  const listener = raw ?? {};
  if (!isRecord(listener)) throw new InputError(path, "must be an object");
  checkKeys(listener, ["consumeTime", "failureProbability", "poisonFraction", "hangFraction", "autoCommit", "successResult", "failureResult"], path);
  // Only an orderly listener returns these; a concurrent group may state the defaults, nothing else.
  for (const k of Object.keys(ORDERLY_DEFAULTS)) {
    if (listener[k] !== undefined && listener[k] !== ORDERLY_DEFAULTS[k] && consumeMode !== "ORDERLY") {
      throw new InputError(`${path}.${k}`, `applies to an orderly listener only: set "consumeMode": "ORDERLY", or leave it at ${JSON.stringify(ORDERLY_DEFAULTS[k])}`);
    }
  }
  if (listener.autoCommit !== undefined && typeof listener.autoCommit !== "boolean") {
    throw new InputError(`${path}.autoCommit`, `must be true or false, got ${describeValue(listener.autoCommit)}`);
  }
  const orderlyResults: OrderlyResults = {
    autoCommit: listener.autoCommit === undefined ? true : (listener.autoCommit as boolean),
    successResult: listener.successResult === undefined ? "SUCCESS" : readEnum(listener, "successResult", `${path}.successResult`, ["SUCCESS", "COMMIT"] as const),
    failureResult: listener.failureResult === undefined
      ? "SUSPEND_CURRENT_QUEUE_A_MOMENT"
      : readEnum(listener, "failureResult", `${path}.failureResult`, ["SUSPEND_CURRENT_QUEUE_A_MOMENT", "ROLLBACK"] as const),
  };
  const prob = (k: string) => (listener[k] === undefined ? 0 : readNumber(listener, k, `${path}.${k}`, 0, 1));
  return {
    consumeTime: compileDist(listener.consumeTime ?? SCENARIO_DEFAULTS.consumeTime, "duration", `${path}.consumeTime`),
    failureProbability: prob("failureProbability"),
    poisonFraction: prob("poisonFraction"),
    hangFraction: prob("hangFraction"),
    orderlyResults,
  };
}
