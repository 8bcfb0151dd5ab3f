/**
 * The scenario language of `cidx sim`: one statement a line, `#` comments. Parsing checks every
 * statement, so a run never starts with a typo in its line 40; errors read `file:line: problem`.
 *
 *   seed 7
 *   index lsh n=20 m=1 seed=swarm-1 [family=oph bits=64]     |  index attribute
 *   params k=5 l=3 s=5 replicas=3 [queryReplicas=1]
 *   timing republish=30s ttl=2m tombstone=4m [request=5s lookup=10s cache=30s]
 *   dataset <name> <path.jsonl> [offset=N] [limit=N]
 *   dataset <name> synthetic count=N size=S [topics=T vocabulary=V matrix=yes]
 *   dataset <name> perturb <other> count=N keep=0.7 [noise=0.1]
 *   at <time> [every <period> times <n>] <command>          time: 10s (absolute) or +10s
 *   expect <metric> <op> <number>                           op: < <= == >= >
 *   report
 *
 * Commands: join <n> [every <d>] | create <dataset> [from= limit= label= concurrency=] |
 * search <dataset> [exact] [k= from= limit= label= concurrency=] |
 * update <dataset> <path.jsonl | perturb keep=..> | dissolve <dataset> <p>% |
 * kill <n | p%> [which=random|holders] | leave <n | p%> | wait republish | wait <d> |
 * republish | churn exponential mean=<d> [downtime=<d>] for <d> |
 * churn pareto shape=<x> scale=<d> [downtime=<d>] for <d> | churn rate=<p>% per=<d> for <d> |
 * check findable [sample=N] | check gone
 */
import type { IndexParams } from '../src/keys/params.ts';

export class ScenarioError extends Error {
  constructor(file: string, line: number, problem: string) {
    super(`${file}:${line}: ${problem}`);
    this.name = 'ScenarioError';
  }
}

export type Op = '<' | '<=' | '==' | '>=' | '>';
export type Selector =
  | { kind: 'all' }
  | { kind: 'range'; from: number; to: number }
  | { kind: 'random'; count: number };
export type Amount = { kind: 'count'; n: number } | { kind: 'percent'; p: number };

export type DatasetSource =
  | { kind: 'file'; path: string }
  | {
      kind: 'synthetic';
      count: number;
      size: number;
      topics: number;
      vocabulary: number;
      matrix: boolean;
    }
  | { kind: 'perturb'; of: string; count: number; keep: number; noise: number };

export type ChurnModel =
  | { kind: 'exponential'; meanMs: number; downtimeMs: number }
  | { kind: 'pareto'; shape: number; scaleMs: number; downtimeMs: number }
  | {
      kind: 'rate';
      fraction: number;
      perMs: number;
      /** Searched (and scored) after every step, recorded under `label`. */
      search?: { dataset: string; label?: string };
    };

export type Command =
  | { kind: 'join'; count: number; everyMs: number }
  | {
      kind: 'create';
      dataset: string;
      from: Selector;
      limit?: number;
      label?: string;
      concurrency: number;
    }
  | {
      kind: 'search';
      dataset: string;
      exact: boolean;
      k?: number;
      from: Selector;
      limit?: number;
      label?: string;
      concurrency: number;
    }
  | {
      kind: 'update';
      dataset: string;
      source: { kind: 'file'; path: string } | { kind: 'perturb'; keep: number; noise: number };
      label?: string;
    }
  | { kind: 'dissolve'; dataset: string; amount: Amount }
  | { kind: 'kill'; amount: Amount; which: 'random' | 'holders' }
  | { kind: 'leave'; amount: Amount }
  | { kind: 'wait-republish' }
  | { kind: 'wait'; ms: number }
  | { kind: 'republish' }
  | { kind: 'churn'; model: ChurnModel; forMs: number; spare?: Selector }
  | { kind: 'check-findable'; sample?: number }
  | { kind: 'check-gone' };

export type Statement = { line: number; text: string } & (
  | { kind: 'seed'; seed: number }
  | { kind: 'index'; index: IndexParams }
  | { kind: 'params'; values: Record<string, number> }
  | { kind: 'timing'; values: Record<string, number> }
  | { kind: 'dataset'; name: string; source: DatasetSource; offset?: number; limit?: number }
  | {
      kind: 'at';
      relative: boolean;
      ms: number;
      repeat?: { everyMs: number; times: number };
      command: Command;
    }
  | { kind: 'expect'; metric: string; op: Op; value: number }
  | { kind: 'report' }
);

