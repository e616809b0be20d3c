// Test helper: the InputError normalizeScenario throws for a scenario that must be refused (left out of
// the published build, like every src/**/test*.ts).
import { InputError } from "./errors.ts";
import { normalizeScenario } from "./normalize.ts";

/** Normalises `input` and returns the InputError it must throw; fails the test if it is accepted. */
export function rejection(input: unknown): InputError {
  try {
    normalizeScenario(input as never);
  } catch (e) {
    if (e instanceof InputError) return e;
    throw e;
  }
  throw new Error("expected an InputError, but the scenario was accepted");
}
