// The fault plan: schedules every fault of the scenario as a start event (and an end event for faults
// that last `for` a while or restart after a delay), applies each through the knobs the components
// expose, and keeps a record of what each one did for the summary and the charts.
import type { Cluster } from "../model/Cluster.ts";
import type { FaultRecord, Marker } from "../model/records.ts";
import type { LinkFault } from "../net/Network.ts";
import type { FaultModel, QueueRef } from "../scenario/faultTypes.ts";
import { applyUpdateTopic } from "./updateTopic.ts";
import { applyResetOffset } from "./resetOffset.ts";
import { BrokerPermissionFaults } from "./brokerPermission.ts";

const PHASE_START = 0;
const PHASE_END = 1;

export class FaultPlan {
  readonly records: FaultRecord[] = [];
  private readonly activeLinks = new Map<number, LinkFault>();
  /** The old master of each failover, restarted at its end. */
  private readonly failedOver = new Map<number, number>();
  /** The instances each consumerCrash actually crashed (by fault index): only those restart after it. */
  private readonly crashedBy = new Map<number, number[]>();
  private kind = -1;
  private readonly traceType: number;
  private readonly permissions: BrokerPermissionFaults;

  constructor(
    private readonly cl: Cluster,
    private readonly faults: readonly FaultModel[],
    /** Chart markers, shared with the recorder. */
    private readonly markers: Marker[],
  ) {
    this.traceType = cl.trace.defineType("fault", ["index", "phase"]);
    this.permissions = new BrokerPermissionFaults(cl);
  }

  /** Defines the fault event kind and schedules every fault's start. */
  schedule(): void {
    const sched = this.cl.sched;
    this.kind = sched.defineKind("fault", (index, phase) => this.apply(this.faults[index]!, phase));
    for (const f of this.faults) sched.scheduleAt(f.atUs, this.kind, f.index, PHASE_START);
  }

  private apply(f: FaultModel, phase: number): void {
    const cl = this.cl;
    const now = cl.sched.nowUs;
    cl.trace.emit(this.traceType, now, f.index, phase);
    if (phase === PHASE_START) {
      const record: FaultRecord = { index: f.index, kind: f.kind, label: f.label, atMs: now / 1000, endMs: null, effect: "" };
      this.records.push(record);
      record.effect = this.start(f);
      this.markers.push({ tUs: now, kind: "fault", label: f.label });
      const endAfter = "forUs" in f ? f.forUs : "restartAfterUs" in f ? f.restartAfterUs : null;
      if (endAfter !== null && endAfter !== undefined) cl.sched.scheduleIn(endAfter, this.kind, f.index, PHASE_END);
    } else {
      const record = this.records.find((r) => r.index === f.index && r.endMs === null);
      if (record) record.endMs = now / 1000;
      const effect = this.end(f);
      if (record && effect) record.effect += `; ${effect}`;
      this.markers.push({ tUs: now, kind: "fault", label: `end ${f.label}` });
    }
  }

