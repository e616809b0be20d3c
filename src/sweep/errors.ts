// The sweep's error for input the user can fix (a --param, --require, --warmup, --shard or a shard
// file to merge). It is an InputError, so the CLI's one error mapping prints it as a single line and
// exits 2, without the sweep code importing anything from the CLI.
import { InputError } from "../scenario/errors.ts";

export class SweepInputError extends InputError {
  /**
   * @param where the option and argument as the user wrote them, e.g. `--param a.b=1,,2`
   * @param reason what is wrong and what would be accepted
   */
  constructor(where: string, reason: string) {
    super(where, reason);
    this.name = "SweepInputError";
  }
}
