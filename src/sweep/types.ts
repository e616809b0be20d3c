// The data of a parameter sweep (`rmqsim sweep`): what was varied, every run's metrics, the
// aggregates and the recommendation. sweep.json is exactly a SweepResult; shards write partial
// ones (a subset of runs) that `rmqsim merge` combines into the result a single run would give.

/** One swept parameter: a dot path into the scenario JSON and the values it takes, in order. */
export interface SweepParam {
  path: string;
  /**
   * Further paths set to the same value at every point (`--param a,b=…`), e.g. consumeThreadMax tied
   * to consumeThreadMin. Absent when the parameter sets one path.
   */
  tied?: string[];
  /** As the user wrote it, e.g. "100..2000:100". */
  spec: string;
  values: (number | string | boolean)[];
}

/** The metrics taken from one run (keys in SWEEP_METRICS order; see metrics.ts). */
export type RunMetrics = Record<string, number>;

export interface SweepRun {
  seed: number;
  metrics: RunMetrics;
  /** Whether the run simulated its whole duration. */
  complete: boolean;
}

/** Mean and 95 % confidence half-width (Student t, n − 1 degrees of freedom) of one metric. */
export interface MetricStats {
  mean: number;
  /** Half-width of the 95 % interval; 0 when n = 1 (no interval can be given). */
  ci95: number;
  n: number;
  min: number;
  max: number;
}

export interface SweepPoint {
  /** Index in the grid (row-major over params, first param slowest). */
  index: number;
  /** Parameter path → value of this point. */
  params: Record<string, number | string | boolean>;
  runs: SweepRun[];
  stats: Record<string, MetricStats>;
  /** Requirements evaluated on the means: expression → held. */
  requirements: Record<string, boolean>;
  feasible: boolean;
}

/**
 * A tie-breaker of the default objective (tieBreak.ts): among the feasible points, only those whose
 * mean of `metric` is as good as the best one's — within `tolerance` (a fraction of the best) plus both
 * points' 95 % intervals — stay candidates.
 */
export interface TieBreaker {
  metric: string;
  tolerance: number;
}

export interface SweepObjective {
  metric: string;
  direction: "minimize" | "maximize";
  /** Applied in order to the feasible points before the objective ranks them; absent = none. */
  tieBreakers?: TieBreaker[];
}

export interface Recommendation {
  /** Grid index of the recommended point, or null when no point meets every requirement. */
  point: number | null;
  runnerUp: number | null;
  objective: SweepObjective;
  /** Why: which requirement or tie-breaker rules out the better points next to it, in words. */
  reason: string;
  /** Sentences the user should read before shipping the value: e.g. the objective does not vary. */
  warnings: string[];
}

export interface SweepResult {
  scenario: string;
  /** The base scenario's seed; run k of a point uses seed + k. */
  baseSeed: number;
  seeds: number;
  warmupMs: number;
  params: SweepParam[];
  /** The requirements as given (`--require`), in order. */
  requires: string[];
  objective: SweepObjective;
  points: SweepPoint[];
  recommendation: Recommendation | null;
  /** "i/n" when this is one shard's partial result; null for a whole (or merged) sweep. */
  shard: string | null;
  /** False when Ctrl-C stopped the sweep (finished points are kept). */
  complete: boolean;
}
