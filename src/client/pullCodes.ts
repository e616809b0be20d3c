// Pull answers by response code, per group (summary `groups[].pulls.byCode`; the names are in
// src/scenario/pullCodeNames.ts), counted by the client where it counts its pulls (ClientStats.pulls):
// each answer as it arrives, each RPC time-out as "TIMEOUT", and each pull that failed before it was sent
// (no route, connection refused, §2 step 11) as "NOT_SENT" — so the counts of every group add up to the
// summary's pulls.total. A count is one array increment.
import { ResponseCode } from "../protocol/codes.ts";
import { PULL_CODE_NAMES, type PullCodeName } from "../scenario/pullCodeNames.ts";

/** The pseudo-codes: an RPC time-out, and a pull that could not be sent. */
export const PULL_TIMEOUT = -1;
export const PULL_NOT_SENT = -2;

const NAMES = PULL_CODE_NAMES;
export type { PullCodeName };
export { PULL_CODE_NAMES };

/** A code's slot in NAMES. */
function slotOf(code: number): number {
  switch (code) {
    case ResponseCode.SUCCESS: return 0;
    case ResponseCode.PULL_NOT_FOUND: return 1;
    case ResponseCode.PULL_RETRY_IMMEDIATELY: return 2;
    case ResponseCode.PULL_OFFSET_MOVED: return 3;
    case ResponseCode.NO_PERMISSION: return 4;
    case ResponseCode.SUBSCRIPTION_GROUP_NOT_EXIST: return 5;
    case ResponseCode.TOPIC_NOT_EXIST: return 6;
    case ResponseCode.INVALID_PARAMETER: return 7;
    case ResponseCode.SUBSCRIPTION_PARSE_FAILED: return 8;
    case ResponseCode.SUBSCRIPTION_NOT_EXIST: return 9;
    case ResponseCode.SUBSCRIPTION_NOT_LATEST: return 10;
    case ResponseCode.FILTER_DATA_NOT_EXIST: return 11;
    case ResponseCode.FILTER_DATA_NOT_LATEST: return 12;
    case ResponseCode.SYSTEM_ERROR: return 13;
    case ResponseCode.SYSTEM_BUSY: return 14;
    case ResponseCode.FLOW_CONTROL: return 15;
    case PULL_TIMEOUT: return 16;
    case PULL_NOT_SENT: return 17;
    default: return 18;
  }
}

export class PullCodeCounts {
  /** Per group index, a count per slot; a group's row is made at its first pull. */
  private readonly rows: Float64Array[] = [];

  add(group: number, code: number): void {
    let row = this.rows[group];
    if (row === undefined) row = this.rows[group] = new Float64Array(NAMES.length);
    row[slotOf(code)]! += 1;
  }

  /** The group's count of every name, zeros included (a stable shape for expectations), in NAMES order. */
  byCode(group: number): Record<PullCodeName, number> {
    const out = {} as Record<PullCodeName, number>;
    const row = this.rows[group];
    for (let i = 0; i < NAMES.length; i++) out[NAMES[i]!] = row === undefined ? 0 : row[i]!;
    return out;
  }
}
