// The simulated remoting layer: carries records between nodes over the Network's links and fires nodes'
// timers. Everything is tagged data on the kernel's heap, with no closure per event:
//   DELIVER  a record arrives (target = in-flight slot; one kind per receiving side, so each call site
//            into a node sees one class of node only)
//   TIMEOUT  a request gets no answer (target = the asker, a = its cookie, b = its request code)
//   TIMER    a node's timer (target = node address, a = timer code, b = argument)
//
// A request has exactly one outcome, decided when the network decides its fate: its answer arrives, or
// its time-out fires `timeoutUs` after it was sent — when the request or the answer is lost, when the
// answer would arrive after that deadline, when it reaches a broker that is down, or when the node
// holding it dies (`drop`). So a round trip that succeeds costs two events and no bookkeeping, and no
// answer reaches an asker after its time-out (RocketMQ drops a response whose future has expired). One
// approximation: the outcome of a request its receiver defers (a held pull) is decided when the
// receiver answers or drops it, so if that happens after the deadline the time-out fires then, late —
// possible only when a request arrives more than (time-out − hold time) after it was sent. The request
// record travels with its envelope (asker, cookie, sent time, time-out) and stays with the receiver
// until it answers or drops it; oneway records are done once received.
import { CLIENT_SLOT_SPAN, clientSlot, isClientAddr } from "../protocol/address.ts";
import { Envelope, type Command, type Stamp } from "../protocol/commands.ts";
import type { Scheduler } from "../sim/Scheduler.ts";
import type { RandomStreams, Rng } from "../sim/streams.ts";
import type { Trace } from "../sim/Trace.ts";
import type { Network } from "./Network.ts";
import type { Node, NodeContext } from "./Node.ts";

export class Transport {
  readonly kindDeliverBroker: number;
  readonly kindDeliverClient: number;
  readonly kindTimeout: number;
  readonly kindTimerBroker: number;
  readonly kindTimerClient: number;
  /** Brokers by index; the current incarnation of each client slot; every incarnation by address. */
  private readonly brokers: Node[] = [];
  private readonly clients: Node[] = [];
  private readonly clientAddrs: number[] = [];
  private readonly incarnations = new Map<number, Node>();
  /** Records on the wire, and their stamps: one slot per DELIVER event. */
  private readonly inFlight: (Command | null)[] = [];
  private readonly inFlightStamps: (Stamp | null)[] = [];
  private readonly inFlightFree: number[] = [];
  /** The stamp of the record `arrive` just returned. */
  private arrivedStamp!: Stamp;

  constructor(
    private readonly sched: Scheduler,
    readonly net: Network,
    readonly trace: Trace,
    private readonly streams: RandomStreams,
  ) {
    this.kindDeliverBroker = sched.defineKind("deliverToBroker", (slot) => {
      const msg = this.arrive(slot);
      if (msg === null) return;
      const stamp = this.arrivedStamp;
      const node = this.brokers[stamp.to]!;
      if (stamp.state === Envelope.RESPONSE) {
        // An answer to a broker's own request (SlaveSynchronize, between the nodes of a group).
        node.onResponse(stamp.requestCode, stamp.cookie, msg);
        release(msg, stamp);
      } else {
        this.received(msg, stamp, node);
      }
    });
    this.kindDeliverClient = sched.defineKind("deliverToClient", (slot) => {
      const msg = this.arrive(slot);
      if (msg === null) return;
      const stamp = this.arrivedStamp;
      const node = this.clientNode(stamp.to);
      if (stamp.state === Envelope.RESPONSE) {
        node.onResponse(stamp.requestCode, stamp.cookie, msg);
        release(msg, stamp);
      } else {
        this.received(msg, stamp, node);
      }
    });
    this.kindTimeout = sched.defineKind("rpcTimeout", (asker, cookie, code) => this.nodeOf(asker).onTimeout(code, cookie));
    this.kindTimerBroker = sched.defineKind("brokerTimer", (addr, code, arg) => this.brokers[addr]!.onTimer(code, arg));
    this.kindTimerClient = sched.defineKind("clientTimer", (addr, code, arg) => this.clientNode(addr).onTimer(code, arg));
  }

  // ---------------------------------------------------------------- nodes

