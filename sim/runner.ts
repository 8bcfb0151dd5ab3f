/**
 * Runs a parsed scenario in real time against a swarm of real nodes: statements in file order,
 * each `at` command starting at its time (absolute from the start, or `+d` after the previous
 * command ended) or when the previous one finished, whichever is later; `expect` lines check the
 * metrics as they stand when reached.
 */
import { cpus } from 'node:os';
import type { KadDHTInit } from '@libp2p/kad-dht';
import cliProgress from 'cli-progress';
import pLimit from 'p-limit';
import type { SwarmParams } from '../src/index/swarm.ts';
import type { IndexParams } from '../src/keys/params.ts';
import type { ProtocolTraffic } from '../src/net/wire-meter.ts';
import type { Limits, Timing } from '../src/node/config.ts';
import { DEFAULT_TIMING } from '../src/node/config.ts';
import type { Profile } from '../src/profile/profile.ts';
import { type DatasetEntry, loadDataset, perturbed } from './datasets.ts';
import { GroundTruth, type Ranked, scoreSearch } from './ground-truth.ts';
import { gini, OpStats, opMetrics } from './metrics.ts';
import { Rng } from './random.ts';
import type { SimReport } from './report-types.ts';
import { type Amount, type Command, ScenarioError, type Statement } from './scenario.ts';
import { SimSwarm, type Slot, sleep } from './swarm.ts';

interface Community {
  id: string;
  dataset: string;
  owner: Slot;
  profile: Profile;
  dissolved: boolean;
  /** When its owner went away: it lives on in the index until its records expire. */
  orphanedAt?: number;
}

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
  /**
   * Called around every `at` command, e.g. to profile only the searches; `swarm` gives the
   * swarm (once the first join made it), for benches that read its meter or its nodes.
   */
  aroundCommand?: (
    command: string,
    run: () => Promise<void>,
    swarm: () => SimSwarm | undefined,
  ) => Promise<void>;
}

export async function runScenario(statements: Statement[], opts: RunOptions): Promise<SimReport> {
  const run = new Run(statements, opts);
  const stackTraceLimit = Error.stackTraceLimit;
  if (opts.stackTraces !== true) Error.stackTraceLimit = 0;
  try {
    await run.execute();
    run.stopSampling();
    // The report is taken while the swarm still stands: it counts live nodes and their load.
    return run.report();
  } finally {
    run.stopSampling();
    await run.swarm?.stopAll();
    Error.stackTraceLimit = stackTraceLimit;
  }
}

class Run {
  readonly #statements: Statement[];
  readonly #opts: RunOptions;
  seed = 0;
  index: IndexParams = { mode: 'lsh', n: 20, m: 1, seed: 'cidx' };
  params: Record<string, number> = {};
  timing: Partial<Timing> = {};
  swarm: SimSwarm | undefined;
  readonly datasets = new Map<string, DatasetEntry[]>();
  readonly communities = new Map<string, Community>();
  readonly byDataset = new Map<string, string[]>();
  readonly truth = new GroundTruth();
  readonly search = new OpStats();
  readonly create = new OpStats();
  readonly update = new OpStats();
  readonly labels = new Map<string, { search: OpStats; create: OpStats; update: OpStats }>();
  findable: number | undefined;
  gone: { checked: number; reappeared: number } | undefined;
  joinMs = 0;
  readonly startedAt = Date.now();
  readonly timeline: SimReport['timeline'] = [];
  readonly expects: SimReport['expects'] = [];
  readonly rss: { t: number; rss: number }[] = [];
  readonly #sampler: NodeJS.Timeout;
  #rng = new Rng(0, 'init');

  constructor(statements: Statement[], opts: RunOptions) {
    this.#statements = statements;
    this.#opts = opts;
    this.#sampler = setInterval(() => this.#sampleRss(), 1000);
    this.#sampler.unref();
    this.#sampleRss();
  }