const DURATION = /^(\d+(?:\.\d+)?)(ms|s|m|h)$/;
const UNIT: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** Parses a scenario; throws ScenarioError at the first bad line. */
export function parseScenario(text: string, file: string): Statement[] {
  const out: Statement[] = [];
  const datasets = new Set<string>();
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = i + 1;
    const content = raw.replace(/#.*$/, '').trim();
    if (content === '') return;
    const p = new LineParser(content.split(/\s+/), file, line);
    const stmt = parseStatement(p, datasets);
    p.end();
    out.push({ line, text: content, ...stmt } as Statement);
  });
  return out;
}

/** A statement before its line number and text are attached (Omit, distributed over the union). */
type Body = Statement extends unknown
  ? Statement extends infer S
    ? S extends Statement
      ? Omit<S, 'line' | 'text'>
      : never
    : never
  : never;

function parseStatement(p: LineParser, datasets: Set<string>): Body {
  const word = p.word('a statement');
  switch (word) {
    case 'seed':
      return { kind: 'seed', seed: p.int('seed', 0, 2 ** 32 - 1) };
    case 'index': {
      const mode = p.word('attribute or lsh');
      if (mode === 'attribute') return { kind: 'index', index: { mode: 'attribute' } };
      if (mode !== 'lsh') p.fail(`index must be "attribute" or "lsh", not "${mode}"`);
      const kv = p.options({ n: 'int', m: 'int', seed: 'string', family: 'string', bits: 'int' });
      if (kv.n === undefined || kv.m === undefined || kv.seed === undefined)
        p.fail('index lsh needs n=, m= and seed=');
      return {
        kind: 'index',
        index: { mode: 'lsh', ...(kv as { n: number; m: number; seed: string }) },
      };
    }
    case 'params':
      return {
        kind: 'params',
        values: p.options({
          k: 'int',
          l: 'int',
          s: 'int',
          replicas: 'int',
          queryReplicas: 'int',
          concurrency: 'int',
          bucket: 'int',
          alpha: 'int',
          paths: 'int',
        }) as Record<string, number>,
      };
    case 'timing':
      return {
        kind: 'timing',
        values: p.options({
          republish: 'duration',
          ttl: 'duration',
          tombstone: 'duration',
          request: 'duration',
          lookup: 'duration',
          cache: 'duration',
          expire: 'duration',
        }) as Record<string, number>,
      };
    case 'dataset': {
      const name = p.name('a dataset name');
      const what = p.word('a path, "synthetic" or "perturb"');
      let source: DatasetSource;
      let kv: Record<string, unknown>;
      if (what === 'synthetic') {
        kv = p.options({
          count: 'int',
          size: 'int',
          topics: 'int',
          vocabulary: 'int',
          matrix: 'bool',
          offset: 'int',
          limit: 'int',
        });
        if (kv.count === undefined || kv.size === undefined)
          p.fail('dataset synthetic needs count= and size=');
        source = {
          kind: 'synthetic',
          count: kv.count as number,
          size: kv.size as number,
          topics: (kv.topics as number) ?? 7,
          vocabulary: (kv.vocabulary as number) ?? 4 * (kv.size as number),
          matrix: (kv.matrix as boolean) ?? false,
        };
      } else if (what === 'perturb') {
        const of = p.name('the dataset to perturb');
        if (!datasets.has(of)) p.fail(`unknown dataset "${of}" (declare it first)`);
        kv = p.options({
          count: 'int',
          keep: 'fraction',
          noise: 'fraction',
          offset: 'int',
          limit: 'int',
        });
        if (kv.count === undefined || kv.keep === undefined)
          p.fail('dataset perturb needs count= and keep=');
        source = {
          kind: 'perturb',
          of,
          count: kv.count as number,
          keep: kv.keep as number,
          noise: (kv.noise as number) ?? 0,
        };
      } else {
        kv = p.options({ offset: 'int', limit: 'int' });
        source = { kind: 'file', path: what };
      }
      datasets.add(name);
      return {
        kind: 'dataset',
        name,
        source,
        ...(kv.offset !== undefined ? { offset: kv.offset as number } : {}),
        ...(kv.limit !== undefined ? { limit: kv.limit as number } : {}),
      };
    }
    case 'at': {
      const t = p.word('a time such as 5s or +5s');
      const relative = t.startsWith('+');
      const ms = p.duration(relative ? t.slice(1) : t, 'time');
      let repeat: { everyMs: number; times: number } | undefined;
      if (p.peek() === 'every') {
        p.word('every');
        const everyMs = p.duration(p.word('a period'), 'period');
        if (everyMs <= 0) p.fail('the period must be longer than 0');
        const t2 = p.word('"times"');
        if (t2 !== 'times') p.fail(`expected "times <n>" after the period, not "${t2}"`);
        repeat = { everyMs, times: p.int('times', 1, 1_000_000) };
      }
      const command = parseCommand(p, datasets);
      return { kind: 'at', relative, ms, ...(repeat ? { repeat } : {}), command };
    }
    case 'expect': {
      const metric = p.word('a metric name');
      if (!/^[a-z0-9_.-]+$/i.test(metric)) p.fail(`"${metric}" is not a metric name`);
      const op = p.word('an operator');
      if (!['<', '<=', '==', '>=', '>'].includes(op))
        p.fail(`operator must be one of < <= == >= >, not "${op}"`);
      return { kind: 'expect', metric, op: op as Op, value: p.number('the expected value') };
    }
    case 'report':
      return { kind: 'report' };
    default:
      return p.fail(`unknown statement "${word}"`);
  }
}

