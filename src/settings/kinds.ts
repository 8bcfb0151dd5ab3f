/**
 * What a setting can be — its kind, range and texts — and the rules every reader of settings
 * shares: whether a value is allowed (`problemOf`), how a flag, an environment variable or a
 * scenario word is read (`fromText`), and how a value is shown (`showValue`). Pure: no I/O.
 */

/** Headings of `cidx node --help`, in the order they are shown. */
export const CATEGORIES = {
  node: 'Node process',
  swarm: 'Swarm (every node of a swarm must use the same values)',
  timing: 'Timing',
  limits: 'Limits',
  dht: 'Kademlia (both DHTs)',
  access: 'RPC port access and metrics',
  reach: 'Reachability, relays and private swarms',
} as const;
type Category = keyof typeof CATEGORIES;

/** The scenario statements whose key=value options are settings. */
export type ScenarioStatement = 'index' | 'params' | 'timing';

interface Common<T> {
  /** The flag without its dashes (`lsh-n`); the environment variable is CIDX_LSH_N. */
  flag: string;
  /** What the flag takes, shown in --help (`<n>`, `<multiaddr>`). */
  arg: string;
  /** One line for --help: what the setting does (the default and range are added). */
  help: string;
  category: Category;
  /** `undefined`: unset unless given (the node then decides, as `defaultText` says). */
  default: T;
  /** How --help describes a default that is computed or absent. */
  defaultText?: string;
  /** The scenario statement and key that set it (`params k=`), if scenarios may. */
  scenario?: { statement: ScenarioStatement; key: string };
}

export interface IntSetting<T extends number | undefined = number | undefined> extends Common<T> {
  kind: 'int';
  min: number;
  /** Infinity: no upper bound. */
  max: number;
}
/** Milliseconds; read from text as `250ms`, `2s`, `30m`, `2h`, or a bare number of ms. */
export interface DurationSetting extends Common<number> {
  kind: 'duration';
  min: number;
  max: number;
}
export interface BoolSetting<T extends boolean | undefined = boolean | undefined>
  extends Common<T> {
  kind: 'bool';
}
export interface TextSetting<T extends string | undefined = string | undefined> extends Common<T> {
  kind: 'text';
  /** Refuses what does not match, with `patternRule` as the problem. */
  pattern?: RegExp;
  patternRule?: string;
  maxBytes: number;
}
export interface ChoiceSetting<V extends string | number = string | number> extends Common<V> {
  kind: 'choice';
  values: readonly V[];
}
/** Strings; a flag repeats, an environment variable separates them by commas. */
export interface ListSetting extends Common<string[]> {
  kind: 'list';
  minItems: number;
}

export type Setting =
  | IntSetting
  | DurationSetting
  | BoolSetting
  | TextSetting
  | ChoiceSetting
  | ListSetting;

/** The type of a setting's value. */
export type ValueOf<S> = S extends Common<infer T> ? T : never;

type Opts<S extends Setting> = Omit<S, 'kind'>;

/** An integer setting; `default: undefined` makes it one that is unset unless given. */
export function int(o: Opts<IntSetting<number>>): IntSetting<number>;
export function int(o: Opts<IntSetting<undefined>>): IntSetting<number | undefined>;
export function int(o: Opts<IntSetting>): IntSetting {
  return { kind: 'int', ...o };
}
export const duration = (o: Opts<DurationSetting>): DurationSetting => ({
  kind: 'duration',
  ...o,
});
export function bool(o: Opts<BoolSetting<boolean>>): BoolSetting<boolean>;
export function bool(o: Opts<BoolSetting<undefined>>): BoolSetting<boolean | undefined>;
export function bool(o: Opts<BoolSetting>): BoolSetting {
  return { kind: 'bool', ...o };
}
/** A string setting; `default: undefined` makes it one that is unset unless given. */
export function text(o: Opts<TextSetting<string>>): TextSetting<string>;
export function text(o: Opts<TextSetting<undefined>>): TextSetting<string | undefined>;
export function text(o: Opts<TextSetting>): TextSetting {
  return { kind: 'text', ...o };
}
export const choice = <const V extends string | number>(
  o: Opts<ChoiceSetting<V>>,
): ChoiceSetting<V> => ({ kind: 'choice', ...o });
export const list = (o: Opts<ListSetting>): ListSetting => ({ kind: 'list', ...o });