  stopSampling(): void {
    clearInterval(this.#sampler);
    this.#sampleRss();
  }

  async execute(): Promise<void> {
    let lastEnd = this.startedAt;
    for (const st of this.#statements) {
      const fail = (problem: string): never => {
        throw new ScenarioError(this.#opts.file, st.line, problem);
      };
      switch (st.kind) {
        case 'seed':
          this.seed = this.#opts.seed ?? st.seed;
          break;
        case 'index':
          if (this.swarm) fail('index must come before the first join');
          this.index = st.index;
          break;
        case 'params':
          if (this.swarm) fail('params must come before the first join');
          this.params = { ...this.params, ...st.values };
          break;
        case 'timing':
          if (this.swarm) fail('timing must come before the first join');
          this.timing = timingFrom(st.values);
          break;
        case 'dataset':
          try {
            this.datasets.set(
              st.name,
              await loadDataset(st.name, st.source, {
                scenarioFile: this.#opts.file,
                seed: this.#opts.seed ?? this.seed,
                others: this.datasets,
                ...(st.offset !== undefined ? { offset: st.offset } : {}),
                ...(st.limit !== undefined ? { limit: st.limit } : {}),
              }),
            );
          } catch (err) {
            fail((err as Error).message);
          }
          break;
        case 'at': {
          const times = st.repeat?.times ?? 1;
          const first = st.relative ? lastEnd + st.ms : this.startedAt + st.ms;
          for (let i = 0; i < times; i++) {
            const due = first + i * (st.repeat?.everyMs ?? 0);
            await sleep(Math.max(0, due - Date.now()));
            const began = Date.now();
            let note: string | undefined;
            const run = async () => {
              note = await this.#command(st.command, st.text, fail);
            };
            await (this.#opts.aroundCommand
              ? this.#opts.aroundCommand(st.command.kind, run, () => this.swarm)
              : run());
            const entry = {
              t: began - this.startedAt,
              line: st.line,
              command: st.text,
              durationMs: Date.now() - began,
            };
            this.timeline.push(note === undefined ? entry : { ...entry, note });
          }
          lastEnd = Date.now();
          break;
        }
        case 'expect': {
          const metrics = this.metrics();
          const actual = metrics[st.metric];
          const pass = actual !== undefined && compare(actual, st.op, st.value);
          this.expects.push({
            line: st.line,
            text: st.text,
            metric: st.metric,
            op: st.op,
            value: st.value,
            actual: actual ?? null,
            pass,
          });
          this.#log(
            `line ${st.line}: ${st.text} → ${actual ?? 'no such metric'} ${pass ? 'PASS' : 'FAIL'}`,
          );
          break;
        }
        case 'report':
          await this.#opts.onReport?.(this.report());
          break;
      }
    }
  }

  #swarmOrFail(fail: (p: string) => never): SimSwarm {
    if (this.swarm === undefined || this.swarm.alive().length === 0)
      fail('no live node: join some first');
    return this.swarm as SimSwarm;
  }