function parseCommand(p: LineParser, datasets: Set<string>): Command {
  const word = p.word('a command');
  const dataset = () => {
    const d = p.name('a dataset name');
    if (!datasets.has(d))
      p.fail(`unknown dataset "${d}" (declare it with a dataset statement first)`);
    return d;
  };
  switch (word) {
    case 'join': {
      const count = p.int('the number of nodes', 1, 100_000);
      let everyMs = 0;
      if (p.peek() === 'every') {
        p.word('every');
        everyMs = p.duration(p.word('an interval'), 'interval');
      }
      return { kind: 'join', count, everyMs };
    }
    case 'create': {
      const d = dataset();
      const kv = p.options({
        from: 'selector',
        limit: 'int',
        label: 'string',
        concurrency: 'int',
      });
      return {
        kind: 'create',
        dataset: d,
        from: (kv.from as Selector) ?? { kind: 'all' },
        ...(kv.limit !== undefined ? { limit: kv.limit as number } : {}),
        ...(kv.label !== undefined ? { label: kv.label as string } : {}),
        concurrency: (kv.concurrency as number) ?? 1,
      };
    }
    case 'search': {
      const d = dataset();
      let exact = false;
      if (p.peek() === 'exact') {
        p.word('exact');
        exact = true;
      }
      const kv = p.options({
        k: 'int',
        from: 'selector',
        limit: 'int',
        label: 'string',
        concurrency: 'int',
      });
      return {
        kind: 'search',
        dataset: d,
        exact,
        from: (kv.from as Selector) ?? { kind: 'all' },
        concurrency: (kv.concurrency as number) ?? 1,
        ...(kv.k !== undefined ? { k: kv.k as number } : {}),
        ...(kv.limit !== undefined ? { limit: kv.limit as number } : {}),
        ...(kv.label !== undefined ? { label: kv.label as string } : {}),
      };
    }
    case 'update': {
      const d = dataset();
      const what = p.word('a path or "perturb"');
      if (what === 'perturb') {
        const kv = p.options({ keep: 'fraction', noise: 'fraction', label: 'string' });
        if (kv.keep === undefined) p.fail('update perturb needs keep=');
        return {
          kind: 'update',
          dataset: d,
          source: { kind: 'perturb', keep: kv.keep as number, noise: (kv.noise as number) ?? 0 },
          ...(kv.label !== undefined ? { label: kv.label as string } : {}),
        };
      }
      const kv = p.options({ label: 'string' });
      return {
        kind: 'update',
        dataset: d,
        source: { kind: 'file', path: what },
        ...(kv.label !== undefined ? { label: kv.label as string } : {}),
      };
    }
    case 'dissolve': {
      const d = dataset();
      return { kind: 'dissolve', dataset: d, amount: p.amount() };
    }
    case 'kill': {
      const amount = p.amount();
      const kv = p.options({ which: 'string' });
      const which = (kv.which as string) ?? 'random';
      if (which !== 'random' && which !== 'holders') p.fail('which= must be random or holders');
      return { kind: 'kill', amount, which };
    }
    case 'leave':
      return { kind: 'leave', amount: p.amount() };
    case 'wait': {
      const w = p.word('"republish" or a duration');
      if (w === 'republish') return { kind: 'wait-republish' };
      return { kind: 'wait', ms: p.duration(w, 'wait') };
    }
    case 'republish':
      return { kind: 'republish' };
    case 'churn': {
      const model = p.word('exponential, pareto or rate=<p>%');
      let m: ChurnModel;
      let spare: Selector | undefined;
      if (model === 'exponential') {
        const kv = p.options({ mean: 'duration', downtime: 'duration' });
        if (kv.mean === undefined) p.fail('churn exponential needs mean=');
        m = {
          kind: 'exponential',
          meanMs: kv.mean as number,
          downtimeMs: (kv.downtime as number) ?? 0,
        };
      } else if (model === 'pareto') {
        const kv = p.options({ shape: 'number', scale: 'duration', downtime: 'duration' });
        if (kv.shape === undefined || kv.scale === undefined)
          p.fail('churn pareto needs shape= and scale=');
        m = {
          kind: 'pareto',
          shape: kv.shape as number,
          scaleMs: kv.scale as number,
          downtimeMs: (kv.downtime as number) ?? 0,
        };
      } else if (model.startsWith('rate=')) {
        p.unread(model);
        const kv = p.options({
          rate: 'percent',
          per: 'duration',
          search: 'string',
          label: 'string',
          spare: 'selector',
        });
        if (kv.spare !== undefined) spare = kv.spare as Selector;
        m = { kind: 'rate', fraction: kv.rate as number, perMs: (kv.per as number) ?? 60_000 };
        if (kv.search !== undefined) {
          if (!datasets.has(kv.search as string))
            p.fail(`unknown dataset "${kv.search}" (declare it with a dataset statement first)`);
          m.search = {
            dataset: kv.search as string,
            ...(kv.label !== undefined ? { label: kv.label as string } : {}),
          };
        } else if (kv.label !== undefined) p.fail('label= needs search=<dataset>');
      } else {
        return p.fail(`unknown churn model "${model}" (exponential, pareto, rate=)`);
      }
      const f = p.word('"for <duration>"');
      if (f !== 'for') p.fail(`expected "for <duration>", not "${f}"`);
      const forMs = p.duration(p.word('a duration'), 'for');
      return { kind: 'churn', model: m, forMs, ...(spare !== undefined ? { spare } : {}) };
    }
    case 'check': {
      const what = p.word('"findable" or "gone"');
      if (what === 'gone') return { kind: 'check-gone' };
      if (what !== 'findable') p.fail(`unknown check "${what}" (findable, gone)`);
      const kv = p.options({ sample: 'int' });
      return {
        kind: 'check-findable',
        ...(kv.sample !== undefined ? { sample: kv.sample as number } : {}),
      };
    }
    default:
      return p.fail(`unknown command "${word}"`);
  }
}

