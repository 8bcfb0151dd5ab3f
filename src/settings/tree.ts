/**
 * A tree of settings (nested objects whose leaves are setting declarations) and what derives
 * from any such tree: the type of its values, its defaults, the flat list of its settings with
 * their dotted keys (`timing.recordTtlMs`), and reading or writing one value by key.
 */
import { problemOf, type Setting, type ValueOf } from './kinds.ts';

export interface SettingTree {
  readonly [name: string]: Setting | SettingTree;
}

/** The values of a tree, shaped like it (the config file's shape). */
export type ConfigOf<T> = {
  -readonly [K in keyof T]: T[K] extends Setting ? ValueOf<T[K]> : ConfigOf<T[K]>;
};

/** A tree's values, any of them absent (a config file, a layer of flags). */
export type PartialConfigOf<T> = {
  -readonly [K in keyof T]?: T[K] extends Setting ? ValueOf<T[K]> : PartialConfigOf<T[K]>;
};

/** One setting with where it sits: `key` is the dotted path (`lsh.n`, `timing.recordTtlMs`). */
export interface Entry {
  key: string;
  path: readonly string[];
  setting: Setting;
}

export function isSetting(v: Setting | SettingTree): v is Setting {
  return typeof (v as Setting).kind === 'string' && typeof (v as Setting).flag === 'string';
}

/** Every setting of a tree, depth first in declaration order. */
export function entriesOf(tree: SettingTree, prefix: readonly string[] = []): Entry[] {
  const out: Entry[] = [];
  for (const [name, node] of Object.entries(tree)) {
    const path = [...prefix, name];
    if (isSetting(node)) out.push({ key: path.join('.'), path, setting: node });
    else out.push(...entriesOf(node, path));
  }
  return out;
}

/** The defaults of a tree; unset ones (default undefined) are left out. */
export function defaultsOf<T extends SettingTree>(tree: T): ConfigOf<T> {
  const out: Record<string, unknown> = {};
  for (const e of entriesOf(tree))
    if (e.setting.default !== undefined) setPath(out, e.path, structuredClone(e.setting.default));
  return out as ConfigOf<T>;
}

export function getPath(obj: unknown, path: readonly string[]): unknown {
  let v: unknown = obj;
  for (const p of path) {
    if (typeof v !== 'object' || v === null) return undefined;
    v = (v as Record<string, unknown>)[p];
  }
  return v;
}

export function setPath(obj: Record<string, unknown>, path: readonly string[], v: unknown): void {
  let o = obj;
  for (const p of path.slice(0, -1)) {
    const next = o[p];
    if (typeof next !== 'object' || next === null || Array.isArray(next)) o[p] = {};
    o = o[p] as Record<string, unknown>;
  }
  o[path.at(-1) as string] = v;
}

/**
 * A group of settings over its defaults: the given values (undefined ones ignored) checked
 * against their rules; `fail` receives the first bad one's name and problem.
 */
export function resolveGroup<T extends SettingTree>(
  tree: T,
  given: Partial<Record<string, unknown>>,
  fail: (name: string, problem: string) => never,
): ConfigOf<T> {
  const out = defaultsOf(tree) as Record<string, unknown>;
  for (const [name, v] of Object.entries(given)) {
    const s = tree[name];
    if (s === undefined || !isSetting(s)) return fail(name, 'is not a setting');
    if (v !== undefined) out[name] = v;
  }
  for (const [name, s] of Object.entries(tree)) {
    if (!isSetting(s) || out[name] === undefined) continue;
    const problem = problemOf(s, out[name]);
    if (problem !== null) fail(name, problem);
  }
  return out as ConfigOf<T>;
}
