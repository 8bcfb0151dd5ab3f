/**
 * Runs a parsed scenario in real time: statements in file order, each run by its spec
 * (sim/statements/); `at` commands (sim/commands/) start at their time or when the previous
 * one ended, whichever is later. The run holds what statements and commands share: settings,
 * data sets, the swarm, the world, measurements.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { resolveSwarm } from '../src/index/swarm.ts';
import { ParamsError } from '../src/keys/params.ts';
import {
  DEFAULT_TIMING,
  nodeOptionsFrom,
  resolveLimits,
  resolveTiming,
} from '../src/node/config.ts';
import { SETTINGS } from '../src/settings/table.ts';
import { entriesOf, setPath } from '../src/settings/tree.ts';
import { commandSpec } from './commands/registry.ts';
import type { NodeSettingsInUse, RunContext } from './context.ts';
import { type DatasetEntry, type DatasetSource, loadDataset } from './datasets.ts';
import { type Parsed, ScenarioError, type Selector, type Statement } from './language.ts';
import { RssSampler } from './memory.ts';
import { OpBook } from './metrics.ts';
import { PartitionBook } from './partitions.ts';
import { type Progress, progress } from './progress.ts';
import { Rng } from './random.ts';
import type { SimReport } from './report/types.ts';
import { buildReport, collectMetrics } from './run-metrics.ts';
import { statementSpec } from './statements/registry.ts';
import { inProcessSwarm } from './swarm.ts';
import type { NetworkSpec, SimPeer, SimSwarm, SwarmFactory } from './swarm-api.ts';
import { World } from './world.ts';

export interface RunOptions {
  file: string;
  seed?: number;
  /** Draw progress bars on stderr (a line per command when stderr is not a terminal). */
  progress?: boolean;
  /** Called with the report whenever a `report` statement is reached. */
  onReport?: (r: SimReport) => Promise<void>;
  /**
   * Keep stack traces on errors (default: off while the scenario runs). libp2p creates and
   * drops an error object for every finished queue job and aborted signal; capturing their
   * stacks cost a fifth of a 500-node search workload's CPU (docs/BENCHMARKS.md), and nothing
   * in a simulation reads them.
   */
  stackTraces?: boolean;
  /** Called around every `at` command, e.g. to profile only the searches. */
  aroundCommand?: (command: string, run: () => Promise<void>) => Promise<void>;
  /** The swarm the commands drive (default: in-process nodes over the memory transport). */
  swarm?: SwarmFactory;
}

export async function runScenario(statements: Statement[], opts: RunOptions): Promise<SimReport> {
  const run = new Run(opts);
  const stackTraceLimit = Error.stackTraceLimit;
  if (opts.stackTraces !== true) Error.stackTraceLimit = 0;
  try {
    await run.execute(statements);
    run.memory.stop();
    // The report is taken while the swarm still stands: it counts live nodes and their load.
    return await run.report();
  } finally {
    run.memory.stop();
    await run.settleLater();
    await run.swarm?.stop();
    Error.stackTraceLimit = stackTraceLimit;
  }
}

export class Run implements RunContext {
  readonly opts: RunOptions;
  readonly startedAt = Date.now();
  readonly memory = new RssSampler(this.startedAt);
  readonly datasets = new Map<string, DatasetEntry[]>();
  readonly world = new World(DEFAULT_TIMING.recordTtlMs);
  readonly ops = new OpBook();
  readonly partitions = new PartitionBook();
  readonly gauges = new Map<string, number>();
  readonly timeline: SimReport['timeline'] = [];
  readonly expects: SimReport['expects'] = [];
  /** Settings from `index`, `params` and `timing`, shaped like a node's config file. */
  readonly config: Record<string, unknown> = {};
  /** Time spent joining nodes (ms). */
  joinMs = 0;
  /** When the last command ended: `at +5s` counts from there. */
  lastEnd = this.startedAt;
  rng = new Rng(0, 'init');
  text = '';
  swarm: SimSwarm | undefined;
  /** The network model (`network` statement); none: nothing added to the wire. */
  network: NetworkSpec | undefined;
  #seed = 0;
  readonly #timers = new Set<NodeJS.Timeout>();
  readonly #running = new Set<Promise<void>>();
  #inUse: NodeSettingsInUse | undefined;
  #statement: Statement | undefined;

  constructor(opts: RunOptions) {
    this.opts = opts;
  }

  /** The run's seed: --seed, else the `seed` statement, else 0. */
  get seed(): number {
    return this.opts.seed ?? this.#seed;
  }

  set seed(v: number) {
    this.#seed = v;
  }

  async execute(statements: Statement[]): Promise<void> {
    for (const st of statements) {
      this.#statement = st;
      const spec = statementSpec(st.kind) ?? this.fail(`unknown statement "${st.kind}"`);
      await spec.run(st, this);
    }
  }