  /** The context a node at `addr` sees the world through (build the node with it, then attach it). */
  context(addr: number): NodeContext {
    return new TransportContext(this, this.sched, addr);
  }

  /** Registers the node at `addr`. A client's newest incarnation becomes its slot's current one. */
  attach(addr: number, node: Node): void {
    if (isClientAddr(addr)) {
      const slot = clientSlot(addr);
      this.clients[slot] = node;
      this.clientAddrs[slot] = addr;
      this.incarnations.set(addr, node);
    } else {
      this.brokers[addr] = node;
    }
  }

  /** The node at `addr`, alive or not (a dead incarnation still receives what was addressed to it). */
  nodeOf(addr: number): Node {
    return isClientAddr(addr) ? this.clientNode(addr) : this.brokers[addr]!;
  }

  private clientNode(addr: number): Node {
    const slot = addr % CLIENT_SLOT_SPAN;
    return this.clientAddrs[slot] === addr ? this.clients[slot]! : this.incarnations.get(addr)!;
  }

  isDown(addr: number): boolean {
    return addr < CLIENT_SLOT_SPAN && this.net.isBrokerDown(addr);
  }

  setBrokerDown(broker: number, down: boolean): void {
    this.net.setBrokerDown(broker, down);
  }

  rng(label: string): Rng {
    return this.streams.get(label);
  }

  // ---------------------------------------------------------------- sending

  /** A oneway record; returns false if the network lost it. */
  send(from: number, to: number, msg: Command): boolean {
    const stamp = msg.stamp;
    stamp.state = Envelope.ONEWAY;
    const t = this.arrivalUs(from, to);
    if (t < 0) {
      release(msg, stamp);
      return false;
    }
    this.carry(t, msg, stamp, from, to);
    return true;
  }

  request(from: number, to: number, msg: Command, timeoutUs: number, cookie: number): void {
    const stamp = msg.stamp;
    stamp.state = Envelope.REQUEST;
    stamp.cookie = cookie;
    stamp.requestCode = msg.code;
    stamp.sentUs = this.sched.nowUs;
    stamp.timeoutUs = timeoutUs;
    const t = this.arrivalUs(from, to);
    if (t < 0) {
      stamp.from = from;
      this.fail(msg, stamp);
    } else {
      this.carry(t, msg, stamp, from, to);
    }
  }

  /** The receiver of `req` answers it; the request record is done. */
  reply(req: Command, response: Command): void {
    const stamp = req.stamp;
    assertAwaiting(stamp, req, "reply to");
    const asker = stamp.from;
    const t = this.arrivalUs(stamp.to, asker);
    const out = response.stamp;
    if (t < 0 || t > stamp.sentUs + stamp.timeoutUs) {
      // Lost, or too late: the asker's future has expired by then and the answer is discarded.
      release(response, out);
      this.fail(req, stamp);
      return;
    }
    out.state = Envelope.RESPONSE;
    out.requestCode = stamp.requestCode;
    out.cookie = stamp.cookie;
    this.carry(t, response, out, stamp.to, asker);
    stamp.state = Envelope.DONE;
    release(req, stamp);
  }

  /** The receiver of `req` will never answer it (it died holding it): the asker's time-out fires. */
  drop(req: Command): void {
    const stamp = req.stamp;
    assertAwaiting(stamp, req, "drop");
    this.fail(req, stamp);
  }

  /** Delivery time of a record sent now from → to, or −1 if the network loses it. */
  private arrivalUs(from: number, to: number): number {
    if (from >= CLIENT_SLOT_SPAN) return this.net.upAt(this.sched.nowUs, from % CLIENT_SLOT_SPAN, to);
    if (to >= CLIENT_SLOT_SPAN) return this.net.downAt(this.sched.nowUs, to % CLIENT_SLOT_SPAN, from);
    return this.net.brokerToBrokerAt(this.sched.nowUs, from, to);
  }

  private carry(atUs: number, msg: Command, stamp: Stamp, from: number, to: number): void {
    stamp.from = from;
    stamp.to = to;
    const i = this.inFlightFree.length > 0 ? this.inFlightFree.pop()! : this.inFlight.length;
    this.inFlight[i] = msg;
    this.inFlightStamps[i] = stamp;
    this.sched.post(atUs, to < CLIENT_SLOT_SPAN ? this.kindDeliverBroker : this.kindDeliverClient, i);
  }