type OptType =
  | 'int'
  | 'number'
  | 'string'
  | 'duration'
  | 'fraction'
  | 'percent'
  | 'bool'
  | 'selector';

class LineParser {
  readonly #words: string[];
  readonly #file: string;
  readonly #line: number;
  #i = 0;

  constructor(words: string[], file: string, line: number) {
    this.#words = words;
    this.#file = file;
    this.#line = line;
  }

  fail(problem: string): never {
    throw new ScenarioError(this.#file, this.#line, problem);
  }

  peek(): string | undefined {
    return this.#words[this.#i];
  }

  unread(_w: string): void {
    this.#i--;
  }

  word(what: string): string {
    const w = this.#words[this.#i++];
    if (w === undefined) this.fail(`expected ${what}`);
    return w;
  }

  name(what: string): string {
    const w = this.word(what);
    if (!/^[A-Za-z][\w-]*$/.test(w)) this.fail(`"${w}" is not ${what} (letters, digits, - and _)`);
    return w;
  }

  int(what: string, min: number, max: number): number {
    const w = this.word(what);
    const v = Number(w);
    if (!/^\d+$/.test(w) || v < min || v > max)
      this.fail(`${what} must be an integer in [${min}, ${max}], not "${w}"`);
    return v;
  }

  number(what: string): number {
    const w = this.word(what);
    const v = Number(w);
    if (w.trim() === '' || !Number.isFinite(v)) this.fail(`${what} must be a number, not "${w}"`);
    return v;
  }

  duration(w: string, what: string): number {
    const m = DURATION.exec(w);
    if (m === null) this.fail(`${what} must be a duration such as 250ms, 2s, 1m or 1h, not "${w}"`);
    return Number(m[1]) * (UNIT[m[2] as string] as number);
  }

  amount(): Amount {
    const w = this.word('a count or a percentage');
    if (/^\d+(\.\d+)?%$/.test(w)) {
      const p = Number(w.slice(0, -1)) / 100;
      if (p > 1) this.fail(`a percentage cannot exceed 100%, not "${w}"`);
      return { kind: 'percent', p };
    }
    if (/^\d+$/.test(w)) return { kind: 'count', n: Number(w) };
    return this.fail(`expected a count or a percentage such as 30%, not "${w}"`);
  }

  /** key=value options of the listed names and types, in any order, each at most once. */
  options(spec: Record<string, OptType>): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    while (this.#i < this.#words.length) {
      const w = this.#words[this.#i] as string;
      const eq = w.indexOf('=');
      if (eq <= 0) break;
      const key = w.slice(0, eq);
      const raw = w.slice(eq + 1);
      const type = spec[key];
      if (type === undefined)
        this.fail(`unknown option "${key}" (known: ${Object.keys(spec).join(', ')})`);
      if (key in out) this.fail(`option "${key}" given twice`);
      this.#i++;
      out[key] = this.#value(key, raw, type);
    }
    return out;
  }