  fail(problem: string): never {
    throw new ScenarioError(this.opts.file, this.#statement?.line ?? 0, problem);
  }

  /** Settings statements set what the nodes start with: before the first join only. */
  configure(what: string, path: readonly string[], value: unknown): void {
    if (this.swarm !== undefined) this.fail(`${what} must come before the first join`);
    setPath(this.config, path, value);
  }

  /** The `network` statement: what the nodes' connections cross, before the first join only. */
  configureNetwork(spec: NetworkSpec): void {
    if (this.swarm !== undefined) this.fail('network must come before the first join');
    this.network = spec;
  }

  later(ms: number, task: () => Promise<void>): void {
    const timer = setTimeout(() => {
      this.#timers.delete(timer);
      const p = task()
        .catch((err: unknown) => this.log(`scheduled task failed: ${(err as Error).message}`))
        .finally(() => this.#running.delete(p));
      this.#running.add(p);
    }, ms);
    this.#timers.add(timer);
  }

  /** Drops the tasks still waiting and waits for those running (the end of the run). */
  async settleLater(): Promise<void> {
    for (const t of this.#timers) clearTimeout(t);
    this.#timers.clear();
    await Promise.allSettled([...this.#running]);
  }

  /** Runs one command of an `at` statement, and records it in the timeline. */
  async runCommand(command: Parsed, text: string): Promise<void> {
    const spec = commandSpec(command.kind) ?? this.fail(`unknown command "${command.kind}"`);
    const began = Date.now();
    this.rng = new Rng(this.seed, `${text}/${this.timeline.length}`);
    this.text = text;
    let note: string | undefined;
    const run = async () => {
      note = await spec.run(command, this);
    };
    await (this.opts.aroundCommand ? this.opts.aroundCommand(command.kind, run) : run());
    const entry = {
      t: began - this.startedAt,
      line: this.#statement?.line ?? 0,
      command: text,
      durationMs: Date.now() - began,
    };
    this.timeline.push(note === undefined ? entry : { ...entry, note });
  }

  startSwarm(): SimSwarm {
    if (this.swarm !== undefined) return this.swarm;
    const node = nodeOptionsFrom(this.config);
    let timing: NodeSettingsInUse['timing'];
    let k: number;
    try {
      k = resolveSwarm(node.swarm).params.k;
      timing = resolveTiming(node.timing);
      resolveLimits(node.limits);
    } catch (err) {
      if (err instanceof ParamsError) this.fail(`settings: ${withScenarioKey(err)}`);
      throw err;
    }
    this.#inUse = { k, timing };
    this.world.recordTtlMs = timing.recordTtlMs;
    const factory = this.opts.swarm ?? inProcessSwarm;
    const swarm = factory(
      {
        runId: `${process.pid}-${this.startedAt}`,
        node: { ...node, swarm: node.swarm ?? {} },
        ...(this.network ? { network: { ...this.network, seed: this.seed } } : {}),
      },
      new Rng(this.seed, 'swarm'),
    );
    if (this.network !== undefined && swarm.network === undefined)
      this.fail('this swarm cannot model a network: the network statement is for in-process runs');
    this.swarm = swarm;
    return swarm;
  }

  liveSwarm(): SimSwarm {
    if (this.swarm === undefined || this.swarm.alive().length === 0)
      this.fail('no live node: join some first');
    return this.swarm;
  }

  settings(): NodeSettingsInUse {
    return this.#inUse ?? this.fail('no swarm yet: join some nodes first');
  }

  select(sel: Selector): SimPeer[] {
    const live = this.liveSwarm().alive();
    if (sel.kind === 'all') return live;
    if (sel.kind === 'random') return this.rng.sample(live, sel.count);
    return live.filter((s) => s.index >= sel.from && s.index <= sel.to);
  }

  entries(dataset: string, limit?: number): DatasetEntry[] {
    const all = this.datasets.get(dataset) ?? this.fail(`dataset "${dataset}" was not loaded`);
    return limit === undefined ? all : all.slice(0, limit);
  }

  async load(
    name: string,
    source: DatasetSource,
    range: { offset?: number; limit?: number } = {},
  ): Promise<DatasetEntry[]> {
    try {
      return await loadDataset(name, source, {
        scenarioFile: this.opts.file,
        seed: this.seed,
        others: this.datasets,
        ...range,
      });
    } catch (err) {
      return this.fail((err as Error).message);
    }
  }

  progress(text: string, total: number): Progress {
    return progress(this.opts.progress === true, this.startedAt, text, total);
  }

  log(line: string): void {
    if (this.opts.progress) process.stderr.write(`${line}\n`);
  }

  metrics(): Promise<Record<string, number>> {
    return collectMetrics(this);
  }

  report(): Promise<SimReport> {
    return buildReport(this);
  }

  sleepUntil(t: number): Promise<void> {
    return sleep(Math.max(0, t - Date.now()));
  }
}

/** A setting's problem, with the scenario key that sets it (`timing ttl=`). */
function withScenarioKey(err: ParamsError): string {
  const e = entriesOf(SETTINGS).find((x) => x.key === err.field || x.path.at(-1) === err.field);
  const sc = e?.setting.scenario;
  return sc === undefined ? err.message : `${err.message} (${sc.statement} ${sc.key}=)`;
}
