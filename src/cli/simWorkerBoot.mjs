// Worker entry: a worker thread does not inherit the main thread's tsx loader, so register it here
// before loading the TypeScript worker body.
import { register } from "tsx/esm/api";

register();
await import("./simWorker.ts");
