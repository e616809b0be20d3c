// The names of the pull answers the summary counts per group (`groups[].pulls.byCode`, counted in
// src/client/pullCodes.ts): RocketMQ's ResponseCode names, plus TIMEOUT (the RPC timed out) and NOT_SENT
// (the pull failed before it was sent), and OTHER. Kept here so that expectations may name them:
// `groups.G1.pulls.byCode.NO_PERMISSION > 0`.

/** In the order the summary lists them: the four answers, the refusals, the errors, the rest. */
export const PULL_CODE_NAMES = [
  "SUCCESS", "PULL_NOT_FOUND", "PULL_RETRY_IMMEDIATELY", "PULL_OFFSET_MOVED",
  "NO_PERMISSION", "SUBSCRIPTION_GROUP_NOT_EXIST", "TOPIC_NOT_EXIST", "INVALID_PARAMETER", "SUBSCRIPTION_PARSE_FAILED",
  "SUBSCRIPTION_NOT_EXIST", "SUBSCRIPTION_NOT_LATEST", "FILTER_DATA_NOT_EXIST", "FILTER_DATA_NOT_LATEST",
  "SYSTEM_ERROR", "SYSTEM_BUSY", "FLOW_CONTROL", "TIMEOUT", "NOT_SENT", "OTHER",
] as const;
export type PullCodeName = (typeof PULL_CODE_NAMES)[number];

/** `groups.<group>.pulls.byCode.<name>` for every group and name: expectation names. */
export function pullCodeFigureNames(groups: readonly { name: string }[]): string[] {
  return groups.flatMap((g) => PULL_CODE_NAMES.map((n) => `groups.${g.name}.pulls.byCode.${n}`));
}
