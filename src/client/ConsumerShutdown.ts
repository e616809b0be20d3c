// DefaultMQPushConsumerImpl#shutdown(awaitTerminateMillis) in its five steps (broker spec §8.2), as a
// sequence over virtual time rather than one instant:
//   1. consumeMessageService.shutdown(await): the scheduler stops (5 s local retries and orderly "later"
//      re-submissions are discarded), the executor takes nothing new; it terminates when the running
//      calls and the queue are done, or after `await` shutdownNow drops the queue and waits `await` more
//      (with the default 0: at once, running calls still running). Orderly CLUSTERING also unlocks all.
//   2. persistConsumerOffset: the in-memory offsets of this instant, oneway to the brokers.
//   3. unregisterConsumer: UNREGISTER_CLIENT to every broker node, synchronously one after another
//      (time-out mqClientApiTimeout each; a refused connection fails at once).
//   4. mQClientFactory.shutdown: pulls, timers, the remoting client and the internal producer stop.
//   5. rebalanceImpl.destroy: every ProcessQueue dropped; SHUTDOWN_ALREADY.
// The state stays RUNNING until step 5, so pulls, rebalances and 5 s persists go on until then (steps 4
// and 5 happen together here). A listener call ending before step 5 still runs processConsumeResult:
// its offset update after step 2 is never sent; a failed send-back after step 1 skips the rest of it
// (the consume service's own rule); after step 5 it finds its queue dropped and does nothing.
import type { NodeContext } from "../net/Node.ts";
import { RequestCode } from "../protocol/codes.ts";
import { UnregisterClientRequest } from "../protocol/commands.ts";
import { ClientTimer } from "./timers.ts";
import type { PushConsumer } from "./PushConsumer.ts";

/** Where the shutdown is: 0 not begun, 1 the consume service draining, 2 unregistering, 3 done. */
export const enum ShutdownStep {
  NONE = 0,
  DRAINING = 1,
  UNREGISTERING = 2,
  DONE = 3,
}

/** The SHUTDOWN timer's argument: the await time ran out once (shutdownNow), or twice (give up). */
const AWAIT_FIRST = 1;
const AWAIT_SECOND = 2;

export class ConsumerShutdown {
  step: ShutdownStep = ShutdownStep.NONE;
  /** Step 3's broker nodes and the next to unregister from. */
  private nodes: number[] = [];
  private next = 0;

  constructor(
    private readonly c: PushConsumer,
    private readonly ctx: NodeContext,
  ) {}

  begin(): void {
    const c = this.c;
    this.step = ShutdownStep.DRAINING;
    // consumeMessageService.shutdown: the orderly service unlocks every queue (CLUSTERING, §8.1).
    if (c.orderly && c.clustering) c.rebalance.locks.unlockAll();
    const awaitUs = c.config.awaitTerminationMillisWhenShutdown * 1000;
    c.consumeService.beginShutdown();
    if (awaitUs === 0) c.consumeService.dropQueued();
    if (awaitUs === 0 || c.consumeService.drained) return this.persistAndUnregister();
    this.ctx.timer(awaitUs, ClientTimer.SHUTDOWN, AWAIT_FIRST);
    this.ctx.timer(2 * awaitUs, ClientTimer.SHUTDOWN, AWAIT_SECOND);
  }

  /** The consume service's executor terminated (its last call ended). */
  onDrained(): void {
    if (this.step === ShutdownStep.DRAINING) this.persistAndUnregister();
  }

  onTimer(arg: number): void {
    if (this.step !== ShutdownStep.DRAINING) return;
    if (arg === AWAIT_FIRST) {
      // shutdownNow: the queued requests are dropped; running calls are interrupted, which a listener
      // may ignore (the model's do) — wait `await` again for them.
      this.c.consumeService.dropQueued();
      if (this.c.consumeService.drained) this.persistAndUnregister();
    } else {
      this.persistAndUnregister();
    }
  }

  /** Steps 2 and 3. */
  private persistAndUnregister(): void {
    const c = this.c;
    this.step = ShutdownStep.UNREGISTERING;
    c.offsetStore.persistAll(c.rebalance.assignedQueues());
    this.nodes = c.route.allNodes();
    this.next = 0;
    this.unregisterNext();
  }

  private unregisterNext(): void {
    const c = this.c;
    while (this.next < this.nodes.length) {
      const node = this.nodes[this.next++]!;
      if (!this.ctx.canConnect(node)) continue; // the RPC throws at once
      this.ctx.request(node, new UnregisterClientRequest(RequestCode.UNREGISTER_CLIENT, c.clientId, c.group), c.config.mqClientApiTimeout * 1000, 0);
      return;
    }
    this.finish();
  }

  /** An UNREGISTER_CLIENT was answered or timed out. */
  onUnregistered(): void {
    if (this.step === ShutdownStep.UNREGISTERING) this.unregisterNext();
  }

  /** Steps 4 and 5; then whatever waited for the process to exit (a restart). */
  private finish(): void {
    this.step = ShutdownStep.DONE;
    this.c.rebalance.destroy();
    this.c.state = "SHUTDOWN_ALREADY";
    this.c.alive = false;
    const then = this.afterShutdown;
    this.afterShutdown = null;
    then?.();
  }

  /** Called once the shutdown is done (the fault plan restarts the instance then). */
  afterShutdown: (() => void) | null = null;
}