  /** The request gets no answer: its asker's time-out fires `timeoutUs` after it was sent. */
  private fail(req: Command, stamp: Stamp): void {
    const at = Math.max(this.sched.nowUs, stamp.sentUs + stamp.timeoutUs);
    this.sched.post(at, this.kindTimeout, stamp.from, stamp.cookie, stamp.requestCode);
    stamp.state = Envelope.DONE;
    release(req, stamp);
  }

  // ---------------------------------------------------------------- arrivals

  /**
   * A record arrives; null when it is dropped (anything for a broker that is down: a request to it
   * fails). Its stamp is left in `arrivedStamp`.
   */
  private arrive(i: number): Command | null {
    const msg = this.inFlight[i]!;
    const stamp = this.inFlightStamps[i]!;
    this.inFlight[i] = null;
    this.inFlightStamps[i] = null;
    this.inFlightFree.push(i);
    if (stamp.to < CLIENT_SLOT_SPAN && this.net.isBrokerDown(stamp.to)) {
      // The process is gone: nobody reads the record, nobody will answer it.
      if (stamp.state === Envelope.REQUEST) this.fail(msg, stamp);
      else release(msg, stamp);
      return null;
    }
    this.arrivedStamp = stamp;
    return msg;
  }

  /** Hands a oneway record or a request to its receiver; a request must be answered, deferred or dropped. */
  private received(msg: Command, stamp: Stamp, node: Node): void {
    if (stamp.state === Envelope.ONEWAY) {
      node.receive(msg);
      release(msg, stamp);
      return;
    }
    stamp.state = Envelope.DELIVERED;
    node.receive(msg);
    if (stamp.state === Envelope.DELIVERED) {
      throw new Error(`node ${stamp.to} neither answered nor deferred request code ${msg.code} from ${stamp.from}`);
    }
  }
}

/** Returns a handled record to its pool, if it has one. */
function release(msg: Command, stamp: Stamp): void {
  const pool = stamp.pool;
  if (pool !== null) pool.put(msg);
}

function assertAwaiting(stamp: Stamp, req: Command, what: string): void {
  if (stamp.state !== Envelope.DELIVERED && stamp.state !== Envelope.DEFERRED) {
    throw new Error(`${what} a record that is not a request awaiting an answer (code ${req.code})`);
  }
}

/** A node's view of the transport: every call is made "from" the node's own address. */
class TransportContext implements NodeContext {
  private readonly timerKind: number;

  constructor(
    private readonly transport: Transport,
    private readonly sched: Scheduler,
    readonly addr: number,
  ) {
    this.timerKind = isClientAddr(addr) ? transport.kindTimerClient : transport.kindTimerBroker;
  }

  get nowUs(): number {
    return this.sched.nowUs;
  }
  get trace(): Trace {
    return this.transport.trace;
  }
  timer(delayUs: number, code: number, arg = 0): number {
    return this.sched.scheduleAt(this.sched.nowUs + delayUs, this.timerKind, this.addr, code, arg);
  }
  timerAt(atUs: number, code: number, arg = 0): number {
    return this.sched.scheduleAt(atUs, this.timerKind, this.addr, code, arg);
  }
  cancelTimer(id: number): void {
    this.sched.cancel(id);
  }
  send(to: number, msg: Command): void {
    this.transport.send(this.addr, to, msg);
  }
  sendChecked(to: number, msg: Command): boolean {
    return this.transport.send(this.addr, to, msg);
  }
  request(to: number, msg: Command, timeoutUs: number, cookie: number): void {
    this.transport.request(this.addr, to, msg, timeoutUs, cookie);
  }
  reply(request: Command, response: Command): void {
    this.transport.reply(request, response);
  }
  defer(request: Command): void {
    request.stamp.state = Envelope.DEFERRED;
  }
  drop(request: Command): void {
    this.transport.drop(request);
  }
  canConnect(to: number): boolean {
    return !this.transport.isDown(to);
  }
  rng(label: string): Rng {
    return this.transport.rng(label);
  }
}
