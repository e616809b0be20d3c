// Errors that blame the user's input rather than the program.
//
// The CLI maps InputError to its own exit code and prints the message as is, so the message must
// stand alone: it names the field path first (so the user can find it in the scenario file) and
// then the bad value and what would have been accepted.

/** A bad value in user input (scenario file or command line), located by its field path. */
export class InputError extends Error {
  /** The explanation without the path prefix, for callers that print the path themselves. */
  readonly reason: string;

  /**
   * @param path dotted field path, e.g. `groups.0.config.pullBatchSize`; empty for the input as a whole;
   *   or, for a bad option, the option as written, e.g. `--set groups.9.name`
   * @param message the bad value and the accepted range or forms
   */
  /** The dotted field path (a key longer than 40 characters cut with "…"). */
  readonly path: string;

  constructor(path: string, message: string) {
    const shown = shortPath(path);
    super(shown === "" ? message : `${shown}: ${message}`);
    this.path = shown;
    this.name = "InputError";
    this.reason = message;
  }
}

/** Longest key shown in a field path: a path is built from the user's own keys, which may be 1 MB long. */
const PATH_KEY_SHOWN_MAX = 40;

function shortPath(path: string): string {
  if (path.length <= PATH_KEY_SHOWN_MAX) return path;
  return path
    .split(".")
    .map((k) => (k.length > PATH_KEY_SHOWN_MAX ? `${k.slice(0, PATH_KEY_SHOWN_MAX - 1)}…` : k))
    .join(".");
}

/** Longest rendering of a value in a message: a 1 MB string in a scenario must not be echoed whole. */
export const VALUE_SHOWN_MAX = 80;
/** How deep describeValue looks into a value: deeper parts are shown as {…} / […], so no input can overflow the stack. */
const DEPTH_SHOWN_MAX = 3;

/**
 * Renders a user-supplied value for an error message: strings quoted, objects as JSON, a missing value
 * as "nothing" (never "undefined"). Longer than VALUE_SHOWN_MAX characters it is cut with "…" and its
 * size is added — `"xxxx…" (1000000 characters)`, `[1,2,…] (a list of 5000)` — and only as much of it
 * is looked at as is shown, so neither a huge nor a deeply nested value costs more than a glance.
 */
export function describeValue(value: unknown): string {
  if (value === undefined) return "nothing";
  const budget = { left: VALUE_SHOWN_MAX + 1 };
  const text = render(value, DEPTH_SHOWN_MAX, budget);
  if (text.length <= VALUE_SHOWN_MAX) return text;
  return `${text.slice(0, VALUE_SHOWN_MAX - 1)}… ${sizeOf(value)}`;
}

/** `missing; expected …` — the message for an absent required field (not "undefined is not …"). */
export function missing(expected: string): string {
  return `missing; expected ${expected}`;
}

/** `expected <what>, got <value>`, or `missing; expected <what>` when there is no value. */
export function expectedGot(what: string, value: unknown): string {
  return value === undefined ? missing(what) : `expected ${what}, got ${describeValue(value)}`;
}

/**
 * A list of choices for a message, cut after about `charsMax` characters with how many were left out
 * (a group config has 30-odd keys, the fault kinds 24: a message stays a few lines).
 */
export function listChoices(choices: readonly string[], charsMax = 120, quote = false): string {
  const shown: string[] = [];
  let length = 0;
  for (const c of choices) {
    const item = quote ? JSON.stringify(c) : c;
    if (shown.length > 0 && length + item.length + 2 > charsMax) {
      return `${shown.join(", ")}, … and ${choices.length - shown.length} more`;
    }
    shown.push(item);
    length += item.length + 2;
  }
  return shown.join(", ");
}

function sizeOf(value: unknown): string {
  if (typeof value === "string") return `(${value.length} characters)`;
  if (Array.isArray(value)) return `(a list of ${value.length})`;
  if (typeof value === "object" && value !== null) return `(an object of ${Object.keys(value).length} keys)`;
  return "";
}

/** JSON-like text of `value`, stopping once `budget.left` characters are spent or `depth` runs out. */
function render(value: unknown, depth: number, budget: { left: number }): string {
  let text: string;
  switch (typeof value) {
    case "string": {
      const room = Math.max(0, budget.left);
      text = JSON.stringify(value.length > room ? value.slice(0, room) : value);
      if (value.length > room) text = text.slice(0, -1); // the cut string has no closing quote
      break;
    }
    case "number":
    case "boolean":
      text = String(value);
      break;
    case "bigint":
      text = `${value}n`;
      break;
    case "undefined":
      text = "nothing";
      break;
    case "object":
      text = value === null ? "null" : renderContainer(value, depth, budget);
      break;
    default:
      text = `a ${typeof value}`;
  }
  budget.left -= text.length;
  return text;
}

function renderContainer(value: object, depth: number, budget: { left: number }): string {
  const list = Array.isArray(value);
  const [open, close] = list ? ["[", "]"] : ["{", "}"];
  const keys = list ? [] : Object.keys(value);
  const count = list ? (value as unknown[]).length : keys.length;
  if (count === 0) return `${open}${close}`;
  if (depth <= 0) return `${open}…${close}`;
  const inner = { left: budget.left - 2 };
  const parts: string[] = [];
  for (let i = 0; i < count && inner.left > 0; i++) {
    if (list) parts.push(render((value as unknown[])[i], depth - 1, inner));
    else {
      const k = keys[i]!;
      const key = render(k, 0, inner);
      parts.push(`${key}:${render((value as Record<string, unknown>)[k], depth - 1, inner)}`);
    }
    inner.left -= 1;
  }
  return `${open}${parts.join(",")}${parts.length < count ? ",…" : ""}${close}`;
}
