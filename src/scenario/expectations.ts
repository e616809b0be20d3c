// A scenario's `expect` list: strings in the expectation language (expectParser.ts), parsed against
// the names the scenario's summary will have. Errors are InputErrors at `expect.<i>`.
import { InputError } from "./errors.ts";
import { ExpectError, parseExpectation, type ExpectNames, type Expectation } from "./expectParser.ts";
import type { GroupModel } from "./types.ts";
import { groupFigureNames, SUMMARY_FIGURES } from "./vocabulary.ts";

/** Most expectations a scenario may list: each is evaluated over every sample of the run. */
export const EXPECTATIONS_MAX = 1000;

export function parseScenarioExpectations(raw: unknown, groups: readonly GroupModel[]): { expect: string[]; expectations: Expectation[] } {
  if (raw === undefined) return { expect: [], expectations: [] };
  if (!Array.isArray(raw) || raw.some((e) => typeof e !== "string")) throw new InputError("expect", "must be a list of strings");
  if (raw.length > EXPECTATIONS_MAX) throw new InputError("expect", `lists ${raw.length} expectations; at most ${EXPECTATIONS_MAX} are allowed`);
  const expect = raw as string[];
  const names = expectNames(groups);
  const expectations = expect.map((e, i) => {
    try {
      return parseExpectation(e, names);
    } catch (err) {
      if (err instanceof ExpectError) throw new InputError(`expect.${i}`, err.message);
      throw err;
    }
  });
  return { expect, expectations };
}

const EXPECT_NAMES: ExpectNames = { summaryPaths: SUMMARY_FIGURES };
/**
 * Names an expectation may refer to: every numeric figure of the summary, and with the scenario's
 * groups `groups.<group>.<figure>` (and `groups.<group>.instances.<i>.<figure>` for BROADCASTING).
 */
export function expectNames(groups?: readonly GroupModel[]): ExpectNames {
  if (groups === undefined || groups.length === 0) return EXPECT_NAMES;
  return { summaryPaths: [...SUMMARY_FIGURES, ...groupFigureNames(groups)] };
}
