// PullCodeCounts: the pull answers of each group by response code, for the summary's groups[].pulls.byCode.
import { describe, expect, it } from "vitest";
import { ResponseCode } from "../protocol/codes.ts";
import { PULL_CODE_NAMES, PULL_NOT_SENT, PULL_TIMEOUT, PullCodeCounts } from "./pullCodes.ts";

const nonZero = (o: Record<string, number>) => Object.fromEntries(Object.entries(o).filter(([, n]) => n > 0));

describe("PullCodeCounts", () => {
  it("counts per group by name, lists every name in a fixed order, and puts unknown codes under OTHER", () => {
    const c = new PullCodeCounts();
    for (const code of [ResponseCode.NO_PERMISSION, ResponseCode.SUCCESS, ResponseCode.SUCCESS, PULL_TIMEOUT, PULL_NOT_SENT, 999, ResponseCode.INVALID_PARAMETER]) c.add(1, code);
    c.add(0, ResponseCode.PULL_NOT_FOUND);
    expect(nonZero(c.byCode(1))).toEqual({ SUCCESS: 2, NO_PERMISSION: 1, INVALID_PARAMETER: 1, TIMEOUT: 1, NOT_SENT: 1, OTHER: 1 });
    expect(nonZero(c.byCode(0))).toEqual({ PULL_NOT_FOUND: 1 });
    // Every name, zeros included, in PULL_CODE_NAMES order — also for a group that never pulled.
    expect(Object.keys(c.byCode(2))).toEqual([...PULL_CODE_NAMES]);
    expect(Object.values(c.byCode(2)).every((n) => n === 0)).toBe(true);
  });

  it("has a name for every response code a pull can get (codes.ts), each once", () => {
    expect(new Set(PULL_CODE_NAMES).size).toBe(PULL_CODE_NAMES.length);
    const c = new PullCodeCounts();
    const codes = [0, 1, 2, 16, 17, 19, 20, 21, 23, 24, 25, 26, 27, 28, 29, 215, PULL_TIMEOUT, PULL_NOT_SENT];
    for (const code of codes) c.add(0, code);
    expect(Object.keys(nonZero(c.byCode(0))).length).toBe(codes.length); // no two codes share a name, none is OTHER
    expect(c.byCode(0).OTHER).toBe(0);
  });
});
