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
import { scaleHeapLimitWithBuffers } from './heap-limit.ts';
import { type Parsed, ScenarioError, type Selector, type Statement } from './language.ts';
import { RssSampler } from './memory.ts';
import { OpBook } from './metrics.ts';
import { CAPABILITIES, checkMode, type SwarmMode } from './modes.ts';
import { PartitionBook } from './partitions.ts';
import { type Progress, progress } from './progress.ts';
import { Rng } from './random.ts';
import type { SimReport } from './report/types.ts';
import { buildReport, collectMetrics } from './run-metrics.ts';
import { statementSpec } from './statements/registry.ts';
import { inProcessSwarm } from './swarm.ts';
import type { NetworkSpec, SimPeer, SimSwarm } from './swarm-api.ts';
import { World } from './world.ts';

export interface RunOptions {
  file: string;
  seed?: number;
  /** Draw progress bars on stderr (a line per command when stderr is not a terminal). */
  progress?: boolean;
  /**
   * Told of each long command's work as it goes, beside the progress output (a benchmark reads
   * its counters at fractions of the searches done).
   */
  observeProgress?: (text: string, total: number) => Progress | undefined;
  /** Called with the report whenever a `report` statement is reached. */
  onReport?: (r: SimReport) => Promise<void>;
  /**
   * Keep stack traces on errors (default: off while the scenario runs). libp2p creates and
   * drops an error object for every finished queue job and aborted signal; capturing their
   * stacks cost a fifth of a 500-node search workload's CPU (docs/BENCHMARKS.md), and nothing
   * in a simulation reads them.
   */
  stackTraces?: boolean;
  /**
   * Keep V8's own rule for when buffers' memory starts a full collection (default: off while
   * the scenario runs, sim/heap-limit.ts): to compare, or where memory is scarcer than CPU.
   */
  v8HeapDefaults?: boolean;
  /**
   * Called around every `at` command, e.g. to profile only the searches; `swarm` gives the
   * swarm (once the first join made it), for benches that read its meter or its nodes.
   */
  aroundCommand?: (
    command: string,
    run: () => Promise<void>,
    swarm: () => SimSwarm | undefined,
  ) => Promise<void>;
  /** The swarm the commands drive (default: in-process nodes over the memory transport). */
  swarm?: SwarmMode;
  /**
   * Stops the run (Ctrl-C): the command under way is left to fail as its nodes go, and the
   * report holds what was measured until then (`scenario.interrupted`).
   */
  signal?: AbortSignal;
}

/** In-process nodes over the memory transport. */
export const IN_PROCESS: SwarmMode = {
  name: 'in-process',
  can: CAPABILITIES['in-process'],
  create: inProcessSwarm,
};

/**
 * Runs a scenario and reports. Throws ScenarioError before anything runs when a statement needs
 * more than the swarm's mode can do.
 */
export async function runScenario(statements: Statement[], opts: RunOptions): Promise<SimReport> {
  checkMode(statements, opts.swarm ?? IN_PROCESS, opts.file);
  const run = new Run(opts);
  const stackTraceLimit = Error.stackTraceLimit;
  if (opts.stackTraces !== true) Error.stackTraceLimit = 0;
  const restoreHeapLimit = opts.v8HeapDefaults === true ? () => {} : scaleHeapLimitWithBuffers();
  try {
    try {
      await run.execute(statements);
    } catch (err) {
      if (opts.signal?.aborted !== true) throw err;
      run.interrupted = true;
    }
    run.memory.stop();
    // The report is taken while the swarm still stands: it counts live nodes and their load.
    return await run.report();
  } finally {
    run.memory.stop();
    await run.settleLater();
    await run.swarm?.stop();
    Error.stackTraceLimit = stackTraceLimit;
    restoreHeapLimit();
  }
}

export class Run implements RunContext {
  readonly opts: RunOptions;
  readonly startedAt = Date.now();
  readonly memory = new RssSampler(this.startedAt);
  readonly datasets = new Map<string, DatasetEntry[]>();
  readonly world = new World(DEFAULT_TIMING.recordTtlMs);
  readonly ops = new OpBook();
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
  /** The run was stopped before its end (RunOptions.signal). */
  interrupted = false;
  readonly mode: SwarmMode;
  /** The network model (`network` statement); none: nothing added to the wire. */
  network: NetworkSpec | undefined;
  readonly partitions = new PartitionBook();
  readonly #later = new Set<NodeJS.Timeout>();
  readonly #running = new Set<Promise<void>>();
  #seed = 0;
  #inUse: NodeSettingsInUse | undefined;
  #statement: Statement | undefined;

  constructor(opts: RunOptions) {
    this.opts = opts;
    this.mode = opts.swarm ?? IN_PROCESS;
  }