  #stats(label: string | undefined): { search: OpStats; create: OpStats; update: OpStats }[] {
    const out = [{ search: this.search, create: this.create, update: this.update }];
    if (label !== undefined) {
      let l = this.labels.get(label);
      if (l === undefined) {
        l = { search: new OpStats(), create: new OpStats(), update: new OpStats() };
        this.labels.set(label, l);
      }
      out.push(l);
    }
    return out;
  }

  async #command(
    c: Command,
    text: string,
    fail: (p: string) => never,
  ): Promise<string | undefined> {
    this.#rng = new Rng(this.#opts.seed ?? this.seed, `${text}/${this.timeline.length}`);
    switch (c.kind) {
      case 'join': {
        this.swarm ??= new SimSwarm(
          {
            runId: `${process.pid}-${this.startedAt}`,
            swarm: this.#swarmParams(),
            timing: this.timing,
            limits: this.#limits(),
            dht: this.#dht(),
          },
          new Rng(this.#opts.seed ?? this.seed, 'swarm'),
        );
        const bar = this.#bar(text, c.count);
        const t = Date.now();
        await this.swarm.join(c.count, c.everyMs, () => bar.increment());
        this.joinMs += Date.now() - t;
        bar.stop();
        return `${this.swarm.alive().length} nodes alive`;
      }
      case 'create':
        return this.#create(c, text, fail);
      case 'search':
        return this.#search(c, text, fail);
      case 'update':
        return this.#update(c, text, fail);
      case 'dissolve': {
        const ids = (this.byDataset.get(c.dataset) ?? []).filter((id) => this.#live(id));
        const chosen = this.#rng.sample(ids, amountOf(c.amount, ids.length));
        let done = 0;
        for (const id of chosen) {
          const com = this.communities.get(id) as Community;
          try {
            await com.owner.node.dissolve(id);
            com.dissolved = true;
            this.truth.delete(id);
            done++;
          } catch {
            // counted below as not dissolved
          }
        }
        return `${done} of ${chosen.length} dissolved`;
      }
      case 'kill':
      case 'leave': {
        const swarm = this.#swarmOrFail(fail);
        const alive = swarm.alive();
        const n = amountOf(c.amount, alive.length);
        const victims =
          c.kind === 'kill' && c.which === 'holders'
            ? [...alive]
                .sort((a, b) => b.node.table.stats().descriptors - a.node.table.stats().descriptors)
                .slice(0, n)
            : this.#rng.sample(alive, n);
        this.#orphan(victims);
        if (c.kind === 'kill') await swarm.kill(victims);
        else await swarm.leave(victims);
        return `${victims.length} nodes gone, ${swarm.alive().length} alive`;
      }
      case 'wait-republish':
      case 'republish': {
        const swarm = this.#swarmOrFail(fail);
        const limit = pLimit(8);
        const owners = swarm.alive().filter((s) => s.node.ownedIds().length > 0);
        await Promise.all(owners.map((s) => limit(() => s.node.republish().catch(() => {}))));
        return `${owners.length} owners republished`;
      }
      case 'wait':
        await sleep(c.ms);
        return undefined;
      case 'churn':
        return this.#churn(c, fail);
      case 'check-findable':
        return this.#checkFindable(c.sample, text, fail);
      case 'check-gone':
        return this.#checkGone(text, fail);
    }
  }

  async #create(
    c: Extract<Command, { kind: 'create' }>,
    text: string,
    fail: (p: string) => never,
  ): Promise<string> {
    const swarm = this.#swarmOrFail(fail);
    const entries = this.#entries(c.dataset, c.limit, fail);
    const owners = swarm.select(c.from);
    if (owners.length === 0) fail('no live node matches from=');
    const stats = this.#stats(c.label).map((s) => s.create);
    const bar = this.#bar(text, entries.length);
    const before = swarm.meter.snapshot();
    // Owners are assigned in data-set order and ids recorded in that order, whatever the
    // concurrency, so later commands (update, dissolve) see the same communities.
    const limit = pLimit(c.concurrency);
    const created = await Promise.all(
      entries.map((e, i) =>
        limit(async () => {
          let owner = owners[i % owners.length] as Slot;
          if (!owner.alive) owner = this.#rng.sample(swarm.alive(), 1)[0] as Slot;
          const t = Date.now();
          try {
            const res = await owner.node.create(e.profile);
            for (const s of stats) s.done(Date.now() - t);
            return { id: res.id, owner, profile: e.profile };
          } catch {
            for (const s of stats) s.failed++;
            return null;
          } finally {
            bar.increment();
          }
        }),
      ),
    );
    for (const r of created) {
      if (r === null) continue;
      this.communities.set(r.id, { ...r, dataset: c.dataset, dissolved: false });
      const list = this.byDataset.get(c.dataset) ?? [];
      list.push(r.id);
      this.byDataset.set(c.dataset, list);
      this.truth.set(r.id, r.profile);
    }
    bar.stop();
    chargeTraffic(stats, before, swarm.meter.snapshot());
    return `${entries.length} created`;
  }

  async #search(
    c: Extract<Command, { kind: 'search' }>,
    text: string,
    fail: (p: string) => never,
  ): Promise<string> {
    const swarm = this.#swarmOrFail(fail);
    const entries = this.#entries(c.dataset, c.limit, fail);
    const askers = swarm.select(c.from);
    if (askers.length === 0) fail('no live node matches from=');
    const k = c.k ?? this.params.k ?? 5;
    const stats = this.#stats(c.label).map((s) => s.search);
    const bar = this.#bar(text, entries.length);
    const before = swarm.meter.snapshot();
    const limit = pLimit(c.concurrency);
    let unresolved = 0;
    await Promise.all(
      entries.map((e, i) =>
        limit(async () => {
          let asker = askers[i % askers.length] as Slot;
          if (!asker.alive) asker = this.#rng.sample(swarm.alive(), 1)[0] as Slot;
          const t = Date.now();
          try {
            const results = await asker.node.search(e.profile, { k });
            const latency = Date.now() - t;
            const score = c.exact
              ? scoreSearch(
                  results.map((r) => ({ id: r.id, similarity: r.similarity })),
                  this.#answerable(this.#exact(e.profile), results.length),
                  k,
                )
              : undefined;
            if (score?.unresolved) unresolved++;
            for (const s of stats) {
              s.done(latency);
              if (score) s.addScore(score);
            }
          } catch {
            for (const s of stats) s.failed++;
          }
          bar.increment();
        }),
      ),
    );
    bar.stop();
    chargeTraffic(stats, before, swarm.meter.snapshot());
    return `${entries.length} searches${c.exact ? `, ${unresolved} unresolved` : ''}`;
  }

  async #update(
    c: Extract<Command, { kind: 'update' }>,
    _text: string,
    fail: (p: string) => never,
  ): Promise<string> {
    const ids = this.byDataset.get(c.dataset) ?? [];
    let profiles: Profile[];
    if (c.source.kind === 'file') {
      const name = `${c.dataset}-update`;
      try {
        profiles = (
          await loadDataset(name, c.source, {
            scenarioFile: this.#opts.file,
            seed: this.seed,
            others: this.datasets,
          })
        ).map((e) => e.profile);
      } catch (err) {
        return fail((err as Error).message);
      }
    } else {
      const base = ids.map((id, i) => ({
        name: `${c.dataset}#${i}`,
        profile: (this.communities.get(id) as Community).profile,
      }));
      profiles =
        base.length === 0
          ? []
          : perturbed(
              `${c.dataset}-u`,
              base,
              base.length,
              c.source.keep,
              c.source.noise,
              this.#rng,
            ).map((e) => e.profile);
    }
    let done = 0;
    const stats = this.#stats(c.label).map((s) => s.update);
    const swarm = this.#swarmOrFail(fail);
    const before = swarm.meter.snapshot();
    for (const [i, id] of ids.entries()) {
      const p = profiles[i];
      if (p === undefined || !this.#live(id)) continue;
      const com = this.communities.get(id) as Community;
      if (!com.owner.alive) continue;
      const t = Date.now();
      try {
        await com.owner.node.update(id, p);
        com.profile = p;
        this.truth.set(id, p);
        done++;
        for (const s of stats) s.done(Date.now() - t);
      } catch {
        for (const s of stats) s.failed++;
      }
    }
    chargeTraffic(stats, before, swarm.meter.snapshot());
    return `${done} updated`;
  }

  async #churn(
    c: Extract<Command, { kind: 'churn' }>,
    fail: (p: string) => never,
  ): Promise<string> {
    const swarm = this.#swarmOrFail(fail);
    const end = Date.now() + c.forMs;
    let killed = 0;
    let joined = 0;
    if (c.model.kind === 'rate') {
      // Exactly ⌊for / per⌋ steps, one per period from the start: a slow step (a loaded
      // machine) delays the next one, it does not drop it.
      const { fraction, perMs } = c.model;
      const start = Date.now();
      const steps = Math.floor(c.forMs / perMs);
      for (let step = 1; step <= steps; step++) {
        await sleep(Math.max(0, start + step * perMs - Date.now()));
        const alive = swarm.alive();
        // p% of all live nodes go, drawn from those not spared (long-lived owners, say).
        const spared = new Set(c.spare === undefined ? [] : swarm.select(c.spare));
        const victims = this.#rng.sample(
          alive.filter((s) => !spared.has(s)),
          Math.round(alive.length * fraction),
        );
        this.#orphan(victims);
        await swarm.kill(victims);
        await swarm.join(victims.length, 0);
        killed += victims.length;
        joined += victims.length;
        if (c.model.search !== undefined) {
          const { dataset, label } = c.model.search;
          await this.#search(
            {
              kind: 'search',
              dataset,
              exact: true,
              from: { kind: 'all' },
              concurrency: 4,
              ...(label !== undefined ? { label } : {}),
            },
            `search ${dataset} during churn`,
            fail,
          );
        }
      }
    } else {
      // Session-based churn: every live node gets a session length; when it ends the node
      // crashes and, after the downtime, a new node takes its place with a session of its own.
      const model = c.model;
      const draw = () =>
        model.kind === 'exponential'
          ? this.#rng.exponential(model.meanMs)
          : this.#rng.pareto(model.shape, model.scaleMs);
      const deaths = new Map<Slot, number>(swarm.alive().map((s) => [s, Date.now() + draw()]));
      const births: number[] = [];
      while (Date.now() < end) {
        const next = Math.min(end, ...deaths.values(), ...births);
        await sleep(Math.max(0, next - Date.now()));
        const now = Date.now();
        const due = [...deaths].filter(([s, t]) => t <= now && s.alive).map(([s]) => s);
        // Keep at least one node alive, so the swarm always has an entry point.
        const victims = due.slice(0, Math.max(0, swarm.alive().length - 1));
        for (const v of due) deaths.delete(v);
        if (victims.length > 0) {
          this.#orphan(victims);
          await swarm.kill(victims);
          killed += victims.length;
          for (let i = 0; i < victims.length; i++) births.push(now + model.downtimeMs);
        }
        const born = births.filter((t) => t <= Date.now()).length;
        births.splice(0, births.length, ...births.filter((t) => t > Date.now()));
        if (born > 0) {
          for (const s of await swarm.join(born, 0)) deaths.set(s, Date.now() + draw());
          joined += born;
        }
      }
    }
    return `${killed} crashed, ${joined} joined, ${swarm.alive().length} alive`;
  }

  async #checkFindable(
    sample: number | undefined,
    text: string,
    fail: (p: string) => never,
  ): Promise<string> {
    const swarm = this.#swarmOrFail(fail);
    const ids = [...this.communities.values()]
      .filter((c) => !c.dissolved && c.orphanedAt === undefined)
      .map((c) => c.id);
    const chosen = sample === undefined ? ids : this.#rng.sample(ids, sample);
    const bar = this.#bar(text, chosen.length);
    let found = 0;
    for (const id of chosen) {
      const com = this.communities.get(id) as Community;
      const asker = this.#rng.sample(swarm.alive(), 1)[0] as Slot;
      try {
        const [best] = await asker.node.search(com.profile, { k: 1 });
        const exact = this.#exact(com.profile)[0];
        if (
          best !== undefined &&
          (best.id === id ||
            (exact !== undefined && Math.abs(best.similarity - exact.similarity) < 1e-9))
        )
          found++;
      } catch {
        // not found
      }
      bar.increment();
    }
    bar.stop();
    this.findable = chosen.length === 0 ? 1 : found / chosen.length;
    return `${found} of ${chosen.length} found first`;
  }

  /**
   * Searches the own profile of every community that should be gone — dissolved, or orphaned
   * for longer than the record lifetime — and counts those the swarm still returns.
   */
  async #checkGone(text: string, fail: (p: string) => never): Promise<string> {
    const swarm = this.#swarmOrFail(fail);
    const ttl = this.timing.recordTtlMs ?? DEFAULT_TIMING.recordTtlMs;
    const sweep = this.timing.expireIntervalMs ?? DEFAULT_TIMING.expireIntervalMs;
    const gone = [...this.communities.values()].filter(
      (c) => c.dissolved || (c.orphanedAt !== undefined && Date.now() - c.orphanedAt > ttl + sweep),
    );
    const bar = this.#bar(text, gone.length);
    let reappeared = 0;
    for (const com of gone) {
      const asker = this.#rng.sample(swarm.alive(), 1)[0] as Slot;
      try {
        const results = await asker.node.search(com.profile, { k: 5 });
        if (results.some((r) => r.id === com.id)) reappeared++;
      } catch {
        // nothing returned: gone
      }
      bar.increment();
    }
    bar.stop();
    this.gone = { checked: gone.length, reappeared };
    return `${reappeared} of ${gone.length} still returned`;
  }

  #entries(name: string, limit: number | undefined, fail: (p: string) => never): DatasetEntry[] {
    const all = this.datasets.get(name);
    if (all === undefined) return fail(`dataset "${name}" was not loaded`);
    return limit === undefined ? all : all.slice(0, limit);
  }

  /** Communities of departed owners stay in the index until their records expire. */
  #orphan(slots: Slot[]): void {
    const gone = new Set(slots);
    for (const c of this.communities.values())
      if (gone.has(c.owner) && c.orphanedAt === undefined) c.orphanedAt = Date.now();
  }

  #live(id: string): boolean {
    const c = this.communities.get(id);
    return c !== undefined && !c.dissolved && this.truth.has(id);
  }

  /**
   * An empty answer is only a failure when a community with a live owner matches: once its owner
   * is gone, a community may vanish as soon as its last holders do, before its records expire.
   */
  #answerable(exact: Ranked[], returned: number): Ranked[] {
    if (returned > 0) return exact;
    return exact.some((r) => this.communities.get(r.id)?.orphanedAt === undefined) ? exact : [];
  }

  /** The exact answer over the communities alive now (orphans count until their records expire). */
  #exact(profile: Profile) {
    const ttl = this.timing.recordTtlMs ?? DEFAULT_TIMING.recordTtlMs;
    for (const c of this.communities.values()) {
      if (c.orphanedAt !== undefined && Date.now() - c.orphanedAt > ttl) this.truth.delete(c.id);
    }
    return this.truth.rank(profile);
  }

  #swarmParams(): Partial<SwarmParams> {
    const p: Partial<SwarmParams> = { index: this.index };
    for (const k of ['k', 'l', 's', 'replicas'] as const)
      if (this.params[k] !== undefined) p[k] = this.params[k];
    return p;
  }

  /** params bucket= alpha= paths=: kad-dht's k, alpha and disjoint paths, for experiments. */
  #dht(): Partial<KadDHTInit> {
    const d: Partial<KadDHTInit> = {};
    if (this.params.bucket !== undefined) d.kBucketSize = this.params.bucket;
    if (this.params.alpha !== undefined) d.alpha = this.params.alpha;
    if (this.params.paths !== undefined) d.disjointPaths = this.params.paths;
    return d;
  }

  #limits(): Partial<Limits> {
    const l: Partial<Limits> = {};
    if (this.params.queryReplicas !== undefined) l.queryReplicas = this.params.queryReplicas;
    if (this.params.concurrency !== undefined) l.concurrency = this.params.concurrency;
    if (this.params.seenFilter !== undefined) l.seenFilterBytes = this.params.seenFilter;
    if (this.params.brief !== undefined) l.briefReplies = this.params.brief;
    if (this.params.responderK !== undefined) l.responderK = this.params.responderK;
    if (this.params.reuse !== undefined) l.reuseConnections = this.params.reuse;
    if (this.params.float32 !== undefined) l.queryFloat32 = this.params.float32;
    return l;
  }

  metrics(): Record<string, number> {
    const m: Record<string, number> = {
      ...opMetrics('', this.search, this.create, this.update),
    };
    for (const [label, s] of this.labels)
      Object.assign(m, opMetrics(`${label}.`, s.search, s.create, s.update));
    const swarm = this.swarm;
    const live = swarm?.alive() ?? [];
    const loads = live.map((s) => s.node.table.stats());
    const entries = loads.map((l) => l.descriptors);
    const total = entries.reduce((s, v) => s + v, 0);
    m['nodes.alive'] = live.length;
    m['nodes.joined'] = swarm?.slots.length ?? 0;
    m['index.entries'] = total;
    m['index.keys'] = loads.reduce((s, l) => s + l.keys, 0);
    m['index.bytes'] = loads.reduce((s, l) => s + l.bytes, 0);
    m['index.bytes_max_node'] = Math.max(0, ...loads.map((l) => l.bytes));
    m['load.loaded_nodes'] = entries.filter((e) => e > 0).length;
    m['load.mean'] = live.length === 0 ? 0 : total / live.length;
    m['load.max_over_mean'] = total === 0 ? 0 : Math.max(...entries) / (total / live.length);
    m['load.gini'] = gini(entries);
    const alive = [...this.communities.values()].filter(
      (c) => !c.dissolved && this.truth.has(c.id),
    );
    m['communities.created'] = this.communities.size;
    m['communities.alive'] = alive.length;
    if (this.findable !== undefined) m['communities.findable'] = this.findable;
    if (this.gone !== undefined) {
      m['communities.gone_checked'] = this.gone.checked;
      m['communities.reappeared'] = this.gone.reappeared;
    }
    m['notifications.delivered'] = swarm?.notifications ?? 0;
    if (swarm && swarm.searches.count > 0) {
      // How a search's requests spread over peers: what one request per peer would save.
      const s = swarm.searches;
      m['search.requests'] = s.requests / s.count;
      m['search.request_peers'] = s.peers / s.count;
      m['search.repeat_queries'] = s.repeatQueries / s.count;
    }
    if (swarm && swarm.lookups.count > 0) {
      m['lookup.count'] = swarm.lookups.count;
      m['lookup.hops'] = swarm.lookups.hops / swarm.lookups.count;
      m['lookup.messages'] = swarm.lookups.messages / swarm.lookups.count;
      m['lookup.ms'] = swarm.lookups.ms / swarm.lookups.count;
    }
    if (swarm) {
      for (const [proto, t] of Object.entries(swarm.meter.snapshot())) {
        const short = shortProtocol(proto);
        m[`traffic.${short}.bytes`] = t.bytes;
        m[`traffic.${short}.messages`] = t.sends;
        m[`traffic.${short}.streams`] = t.streams;
      }
      const tot = swarm.meter.total();
      m['traffic.total.bytes'] = tot.bytes;
      m['traffic.total.messages'] = tot.sends;
    }
    m['time.join_ms'] = this.joinMs;
    m['memory.rss_mb'] = Math.round(process.memoryUsage().rss / 2 ** 20);
    m['memory.peak_rss_mb'] = Math.max(...this.rss.map((r) => r.rss), m['memory.rss_mb']);
    return m;
  }

  report(): SimReport {
    const swarm = this.swarm;
    return {
      scenario: {
        file: this.#opts.file,
        seed: this.#opts.seed ?? this.seed,
        startedAt: new Date(this.startedAt).toISOString(),
        durationMs: Date.now() - this.startedAt,
        machine: `node ${process.version}, ${cpus()[0]?.model ?? 'unknown CPU'} × ${cpus().length}`,
        nodesPeak: Math.max(0, ...(swarm?.aliveSeries.map((a) => a.alive) ?? [0])),
      },
      metrics: this.metrics(),
      expects: this.expects,
      timeline: this.timeline,
      series: {
        nodes: swarm?.aliveSeries ?? [],
        rssMb: this.rss,
        searchLatencyMs: this.search.latencies,
        createLatencyMs: this.create.latencies,
        loadPerNode: swarm?.alive().map((s) => s.node.table.stats().descriptors) ?? [],
        protocols: swarm?.meter.snapshot() ?? {},
      },
    };
  }

  #sampleRss(): void {
    this.rss.push({
      t: Date.now() - this.startedAt,
      rss: Math.round(process.memoryUsage().rss / 2 ** 20),
    });
  }

  #bar(text: string, total: number): { increment(): void; stop(): void } {
    if (!this.#opts.progress) return { increment() {}, stop() {} };
    if (!process.stderr.isTTY) {
      // Logs (nohup, CI) get a line per tenth of a long command, with the memory so far.
      const t = Date.now();
      const stamp = () => `[${((Date.now() - this.startedAt) / 1000).toFixed(1)}s]`;
      process.stderr.write(`${stamp()} ${text} …\n`);
      const step = total >= 20 ? Math.ceil(total / 10) : 0;
      let done = 0;
      return {
        increment: () => {
          done++;
          if (step > 0 && done % step === 0 && done < total) {
            const rss = Math.round(process.memoryUsage().rss / 2 ** 20);
            process.stderr.write(`${stamp()}   ${done}/${total}, RSS ${rss} MiB\n`);
          }
        },
        stop: () =>
          process.stderr.write(
            `${stamp()} ${text} done in ${((Date.now() - t) / 1000).toFixed(1)}s\n`,
          ),
      };
    }
    const bar = new cliProgress.SingleBar(
      {
        format: `${text.slice(0, 40).padEnd(40)} [{bar}] {value}/{total} {eta_formatted}`,
        stream: process.stderr,
        clearOnComplete: false,
      },
      cliProgress.Presets.shades_classic,
    );
    bar.start(total, 0);
    return { increment: () => bar.increment(), stop: () => bar.stop() };
  }

  #log(line: string): void {
    if (this.#opts.progress) process.stderr.write(`${line}\n`);
  }
}

