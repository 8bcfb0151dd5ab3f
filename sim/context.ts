/**
 * What a scenario command sees of the run: the swarm (through sim/swarm-api.ts only), the world
 * and its ground truth, the data sets, where its measurements go, its random stream, progress
 * output, and `fail` for a problem at its line.
 */
import type { Timing } from '../src/node/config.ts';
import type { DatasetEntry, DatasetSource } from './datasets.ts';
import type { Selector } from './language.ts';
import type { OpBook } from './metrics.ts';
import type { PartitionBook } from './partitions.ts';
import type { Progress } from './progress.ts';
import type { Rng } from './random.ts';
import type { SimPeer, SimSwarm } from './swarm-api.ts';
import type { World } from './world.ts';

/** The node settings a running swarm uses, defaults filled in. */
export interface NodeSettingsInUse {
  /** Results per search unless a command says otherwise (the swarm's k). */
  k: number;
  timing: Timing;
}

export interface RunContext {
  /** The statement running this command, as written (progress output names it). */
  readonly text: string;
  /** This command's random stream: the run's seed and the command's place in the file. */
  readonly rng: Rng;
  readonly world: World;
  readonly ops: OpBook;
  /** When the run started (Date.now()): series are in ms since then. */
  readonly startedAt: number;
  /** The partitions made so far, and the searches made while they lasted. */
  readonly partitions: PartitionBook;
  /** Time spent joining nodes (ms): `time.join_ms`. */
  joinMs: number;
  /** Metrics a command sets (`communities.findable`); reports show them as they are. */
  readonly gauges: Map<string, number>;
  readonly datasets: ReadonlyMap<string, DatasetEntry[]>;
  /** The swarm, once a `join` started it. */
  readonly swarm: SimSwarm | undefined;
  /** The swarm, which must have a live node, or the command fails. */
  liveSwarm(): SimSwarm;
  /** The swarm, started on the first call from the settings gathered so far. */
  startSwarm(): SimSwarm;
  /** What the nodes run with; only known once the swarm started. */
  settings(): NodeSettingsInUse;
  /** The live nodes a selector names (node indexes are join order), less frozen ones. */
  select(sel: Selector): SimPeer[];
  /** A data set by name, `limit` first entries; fails if it was not loaded. */
  entries(dataset: string, limit?: number): DatasetEntry[];
  /** Loads profiles that are not a declared data set (`update <dataset> <file>`). */
  load(name: string, source: DatasetSource): Promise<DatasetEntry[]>;
  progress(text: string, total: number): Progress;
  fail(problem: string): never;
  /**
   * Runs `fn` `ms` from now beside whatever runs then (the end of `freeze … for <d>`); its note
   * goes into the timeline as `what`. Dropped if the run ends first; the run's end waits for one
   * under way.
   */
  later(ms: number, what: string, fn: () => Promise<string | undefined>): void;
  /** Aborts when the run is stopped (Ctrl-C): long waits end with it. */
  readonly signal: AbortSignal | undefined;
}

/** `n` of `of`, or `p`% of it, rounded. */
export function amountOf(
  a: { kind: 'count'; n: number } | { kind: 'percent'; p: number },
  of: number,
): number {
  return a.kind === 'count' ? Math.min(a.n, of) : Math.round(a.p * of);
}