  private start(f: FaultModel): string {
    const cl = this.cl;
    switch (f.kind) {
      case "consumerStart":
        return f.consumers.map((c) => (this.startInstance(c) ? cl.consumers[c]!.clientId : null)).filter(Boolean).join(", ") + " started";
      case "consumerStop":
        return this.describeStops(f.consumers, (c) => cl.consumers[c]!.shutdown(), "stopped cleanly");
      case "consumerCrash": {
        const what = `crashed (${f.mode}${f.loseLocalOffsets ? ", local offsets lost" : ""})`;
        const crashed: number[] = [];
        this.crashedBy.set(f.index, crashed);
        return this.describeStops(f.consumers, (c) => {
          crashed.push(c);
          cl.consumers[c]!.crash(f.mode);
          if (f.loseLocalOffsets) cl.localOffsetFiles[c]?.clear();
        }, what);
      }
      case "pause":
        for (const c of f.consumers) cl.consumers[c]!.paused = true;
        return `${f.consumers.length} instance(s) paused`;
      case "resume":
        for (const c of f.consumers) this.resume(c);
        return `${f.consumers.length} instance(s) resumed`;
      case "scale":
        return this.scale(f.group, f.instances);
      case "duplicateClientId": {
        const shared = cl.consumers[f.sameAs]!.clientId;
        cl.consumers[f.consumer]!.shutdown();
        const c = cl.reincarnate(f.consumer, shared);
        if (cl.startIncarnation(c)) return `instance will start at ${c.groupModel.startAtUs / 1000} ms with client id ${shared}`;
        return `instance restarted with client id ${shared}`;
      }
      case "brokerCrash": {
        const node = cl.nodes[f.node]!;
        const unflushed = node.offsets.unflushedCount();
        const lost = cl.crashNode(f.node, f.loseUs === null ? Infinity : cl.sched.nowUs - f.loseUs);
        const tail = f.loseUs === null ? "" : `; ${lost} message(s) of the commit-log tail lost`;
        const role = node.replica === null ? "broker" : node.isSlave ? "slave" : "master";
        return `${role} down; ${unflushed} offset(s) not yet flushed will be lost${tail}`;
      }
      case "roleSwap":
      case "leaderChange":
        return cl.promoteSlave(f.broker, f.kind === "leaderChange") ?? "no slave is up: nothing changed";
      case "failover": {
        // The master dies and a controller elects its best slave (broker spec §4.11).
        const old = cl.brokers[f.broker]!;
        this.failedOver.set(f.index, old.node);
        const unflushed = old.offsets.unflushedCount();
        cl.crashNode(old.node);
        const promoted = cl.promoteSlave(f.broker, true) ?? "no slave is up: the group has no master";
        return `master down (${unflushed} offset(s) not yet flushed lost); ${promoted}`;
      }
      case "sendBackFailure":
        cl.brokers[f.broker]!.sendBack.failure = { probability: f.probability, mode: f.mode, rng: cl.streams.get(`fault/${f.index}/sendBackFailure`) };
        return `CONSUMER_SEND_MSG_BACK ${f.mode === "error" ? "answered SYSTEM_ERROR" : "left unanswered (5 s time-out)"}${f.probability < 1 ? ` with probability ${f.probability}` : ""}: clients fall back to sending the retry through their internal producer`;
      case "lostWakeup": {
        const proc = cl.brokers[f.broker]!.processor;
        proc.lostWakeup = { probability: f.probability, mq: f.queue === null ? -1 : this.queueOf(f.queue), rng: cl.streams.get(`fault/${f.index}/lostWakeup`) };
        return `arrival wake-ups of held pulls lost${f.probability < 1 ? ` with probability ${f.probability}` : ""}: they wait for the hold check (5 s)`;
      }
      case "replicationStall":
        cl.setReplicationStalled(f.broker, f.node, true);
        return "replication stopped: the slave's copy of the commit log stays where it is";
      case "brokerReadOnly":
        cl.setBrokerWritable(f.broker, false);
        return "write permission removed: producers leave it at their next route poll (≤ 30 s)";
      case "offsetQueryError":
        cl.brokers[f.broker]!.consumerManage.offsetQueryError = { code: f.code === "SYSTEM_BUSY" ? 2 : 1, probability: f.probability };
        return `QUERY_CONSUMER_OFFSET answered ${f.code}${f.probability < 1 ? ` with probability ${f.probability}` : ""}`;
      case "latency":
      case "loss":
      case "partition":
        this.activeLinks.set(f.index, {
          clients: f.clients, brokers: f.brokers,
          extraUs: f.kind === "latency" ? f.extraUs : 0,
          latency: f.kind === "latency" ? f.latency ?? undefined : undefined,
          lossProbability: f.kind === "loss" ? f.probability : 0,
          partition: f.kind === "partition",
        });
        cl.net.setLinkFaults([...this.activeLinks.values()]);
        return `${f.clients.length * f.brokers.length} client↔broker link(s) affected`;
      case "offsetIllegal": {
        const mq = this.queueOf(f.queue);
        for (const g of f.groups) cl.brokers[f.queue.broker]!.injectOffsetMoved(g, mq, f.nextBeginOffset);
        return `next pull of ${cl.routes.queues[mq]!.topic}#${f.queue.queueId} answered PULL_OFFSET_MOVED → ${f.nextBeginOffset}`;
      }
      case "truncate":
        return cl.brokers[f.queue.broker]!.truncate(this.queueOf(f.queue), f.offset);
      case "hangMessage":
        cl.listeners.armHang(this.queueOf(f.queue), f.durationUs);
        return f.durationUs === null ? "next message on the queue never returns" : `next message on the queue takes ${f.durationUs / 1000} ms`;
      case "consumeTime":
        cl.listeners.behaviour[f.group]!.consumeTime = f.consumeTime;
        return "consume-time distribution changed";
      case "failureProbability":
        cl.listeners.behaviour[f.group]!.failureProbability = f.probability;
        return `failure probability now ${f.probability}`;
      case "updateTopic":
        return applyUpdateTopic(cl, f);
      case "resetOffset":
        return applyResetOffset(cl, f);
      case "brokerPermission":
      case "updateSubscriptionGroup":
        return this.permissions.start(f);
    }
  }