  #value(key: string, raw: string, type: OptType): unknown {
    switch (type) {
      case 'int': {
        if (!/^\d+$/.test(raw)) this.fail(`${key}= must be a whole number, not "${raw}"`);
        return Number(raw);
      }
      case 'number': {
        const v = Number(raw);
        if (raw === '' || !Number.isFinite(v)) this.fail(`${key}= must be a number, not "${raw}"`);
        return v;
      }
      case 'string':
        if (raw === '') this.fail(`${key}= must not be empty`);
        return raw;
      case 'duration':
        return this.duration(raw, `${key}=`);
      case 'fraction': {
        const v = Number(raw);
        if (raw === '' || !(v >= 0 && v <= 1))
          this.fail(`${key}= must be a number in [0, 1], not "${raw}"`);
        return v;
      }
      case 'percent': {
        if (!/^\d+(\.\d+)?%$/.test(raw))
          this.fail(`${key}= must be a percentage such as 10%, not "${raw}"`);
        const v = Number(raw.slice(0, -1)) / 100;
        if (v > 1) this.fail(`${key}= cannot exceed 100%`);
        return v;
      }
      case 'bool':
        if (raw !== 'yes' && raw !== 'no') this.fail(`${key}= must be yes or no, not "${raw}"`);
        return raw === 'yes';
      case 'selector': {
        if (raw === 'all') return { kind: 'all' };
        let m = /^(\d+)-(\d+)$/.exec(raw);
        if (m) {
          const from = Number(m[1]);
          const to = Number(m[2]);
          if (from > to) this.fail(`${key}= range ${raw} is empty`);
          return { kind: 'range', from, to };
        }
        if (/^\d+$/.test(raw)) return { kind: 'range', from: Number(raw), to: Number(raw) };
        m = /^random(\d+)?$/.exec(raw);
        if (m) return { kind: 'random', count: m[1] === undefined ? 1 : Number(m[1]) };
        return this.fail(
          `${key}= must be all, a node index, a range a-b, or random[N], not "${raw}"`,
        );
      }
    }
  }

  end(): void {
    if (this.#i < this.#words.length)
      this.fail(`unexpected "${this.#words.slice(this.#i).join(' ')}"`);
  }
}
