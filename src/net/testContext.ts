// A recording fake of NodeContext for unit tests of one component: it runs no network and no kernel.
// Everything the component asks for — timers, messages, requests, replies — is written down, and the
// test plays the rest of the world: it moves the clock, fires due timers, and hands the component the
// answers it wants it to see. Records are never released to their pools, so a test may inspect any of
// them afterwards. Not imported by model code.
import type { Command } from "../protocol/commands.ts";
import { RandomStreams, type Rng } from "../sim/streams.ts";
import { Trace, type TraceRecord } from "../sim/Trace.ts";
import type { Node, NodeContext } from "./Node.ts";

export interface RecordedTimer {
  id: number;
  atUs: number;
  code: number;
  arg: number;
  /** Set when cancelled or fired. */
  cancelled: boolean;
  fired: boolean;
}

export interface RecordedRequest {
  to: number;
  msg: Command;
  timeoutUs: number;
  cookie: number;
  sentUs: number;
}

export class TestContext implements NodeContext {
  nowUs = 0;
  readonly trace = new Trace();
  readonly timers: RecordedTimer[] = [];
  readonly sent: { to: number; msg: Command; atUs: number }[] = [];
  readonly requests: RecordedRequest[] = [];
  readonly replies: { request: Command; msg: Command; atUs: number }[] = [];
  /** Requests deferred, then dropped. */
  readonly deferred: Command[] = [];
  readonly dropped: Command[] = [];
  /** Addresses whose process is down (canConnect false, sendChecked false). */
  readonly down = new Set<number>();
  /** Addresses whose link loses everything (sendChecked false). */
  readonly lossy = new Set<number>();
  private readonly streams: RandomStreams;

  constructor(
    readonly addr = 0,
    seed = 1,
  ) {
    this.streams = new RandomStreams(seed);
    this.trace.setCapture(() => true);
  }

  timer(delayUs: number, code: number, arg = 0): number {
    return this.timerAt(this.nowUs + delayUs, code, arg);
  }
  timerAt(atUs: number, code: number, arg = 0): number {
    if (atUs < this.nowUs) throw new RangeError(`timer at ${atUs} µs is before now (${this.nowUs} µs)`);
    const id = this.timers.length;
    this.timers.push({ id, atUs, code, arg, cancelled: false, fired: false });
    return id;
  }
  cancelTimer(id: number): void {
    const t = this.timers[id];
    if (t) t.cancelled = true;
  }
  send(to: number, msg: Command): void {
    this.sent.push({ to, msg, atUs: this.nowUs });
  }
  sendChecked(to: number, msg: Command): boolean {
    if (this.down.has(to) || this.lossy.has(to)) return false;
    this.send(to, msg);
    return true;
  }
  request(to: number, msg: Command, timeoutUs: number, cookie: number): void {
    this.requests.push({ to, msg, timeoutUs, cookie, sentUs: this.nowUs });
  }
  reply(request: Command, msg: Command): void {
    this.replies.push({ request, msg, atUs: this.nowUs });
  }
  defer(request: Command): void {
    this.deferred.push(request);
  }
  drop(request: Command): void {
    this.dropped.push(request);
  }
  canConnect(to: number): boolean {
    return !this.down.has(to);
  }
  rng(label: string): Rng {
    return this.streams.get(label);
  }

  // ---------------------------------------------------------------- the test's side

  /** Timers set and neither fired nor cancelled, in (time, order set) order. */
  pendingTimers(code?: number): RecordedTimer[] {
    return this.timers
      .filter((t) => !t.cancelled && !t.fired && (code === undefined || t.code === code))
      .sort((a, b) => a.atUs - b.atUs || a.id - b.id);
  }

  /**
   * Fires every timer due at or before `untilUs` into `node`, in time order (timers the node sets
   * meanwhile included), moving the clock to each; the clock ends at `untilUs`.
   */
  runTimers(node: Node, untilUs: number): void {
    for (;;) {
      const next = this.pendingTimers()[0];
      if (next === undefined || next.atUs > untilUs) break;
      next.fired = true;
      this.nowUs = next.atUs;
      node.onTimer(next.code, next.arg);
    }
    if (untilUs > this.nowUs) this.nowUs = untilUs;
  }

  /** Captured trace records of one type, optionally only those whose fields equal `where`. */
  records(type: string, where: Record<string, number> = {}): TraceRecord[] {
    return this.trace.captured.filter((r) => r.type === type && Object.entries(where).every(([k, v]) => r[k] === v));
  }

  /** The last request sent with this code (throws if none). */
  lastRequest(code: number): RecordedRequest {
    const r = [...this.requests].reverse().find((x) => x.msg.code === code);
    if (!r) throw new Error(`no request with code ${code} was sent`);
    return r;
  }
}
