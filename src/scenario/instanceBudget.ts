// How many consumer instances a scenario may run (issue 15 item 3).
//
// A consumer's first heartbeat registers it on every broker node (replicas too: consumers heartbeat
// every address of the route), and each registration makes that node send NOTIFY_CONSUMER_IDS_CHANGED
// to every member of the group already registered — RocketMQ's real behaviour, kept. When n instances
// start together (t = 0, a scale fault, a redeploy) the k-th registration sends k notifications per
// node, and they are all on the wire at once: about n² × nodes / 2 events pending in the scheduler.
// Measured (bench/instanceBudget.ts): the peak is 0.465–0.49 × Σ n² × nodes at the start of a run
// (n = 400 on 1 node: 74 510; on 2 nodes: 143 490; 2 groups of 400: 146 601; n = 1 600: 1 213 283;
// phase "random" changes nothing: the first heartbeats go out at start), so n ≈ 3 000 on one node
// overflows the scheduler's 4 194 304 pending slots (2^22). At the limits below the peak is 46–48 % of them.
//
// The bound: Σ over groups of n² × nodes / 2 ≤ 2^21 — half the scheduler's slots, leaving the other
// half for everything else pending at that moment (pulls, timers, messages in flight). With one group
// on one node that is n ≤ 2 048; on 2 nodes 1 448; on 4 nodes 1 024. n is the most instances a group
// may ever run: `instances`, a `scale` fault's `instances`, or the highest instance a fault names.
import { InputError } from "./errors.ts";
import { isRecord, readInt } from "./read.ts";

/** Σ n² × nodes / 2 at most: notifications in flight when every group starts at once. */
export const NOTIFICATIONS_IN_FLIGHT_MAX = 2 ** 21;
/** The most instances a group may run at all: one group on one broker node, √(2 × 2^21). */
export const INSTANCES_MAX = 2048;

const WHY = "each registration makes every broker node notify every member of the group (NOTIFY_CONSUMER_IDS_CHANGED)";

/** The most instances a group may run next to groups whose instance counts square to `othersSquared`. */
export function instancesMaxWith(nodes: number, othersSquared = 0): number {
  return Math.floor(Math.sqrt(Math.max(0, (2 * NOTIFICATIONS_IN_FLIGHT_MAX) / nodes - othersSquared)));
}

/** A group's `instances` or a scale fault's: a whole number in [min, INSTANCES_MAX], saying why above. */
export function readInstances(obj: Record<string, unknown>, key: string, path: string, min: number): number {
  const v = obj[key];
  if (typeof v === "number" && Number.isInteger(v) && v > INSTANCES_MAX) {
    throw new InputError(path, `${v} is more than ${INSTANCES_MAX}, the most consumer instances a group may run (with one broker node; fewer with more): ${WHY}, n² × nodes / 2 notifications at once`);
  }
  return readInt(obj, key, path, min, INSTANCES_MAX);
}

interface GroupName {
  name: string;
  instances: number;
}

/** The most instances each group may run, and the field that asks for that many. */
export interface InstancesWanted {
  count: number;
  path: string;
}

/** Per group: its `instances`, raised by scale faults and by the highest instance a fault targets. */
export function instancesWanted(faults: unknown, groups: readonly GroupName[]): InstancesWanted[] {
  const wanted = groups.map((g, gi) => ({ count: g.instances, path: `groups.${gi}.instances` }));
  if (!Array.isArray(faults)) return wanted;
  faults.forEach((f: unknown, fi) => {
    if (!isRecord(f) || typeof f.target !== "string") return;
    const target = f.target;
    const gi = groups.findIndex((g) => target === g.name || target.startsWith(`${g.name}/`));
    if (gi < 0) return;
    const w = wanted[gi]!;
    const n = f.instances;
    if (f.kind === "scale" && typeof n === "number" && Number.isInteger(n) && n > w.count && n <= INSTANCES_MAX) {
      Object.assign(w, { count: n, path: `faults.${fi}.instances` });
    }
    const named = /\/(\d+)$/.exec(target);
    const index = named ? Number(named[1]) : -1;
    if (index >= w.count && index < INSTANCES_MAX) Object.assign(w, { count: index + 1, path: `faults.${fi}.target` });
  });
  return wanted;
}

/** Refuses instance counts whose start-up notifications would not fit the scheduler (see the file header). */
export function checkInstanceBudget(wanted: readonly InstancesWanted[], nodes: number): void {
  const squares = wanted.reduce((sum, w) => sum + w.count * w.count, 0);
  const inFlight = (squares * nodes) / 2;
  if (inFlight <= NOTIFICATIONS_IN_FLIGHT_MAX) return;
  // Blame the largest group: lowering it helps most.
  let worst = wanted[0]!;
  for (const w of wanted) if (w.count > worst.count) worst = w;
  const others = squares - worst.count * worst.count;
  const limit = instancesMaxWith(nodes, others);
  const nodesText = `${nodes} broker node${nodes === 1 ? "" : "s"}`;
  const besides = others > 0 ? " next to the other groups' instances" : "";
  throw new InputError(
    worst.path,
    `${worst.count} consumer instances with ${nodesText}${besides} are more than the simulator can hold (at most ${limit} here): ` +
      `${WHY}, so Σ n² × nodes / 2 = ${Math.round(inFlight)} notifications are in flight at once, above ${NOTIFICATIONS_IN_FLIGHT_MAX}`,
  );
}