  private end(f: FaultModel): string {
    const cl = this.cl;
    switch (f.kind) {
      case "consumerCrash": {
        // An instance that was not running when the crash came (not started yet, already stopped) was
        // not crashed, so it is not restarted; nor is one started again meanwhile. A second incarnation
        // beside a live one would consume every queue twice under one client id.
        const crashed = this.crashedBy.get(f.index) ?? [];
        for (const c of crashed) this.startInstance(c);
        return crashed.length === f.consumers.length ? "restarted" : `${crashed.length} of ${f.consumers.length} instance(s) restarted (the others were not running at the crash)`;
      }
      case "pause":
        for (const c of f.consumers) this.resume(c);
        return "resumed";
      case "brokerCrash":
        cl.restartNode(f.node);
        return cl.nodes[f.node]!.replica === null ? "broker restarted" : `restarted as ${cl.nodes[f.node]!.isSlave ? "slave" : "master"}`;
      case "failover": {
        const n = this.failedOver.get(f.index);
        if (n === undefined) return "";
        cl.restartNode(n);
        return `old master restarted as ${cl.nodes[n]!.isSlave ? "slave" : "master"}`;
      }
      case "sendBackFailure": {
        const sb = cl.brokers[f.broker]!.sendBack;
        sb.failure = null;
        return `${sb.failed} send-back(s) failed`;
      }
      case "lostWakeup": {
        const proc = cl.brokers[f.broker]!.processor;
        proc.lostWakeup = null;
        return `${proc.wakeupsLost} wake-up(s) lost so far`;
      }
      case "replicationStall":
        cl.setReplicationStalled(f.broker, f.node, false);
        return "replication resumed";
      case "brokerReadOnly":
        cl.setBrokerWritable(f.broker, true);
        return "writable again (back in the producers' routes at their next poll)";
      case "offsetQueryError":
        cl.brokers[f.broker]!.consumerManage.offsetQueryError = null;
        return "offset queries answered again";
      case "brokerPermission":
      case "updateSubscriptionGroup":
        return this.permissions.end(f);
      case "latency":
      case "loss":
      case "partition":
        this.activeLinks.delete(f.index);
        cl.net.setLinkFaults([...this.activeLinks.values()]);
        return "links healed";
      case "consumeTime":
        cl.listeners.behaviour[f.group]!.consumeTime = cl.model.groups[f.group]!.consumeTime;
        return "consume time restored";
      case "failureProbability":
        cl.listeners.behaviour[f.group]!.failureProbability = cl.model.groups[f.group]!.failureProbability;
        return "failure probability restored";
      default:
        return "";
    }
  }

  /** The global queue index of `Topic@broker#queueId`. */
  private queueOf(ref: QueueRef): number {
    const routes = this.cl.routes;
    return routes.topicQueues(ref.topic).find((q) => routes.queues[q]!.brokerIndex === ref.broker && routes.queues[q]!.queueId === ref.queueId)!;
  }

  /** Starts an instance that is not running: the first start, or a new incarnation after a stop. */
  private startInstance(index: number): boolean {
    const cl = this.cl;
    let c = cl.consumers[index]!;
    if (c.state === "RUNNING" && !c.shuttingDown) return false;
    if (c.state === "RUNNING") {
      // Still shutting down: the restarted process comes up once the old one has exited.
      c.whenShutDown(() => this.startInstance(index));
      return true;
    }
    if (c.state !== "CREATE_JUST") c = cl.reincarnate(index);
    c.start();
    return true;
  }

  /** DefaultMQPushConsumer#resume: unpause and rebalance at once. */
  private resume(index: number): void {
    const c = this.cl.consumers[index]!;
    if (!c.paused) return;
    c.paused = false;
    if (c.state === "RUNNING") c.rebalance.wakeup();
  }

  private scale(group: number, n: number): string {
    const slots = this.cl.consumers.filter((c) => c.group === group);
    let started = 0;
    let stopped = 0;
    for (const c of slots) {
      if (c.instance < n && c.state !== "RUNNING") {
        if (this.startInstance(c.index)) started++;
      } else if (c.instance >= n && c.state === "RUNNING" && !c.shuttingDown) {
        c.shutdown();
        stopped++;
      }
    }
    return `${started} started, ${stopped} stopped (now ${n})`;
  }

  private describeStops(consumers: number[], stop: (c: number) => void, what: string): string {
    const parts: string[] = [];
    for (const c of consumers) {
      const inst = this.cl.consumers[c]!;
      if (inst.state !== "RUNNING") continue;
      const queues = inst.rebalance.queueCount;
      const cached = inst.rebalance.processQueues().reduce((a, [, pq]) => a + pq.msgCount, 0);
      stop(c);
      parts.push(`${inst.clientId} ${what} holding ${queues} queue(s), ${cached} cached message(s)`);
    }
    return parts.length > 0 ? parts.join("; ") : "no running instance";
  }
}
