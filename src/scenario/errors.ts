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
  constructor(
    readonly path: string,
    message: string,
  ) {
    super(path === "" ? message : `${path}: ${message}`);
    this.name = "InputError";
    this.reason = message;
  }
}

/** Renders a user-supplied value for an error message: strings quoted, objects as JSON, long text cut. */
export function describeValue(value: unknown): string {
  let text: string;
  if (typeof value === "string") text = JSON.stringify(value);
  else if (typeof value === "number" || typeof value === "boolean" || value === null || value === undefined) {
    text = String(value);
  } else {
    try {
      text = JSON.stringify(value) ?? String(value);
    } catch {
      text = String(value);
    }
  }
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}
