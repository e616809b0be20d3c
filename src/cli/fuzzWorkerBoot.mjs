// Fuzz worker entry: registers the tsx loader (workers do not inherit it), then loads the body.
import { register } from "tsx/esm/api";

register();
await import("./fuzzWorker.ts");
