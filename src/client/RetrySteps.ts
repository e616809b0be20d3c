// The extra round-robin steps a producer's retries took, by the draw of the send they retried (broker spec
// §7.2: selectOneMessageQueue(lastBrokerName) moves the shared index on), so a replay of the producer can
// take them too. Kept run-length encoded: a broker refusing for a long time makes the retries periodic
// (every k-th draw, the same steps), and a run of them costs four numbers, whatever its length.

export class RetrySteps {
  // Run i: draws first[i] + j·stride[i] for j < count[i], each followed by steps[i] extra steps.
  private readonly first: number[] = [];
  private readonly stride: number[] = [];
  private readonly steps: number[] = [];
  private readonly count: number[] = [];

  /** Runs kept (for tests and memory accounting). */
  get runs(): number {
    return this.first.length;
  }

  /** The send of `draw` took `n` more steps (draws arrive in order; a second retry of one send adds up). */
  add(draw: number, n: number): void {
    const r = this.first.length - 1;
    if (r >= 0) {
      const last = this.first[r]! + this.stride[r]! * (this.count[r]! - 1);
      if (draw === last) {
        if (this.count[r] === 1) {
          this.steps[r]! += n;
          return;
        }
        this.count[r]!--;
        return this.push(draw, this.steps[r]! + n);
      }
      if (this.steps[r] === n && (this.count[r] === 1 || draw - last === this.stride[r])) {
        if (this.count[r] === 1) this.stride[r] = draw - last;
        this.count[r]!++;
        return;
      }
    }
    this.push(draw, n);
  }

  private push(draw: number, n: number): void {
    this.first.push(draw);
    this.stride.push(0);
    this.steps.push(n);
    this.count.push(1);
  }

  /** A reader positioned at the first recorded draw ≥ `draw`. */
  cursor(draw: number): RetryStepsCursor {
    let lo = 0;
    let hi = this.first.length;
    // The last run starting at or before `draw`.
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.first[mid]! <= draw) lo = mid + 1;
      else hi = mid;
    }
    const c = new RetryStepsCursor(this, Math.max(0, lo - 1), 0);
    c.skipBelow(draw);
    return c;
  }

  /** Run r's j-th draw and steps (for the cursor). */
  drawOf(r: number, j: number): number {
    return r < this.first.length && j < this.count[r]! ? this.first[r]! + this.stride[r]! * j : Infinity;
  }
  stepsOf(r: number): number {
    return this.steps[r]!;
  }
  countOf(r: number): number {
    return this.count[r]!;
  }
}

/** Reads the extra steps in draw order (replays run forward only). */
export class RetryStepsCursor {
  constructor(
    private readonly s: RetrySteps,
    private r: number,
    private j: number,
  ) {}

  skipBelow(draw: number): void {
    while (this.s.drawOf(this.r, this.j) < draw) this.advance();
  }

  /** The extra steps after `draw` (0 if none); draws must be asked in increasing order. */
  stepsAfter(draw: number): number {
    this.skipBelow(draw);
    if (this.s.drawOf(this.r, this.j) !== draw) return 0;
    const n = this.s.stepsOf(this.r);
    this.advance();
    return n;
  }

  private advance(): void {
    if (this.s.drawOf(this.r, this.j) === Infinity) return;
    if (++this.j >= this.s.countOf(this.r)) {
      this.r++;
      this.j = 0;
    }
  }
}
