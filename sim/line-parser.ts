/**
 * Reads one scenario line word by word: names, integers, durations, amounts, and key=value
 * options whose result is typed by their spec — `options({ k: 'int', from: 'selector' })` gives
 * `{ k?: number; from?: Selector }`. The options of `index`, `params` and `timing` come from the
 * settings table (`settings`). Every problem is a ScenarioError at the line.
 */
import { parseDuration, problemOf, ruleOf, type ScenarioStatement } from '../src/settings/kinds.ts';
import { SETTINGS } from '../src/settings/table.ts';
import { type Entry, entriesOf } from '../src/settings/tree.ts';
import { type Amount, ScenarioError, type Selector } from './language.ts';

export type OptType =
  | 'int'
  | 'number'
  | 'string'
  | 'duration'
  | 'fraction'
  | 'percent'
  | 'bool'
  | 'selector';

type OptValue<T extends OptType> = T extends 'string'
  ? string
  : T extends 'bool'
    ? boolean
    : T extends 'selector'
      ? Selector
      : number;

/** The options a spec allows, each absent unless given. */
export type Options<S extends Record<string, OptType>> = { [K in keyof S]?: OptValue<S[K]> };

/** The settings a scenario statement sets, by the key it writes (`republish=`). */
export function scenarioSettings(statement: ScenarioStatement): Map<string, Entry> {
  return new Map(
    entriesOf(SETTINGS)
      .filter((e) => e.setting.scenario?.statement === statement)
      .map((e) => [e.setting.scenario?.key as string, e]),
  );
}

export class LineParser {
  readonly #words: string[];
  readonly #file: string;
  readonly #line: number;
  #i = 0;

  constructor(words: string[], file: string, line: number) {
    this.#words = words;
    this.#file = file;
    this.#line = line;
  }

  /** The scenario file, as given: paths in it are relative to its directory. */
  get file(): string {
    return this.#file;
  }

  fail(problem: string): never {
    throw new ScenarioError(this.#file, this.#line, problem);
  }

  peek(): string | undefined {
    return this.#words[this.#i];
  }

  /** Takes the next word if it is `w`. */
  accept(w: string): boolean {
    if (this.#words[this.#i] !== w) return false;
    this.#i++;
    return true;
  }

  /** Takes the next word, which must be `w`. */
  expect(w: string, what: string): void {
    const got = this.word(what);
    if (got !== w) this.fail(`expected ${what}, not "${got}"`);
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

  /** A data set declared on an earlier line. */
  dataset(declared: Set<string>, name = this.name('a dataset name')): string {
    if (!declared.has(name))
      this.fail(`unknown dataset "${name}" (declare it with a dataset statement first)`);
    return name;
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
    const ms = parseDuration(w);
    if (ms === null)
      this.fail(`${what} must be a duration such as 250ms, 2s, 1m or 1h, not "${w}"`);
    return ms;
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
  options<const S extends Record<string, OptType>>(spec: S): Options<S> {
    const out: Record<string, unknown> = {};
    for (let kv = this.#keyValue(); kv !== null; kv = this.#keyValue()) {
      const type = spec[kv.key];
      if (type === undefined)
        this.fail(`unknown option "${kv.key}" (known: ${Object.keys(spec).join(', ')})`);
      if (kv.key in out) this.fail(`option "${kv.key}" given twice`);
      this.#i++;
      out[kv.key] = this.#value(kv.key, kv.raw, type);
    }
    return out as Options<S>;
  }

  /**
   * key=value options that are settings of the table (`params k=5`), each checked against its
   * range; the values are keyed as written.
   */
  settings(statement: ScenarioStatement): Record<string, unknown> {
    const known = scenarioSettings(statement);
    const out: Record<string, unknown> = {};
    for (let kv = this.#keyValue(); kv !== null; kv = this.#keyValue()) {
      const entry = known.get(kv.key);
      if (entry === undefined)
        this.fail(`unknown option "${kv.key}" (known: ${[...known.keys()].join(', ')})`);
      if (kv.key in out) this.fail(`option "${kv.key}" given twice`);
      this.#i++;
      const s = entry.setting;
      const type: OptType =
        s.kind === 'int' ? 'int' : s.kind === 'duration' || s.kind === 'bool' ? s.kind : 'string';
      let v = this.#value(kv.key, kv.raw, type);
      if (s.kind === 'choice') v = s.values.find((c) => String(c) === v) ?? v;
      if (problemOf(s, v) !== null) this.fail(`${kv.key}= ${ruleOf(s)}, not "${kv.raw}"`);
      out[kv.key] = v;
    }
    return out;
  }

  #keyValue(): { key: string; raw: string } | null {
    const w = this.#words[this.#i];
    const eq = w?.indexOf('=') ?? -1;
    if (w === undefined || eq <= 0) return null;
    return { key: w.slice(0, eq), raw: w.slice(eq + 1) };
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
        // true/false as well: a setting's scenario key takes what its flag and config file take.
        if (!['yes', 'no', 'true', 'false'].includes(raw))
          this.fail(`${key}= must be yes or no, not "${raw}"`);
        return raw === 'yes' || raw === 'true';
      case 'selector':
        return this.#selector(key, raw);
    }
  }

  #selector(key: string, raw: string): Selector {
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
    return this.fail(`${key}= must be all, a node index, a range a-b, or random[N], not "${raw}"`);
  }

  end(): void {
    if (this.#i < this.#words.length)
      this.fail(`unexpected "${this.#words.slice(this.#i).join(' ')}"`);
  }
}
