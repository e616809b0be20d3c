// The fault plan: schedules every fault of the scenario as a start event (and an end event for faults
// that last `for` a while or restart after a delay), applies them through the knobs the components
// expose, and keeps a record of what each one did for the summary and the charts.
import type { World } from "../model/World.ts";
import type { LinkFault } from "../net/Network.ts";
import type { FaultModel } from "../scenario/faultTypes.ts";

export interface FaultRecord {
  index: number;
  kind: string;
  label: string;
  atMs: number;
  endMs: number | null;
  /** What the fault changed when it hit, in words and figures. */
  effect: string;
}

const PHASE_START = 0;
const PHASE_END = 1;

export class FaultPlan {
  readonly records: FaultRecord[] = [];
  private readonly activeLinks = new Map<number, LinkFault>();
  private kind = -1;

  constructor(
    private readonly w: World,
    private readonly faults: readonly FaultModel[],
  ) {}

  /** Defines the fault event kind and schedules every fault's start. */
  schedule(): void {
    const w = this.w;
    this.kind = w.sched.defineKind("fault", (index, phase) => this.apply(this.faults[index]!, phase));
    for (const f of this.faults) w.sched.scheduleAt(f.atUs, this.kind, f.index, PHASE_START);
  }

  private apply(f: FaultModel, phase: number): void {
    const w = this.w;
    const now = w.sched.nowUs;
    w.trace.emit(w.T.fault, now, f.index, phase);
    if (phase === PHASE_START) {
      const record: FaultRecord = { index: f.index, kind: f.kind, label: f.label, atMs: now / 1000, endMs: null, effect: "" };
      this.records.push(record);
      record.effect = this.start(f);
      w.markers.push({ tUs: now, kind: "fault", label: f.label });
      const endAfter = "forUs" in f ? f.forUs : "restartAfterUs" in f ? f.restartAfterUs : null;
      if (endAfter !== null && endAfter !== undefined) w.sched.scheduleIn(endAfter, this.kind, f.index, PHASE_END);
    } else {
      const record = this.records.find((r) => r.index === f.index && r.endMs === null);
      if (record) record.endMs = now / 1000;
      const effect = this.end(f);
      if (record && effect) record.effect += `; ${effect}`;
      w.markers.push({ tUs: now, kind: "fault", label: `end ${f.label}` });
    }
  }

  private start(f: FaultModel): string {
    const w = this.w;
    switch (f.kind) {
      case "consumerStart":
        return f.consumers.map((c) => (this.startInstance(c) ? w.consumers[c]!.clientId : null)).filter(Boolean).join(", ") + " started";
      case "consumerStop":
        return this.describeStops(f.consumers, (c) => w.consumers[c]!.shutdown(), "stopped cleanly");
      case "consumerCrash":
        return this.describeStops(f.consumers, (c) => w.consumers[c]!.crash(f.mode), `crashed (${f.mode})`);
      case "pause":
        for (const c of f.consumers) w.consumers[c]!.paused = true;
        return `${f.consumers.length} instance(s) paused`;
      case "resume":
        for (const c of f.consumers) this.resume(c);
        return `${f.consumers.length} instance(s) resumed`;
      case "scale":
        return this.scale(f.group, f.instances);
      case "duplicateClientId": {
        const shared = w.consumers[f.sameAs]!.clientId;
        w.consumers[f.consumer]!.shutdown();
        const c = w.reincarnate(f.consumer, shared);
        c.start();
        return `instance restarted with client id ${shared}`;
      }
      case "brokerCrash": {
        const b = w.brokers[f.broker]!;
        const unflushed = b.unflushedOffsetCount();
        b.crash();
        return `broker down; ${unflushed} offset(s) not yet flushed will be lost`;
      }
      case "brokerReadOnly":
        w.setBrokerWritable(f.broker, false);
        return "no new messages written to the broker";
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
        w.net.setLinkFaults([...this.activeLinks.values()]);
        return `${f.clients.length * f.brokers.length} client↔broker link(s) affected`;
      case "offsetIllegal":
        return w.injectOffsetMoved(f.queue, f.groups, f.nextBeginOffset);
      case "truncate":
        return w.truncateQueue(f.queue, f.offset);
      case "hangMessage":
        w.armHang(f.queue, f.durationUs);
        return f.durationUs === null ? "next message on the queue never returns" : `next message on the queue takes ${f.durationUs / 1000} ms`;
      case "consumeTime":
        w.listener(f.group).consumeTime = f.consumeTime;
        return "consume-time distribution changed";
      case "failureProbability":
        w.listener(f.group).failureProbability = f.probability;
        return `failure probability now ${f.probability}`;
    }
  }

  private end(f: FaultModel): string {
    const w = this.w;
    switch (f.kind) {
      case "consumerCrash":
        for (const c of f.consumers) {
          const inc = w.reincarnate(c);
          inc.start();
        }
        return "restarted";
      case "pause":
        for (const c of f.consumers) this.resume(c);
        return "resumed";
      case "brokerCrash":
        w.brokers[f.broker]!.restart();
        return "broker restarted";
      case "brokerReadOnly":
        w.setBrokerWritable(f.broker, true);
        return "writable again";
      case "latency":
      case "loss":
      case "partition":
        this.activeLinks.delete(f.index);
        w.net.setLinkFaults([...this.activeLinks.values()]);
        return "links healed";
      case "consumeTime":
        w.listener(f.group).consumeTime = w.model.groups[f.group]!.consumeTime;
        return "consume time restored";
      case "failureProbability":
        w.listener(f.group).failureProbability = w.model.groups[f.group]!.failureProbability;
        return "failure probability restored";
      default:
        return "";
    }
  }

  /** Starts an instance that is not running: the first start, or a new incarnation after a stop. */
  private startInstance(index: number): boolean {
    const w = this.w;
    let c = w.consumers[index]!;
    if (c.state === "RUNNING") return false;
    if (c.state !== "CREATE_JUST") c = w.reincarnate(index);
    c.start();
    return true;
  }

  /** DefaultMQPushConsumer#resume: unpause and rebalance at once. */
  private resume(index: number): void {
    const c = this.w.consumers[index]!;
    if (!c.paused) return;
    c.paused = false;
    if (c.state === "RUNNING") c.rebalance.wakeup();
  }

  private scale(group: number, n: number): string {
    const w = this.w;
    const slots = w.consumers.filter((c) => c.group === group);
    let started = 0;
    let stopped = 0;
    for (const c of slots) {
      if (c.instance < n && c.state !== "RUNNING") {
        if (this.startInstance(c.index)) started++;
      } else if (c.instance >= n && c.state === "RUNNING") {
        c.shutdown();
        stopped++;
      }
    }
    return `${started} started, ${stopped} stopped (now ${n})`;
  }

  private describeStops(consumers: number[], stop: (c: number) => void, what: string): string {
    const w = this.w;
    const parts: string[] = [];
    for (const c of consumers) {
      const inst = w.consumers[c]!;
      if (inst.state !== "RUNNING") continue;
      const queues = inst.rebalance.queueCount;
      const cached = inst.rebalance.processQueues().reduce((a, [, pq]) => a + pq.msgCount, 0);
      stop(c);
      parts.push(`${inst.clientId} ${what} holding ${queues} queue(s), ${cached} cached message(s)`);
    }
    return parts.length > 0 ? parts.join("; ") : "no running instance";
  }
}