/** Charges the wire traffic of a command (all protocols, all nodes) to its operations. */
function chargeTraffic(
  stats: OpStats[],
  before: Record<string, ProtocolTraffic>,
  after: Record<string, ProtocolTraffic>,
): void {
  for (const [proto, t] of Object.entries(after)) {
    const sends = t.sends - (before[proto]?.sends ?? 0);
    const bytes = t.bytes - (before[proto]?.bytes ?? 0);
    if (sends === 0 && bytes === 0) continue;
    const short = shortProtocol(proto);
    for (const s of stats) {
      s.sends += sends;
      s.bytes += bytes;
      const p = s.byProtocol.get(short) ?? { sends: 0, bytes: 0 };
      p.sends += sends;
      p.bytes += bytes;
      s.byProtocol.set(short, p);
    }
  }
}

function compare(a: number, op: string, b: number): boolean {
  switch (op) {
    case '<':
      return a < b;
    case '<=':
      return a <= b;
    case '==':
      return Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(b));
    case '>=':
      return a >= b;
    default:
      return a > b;
  }
}

function amountOf(a: Amount, of: number): number {
  return a.kind === 'count' ? Math.min(a.n, of) : Math.round(a.p * of);
}

function timingFrom(v: Record<string, number>): Partial<Timing> {
  const t: Partial<Timing> = {};
  if (v.republish !== undefined) t.republishIntervalMs = v.republish;
  if (v.ttl !== undefined) t.recordTtlMs = v.ttl;
  if (v.tombstone !== undefined) t.tombstoneTtlMs = v.tombstone;
  if (v.request !== undefined) t.requestTimeoutMs = v.request;
  if (v.lookup !== undefined) t.lookupTimeoutMs = v.lookup;
  if (v.cache !== undefined) t.closestCacheMs = v.cache;
  if (v.expire !== undefined) t.expireIntervalMs = v.expire;
  return t;
}

const SHORT: Record<string, string> = {
  '/cidx/index/1.0.0': 'cidx',
  '/cidx/profiles/kad/1.0.0': 'profiles_dht',
  '/cidx/addresses/kad/1.0.0': 'addresses_dht',
  '/ipfs/id/1.0.0': 'identify',
  '/ipfs/id/push/1.0.0': 'identify_push',
  '/ipfs/ping/1.0.0': 'ping',
};

function shortProtocol(p: string): string {
  return SHORT[p] ?? p.replace(/[^a-z0-9]+/gi, '_').replace(/^_|_$/g, '');
}