/** The allowed values in words: "an integer in [1, 1024]", "attribute or lsh". */
export function ruleOf(s: Setting): string {
  switch (s.kind) {
    case 'int':
      return s.max === Number.POSITIVE_INFINITY
        ? `must be an integer >= ${s.min}`
        : `must be an integer in [${s.min}, ${s.max}]`;
    case 'duration':
      return s.max === Number.POSITIVE_INFINITY
        ? `must be a duration of at least ${showDuration(s.min)}`
        : `must be a duration from ${showDuration(s.min)} to ${showDuration(s.max)}`;
    case 'bool':
      return 'must be true or false';
    case 'text':
      return s.patternRule ?? `must be a non-empty string of at most ${s.maxBytes} bytes`;
    case 'choice':
      return `must be one of ${s.values.join(', ')}`;
    case 'list':
      return s.minItems > 0
        ? `must be a list of at least ${s.minItems} non-empty strings`
        : 'must be a list of non-empty strings';
  }
}

/** Why a value is not allowed, or null when it is. Any input is safe: it may come off the wire. */
export function problemOf(s: Setting, v: unknown): string | null {
  const ok = ((): boolean => {
    switch (s.kind) {
      case 'int':
        return Number.isSafeInteger(v) && (v as number) >= s.min && (v as number) <= s.max;
      case 'duration':
        return typeof v === 'number' && Number.isFinite(v) && v >= s.min && v <= s.max;
      case 'bool':
        return typeof v === 'boolean';
      case 'text':
        return (
          typeof v === 'string' &&
          v !== '' &&
          v.isWellFormed() &&
          Buffer.byteLength(v) <= s.maxBytes &&
          (s.pattern === undefined || s.pattern.test(v))
        );
      case 'choice':
        return (s.values as readonly unknown[]).includes(v);
      case 'list':
        return (
          Array.isArray(v) &&
          v.length >= s.minItems &&
          v.every((x) => typeof x === 'string' && x !== '')
        );
    }
  })();
  return ok ? null : ruleOf(s);
}

const DURATION = /^(\d+(?:\.\d+)?)(ms|s|m|h)$/;
const UNIT: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** `250ms`, `2s`, `1.5m`, `1h` in ms; null when it is not such a duration. */
export function parseDuration(raw: string): number | null {
  const [, amount, unit = ''] = DURATION.exec(raw.trim()) ?? [];
  const ms = UNIT[unit];
  return ms === undefined ? null : Number(amount) * ms;
}

/** A setting's value from a flag or an environment variable; throws SettingError. */
export function fromText(s: Setting, raw: string): unknown {
  const t = raw.trim();
  const fail = (): never => {
    throw new SettingError(`${ruleOf(s)}, not ${JSON.stringify(raw)}`);
  };
  let v: unknown;
  switch (s.kind) {
    case 'int':
      v = /^-?\d+$/.test(t) ? Number(t) : fail();
      break;
    case 'duration':
      // A bare number is milliseconds, as the config file has them.
      v = /^\d+(\.\d+)?$/.test(t) ? Number(t) : (parseDuration(t) ?? fail());
      break;
    case 'bool':
      v = TRUE.includes(t.toLowerCase()) ? true : FALSE.includes(t.toLowerCase()) ? false : fail();
      break;
    case 'text':
      v = t;
      break;
    case 'choice':
      v = s.values.find((c) => String(c) === t) ?? fail();
      break;
    case 'list':
      v = splitList(raw);
      break;
  }
  if (problemOf(s, v) !== null) fail();
  return v;
}

const TRUE = ['true', 'yes', '1', 'on'];
const FALSE = ['false', 'no', '0', 'off'];

/** A comma-separated list, blanks dropped. */
export function splitList(raw: string): string[] {
  return raw
    .split(',')
    .map((x) => x.trim())
    .filter((x) => x !== '');
}

/** A value as --help shows it: durations with a unit, lists comma-separated. */
export function showValue(s: Setting, v: unknown): string {
  if (v === undefined) return 'unset';
  if (s.kind === 'duration') return showDuration(v as number);
  if (Array.isArray(v)) return v.length === 0 ? 'none' : v.join(',');
  return String(v);
}

/** The largest whole unit: 1800000 → 30m, 1500 → 1500ms. */
export function showDuration(ms: number): string {
  if (ms === Number.POSITIVE_INFINITY) return 'unbounded';
  for (const [unit, size] of [
    ['h', 3_600_000],
    ['m', 60_000],
    ['s', 1000],
  ] as const)
    if (ms >= size && ms % size === 0) return `${ms / size}${unit}`;
  return `${ms}ms`;
}

/** A value that breaks a setting's rule; the message is the rule (callers add the name). */
export class SettingError extends Error {
  constructor(problem: string) {
    super(problem);
    this.name = 'SettingError';
  }
}
