// A broker entry's replicas (broker spec §4, §5): how many nodes the group has, in which mode, and how
// far behind the master a slave's copy of the commit log runs.
import { compileDist } from "./distributions.ts";
import { InputError } from "./errors.ts";
import { checkKeys, isRecord, readEnum } from "./read.ts";
import type { ReplicationModel } from "./types.ts";

/** HA transfer + the slave's dispatch on a LAN: the master pushes as data arrives (§4.2). */
export const REPLICATION_LAG_DEFAULT = "2ms";

/**
 * `replicas: [{ "role": "SLAVE" }, …]` (1–2; DLedger: FOLLOWER), `brokerRole`, and `replication:
 * { mode: "classic" | "dledger", lag }` (broker spec §4.1–§4.2, §5). Nothing given: a single node.
 */
export function normalizeReplication(raw: Record<string, unknown>, path: string, profile: string): ReplicationModel | undefined {
  if (raw.replicas === undefined) {
    for (const k of ["brokerRole", "replication"]) if (raw[k] !== undefined) throw new InputError(`${path}.${k}`, 'needs "replicas": the broker\'s slaves, like [{ "role": "SLAVE" }]');
    return undefined;
  }
  let mode: ReplicationModel["mode"] = "classic";
  let actingMaster = false;
  let lag = compileDist(REPLICATION_LAG_DEFAULT, "duration", `${path}.replication.lag`);
  if (raw.replication !== undefined) {
    if (!isRecord(raw.replication)) throw new InputError(`${path}.replication`, "must be an object like { \"mode\": \"classic\", \"lag\": \"2ms\" }");
    checkKeys(raw.replication, ["mode", "lag", "actingMaster"], `${path}.replication`);
    if (raw.replication.mode !== undefined) mode = readEnum(raw.replication, "mode", `${path}.replication.mode`, ["classic", "dledger"] as const);
    if (raw.replication.lag !== undefined) lag = compileDist(raw.replication.lag, "duration", `${path}.replication.lag`);
    if (raw.replication.actingMaster !== undefined) {
      const p = `${path}.replication.actingMaster`;
      if (typeof raw.replication.actingMaster !== "boolean") throw new InputError(p, "must be true or false");
      actingMaster = raw.replication.actingMaster;
      if (actingMaster && (profile !== "5.x" || mode !== "classic")) throw new InputError(p, 'slave-acting-master is a 5.x feature of classic groups (RIP-32): needs "profile": "5.x" and mode "classic"');
    }
  }
  const role = mode === "dledger" ? "FOLLOWER" : "SLAVE";
  if (!Array.isArray(raw.replicas) || raw.replicas.length < 1 || raw.replicas.length > 2) {
    throw new InputError(`${path}.replicas`, `must list 1 or 2 replicas, like [{ "role": "${role}" }]`);
  }
  raw.replicas.forEach((r, i) => {
    const p = `${path}.replicas.${i}`;
    if (!isRecord(r)) throw new InputError(p, `must be an object like { "role": "${role}" }`);
    checkKeys(r, ["role"], p);
    if (r.role !== undefined) readEnum(r, "role", `${p}.role`, [role] as const);
  });
  if (mode === "dledger" && raw.replicas.length !== 2) throw new InputError(`${path}.replicas`, "a DLedger group has 3 nodes: list 2 followers");
  let brokerRole: ReplicationModel["brokerRole"] = "ASYNC_MASTER";
  if (raw.brokerRole !== undefined) {
    if (mode === "dledger") throw new InputError(`${path}.brokerRole`, "is decided by the DLedger election (leader: SYNC_MASTER); leave it out");
    brokerRole = readEnum(raw, "brokerRole", `${path}.brokerRole`, ["ASYNC_MASTER", "SYNC_MASTER"] as const);
  }
  return { mode, brokerRole: mode === "dledger" ? "SYNC_MASTER" : brokerRole, replicas: raw.replicas.length, lag, actingMaster };
}