  get signal(): AbortSignal | undefined {
    return this.opts.signal;
  }

  /** The run's seed: --seed, else the `seed` statement, else 0. */
  get seed(): number {
    return this.opts.seed ?? this.#seed;
  }

  set seed(v: number) {
    this.#seed = v;
  }

  async execute(statements: Statement[]): Promise<void> {
    const signal = this.opts.signal;
    for (const st of statements) {
      signal?.throwIfAborted();
      this.#statement = st;
      const spec = statementSpec(st.kind) ?? this.fail(`unknown statement "${st.kind}"`);
      await untilAborted(spec.run(st, this), signal);
    }
  }

  /** The `network` statement: what the nodes' connections cross, before the first join only. */
  configureNetwork(spec: NetworkSpec): void {
    if (this.swarm !== undefined) this.fail('network must come before the first join');
    this.network = spec;
  }

  /**
   * Runs `fn` `ms` from now, beside whatever runs then (the end of a `freeze … for`); its note
   * goes into the timeline under the statement that scheduled it. Dropped if the run ends first;
   * the run's end waits for one under way.
   */
  later(ms: number, what: string, fn: () => Promise<string | undefined>): void {
    const line = this.#statement?.line ?? 0;
    const timer = setTimeout(() => {
      this.#later.delete(timer);
      const began = Date.now();
      const entry = { t: began - this.startedAt, line, command: what };
      const done = fn()
        .then(
          (note) =>
            this.timeline.push({
              ...entry,
              durationMs: Date.now() - began,
              note,
            }),
          (err: unknown) =>
            this.timeline.push({
              ...entry,
              durationMs: Date.now() - began,
              note: `failed: ${(err as Error).message}`,
            }),
        )
        .then(() => {
          this.#running.delete(done);
        });
      this.#running.add(done);
    }, ms);
    this.#later.add(timer);
  }

  /** Drops the tasks still waiting and waits for those running (the end of the run). */
  async settleLater(): Promise<void> {
    for (const t of this.#later) clearTimeout(t);
    this.#later.clear();
    await Promise.allSettled([...this.#running]);
  }

  fail(problem: string): never {
    throw new ScenarioError(this.opts.file, this.#statement?.line ?? 0, problem);
  }

  /** Settings statements set what the nodes start with: before the first join only. */
  configure(what: string, path: readonly string[], value: unknown): void {
    if (this.swarm !== undefined) this.fail(`${what} must come before the first join`);
    setPath(this.config, path, value);
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
    await (this.opts.aroundCommand
      ? this.opts.aroundCommand(command.kind, run, () => this.swarm)
      : run());
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
    this.#inUse = { k: this.mode.existing?.k ?? k, timing };
    this.world.recordTtlMs = timing.recordTtlMs;
    this.swarm = this.mode.create(
      {
        node: { ...node, swarm: node.swarm ?? {} },
        settings: structuredClone(this.config),
        ...(this.network ? { network: { ...this.network, seed: this.seed } } : {}),
      },
      new Rng(this.seed, 'swarm'),
    );
    return this.swarm;
  }

  liveSwarm(): SimSwarm {
    // Nodes that run elsewhere are there from the first command.
    if (this.swarm === undefined && this.mode.existing !== undefined) this.startSwarm();
    if (this.swarm === undefined || this.swarm.alive().length === 0)
      this.fail('no live node: join some first');
    return this.swarm;
  }

  settings(): NodeSettingsInUse {
    return this.#inUse ?? this.fail('no swarm yet: join some nodes first');
  }

  /** The live nodes a selector names, less frozen ones: they can be asked nothing. */
  select(sel: Selector): SimPeer[] {
    const live = this.liveSwarm()
      .alive()
      .filter((p) => p.frozen !== true);
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
    const shown = progress(this.opts.progress === true, this.startedAt, text, total);
    const told = this.opts.observeProgress?.(text, total);
    if (told === undefined) return shown;
    return {
      increment: () => {
        shown.increment();
        told.increment();
      },
      stop: () => {
        shown.stop();
        told.stop();
      },
    };
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
    return sleep(Math.max(0, t - Date.now()), undefined, { signal: this.opts.signal });
  }
}

/** `work`, or a rejection as soon as `signal` aborts (`work` goes on, its failure ignored). */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (signal === undefined) return work;
  work.catch(() => {});
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    if (signal.aborted) onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/** A setting's problem, with the scenario key that sets it (`timing ttl=`). */
function withScenarioKey(err: ParamsError): string {
  const e = entriesOf(SETTINGS).find((x) => x.key === err.field || x.path.at(-1) === err.field);
  const sc = e?.setting.scenario;
  return sc === undefined ? err.message : `${err.message} (${sc.statement} ${sc.key}=)`;
}
