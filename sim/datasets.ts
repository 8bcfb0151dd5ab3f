/**
 * Profile data sets of a scenario: JSON Lines files (paths relative to the scenario), synthetic
 * profiles, or perturbed copies of another data set (users resembling communities).
 */
import { readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { parseProfile } from '../src/profile/parse.ts';
import { Profile, type Relation } from '../src/profile/profile.ts';
import { Rng } from './random.ts';

/** Where a data set's profiles come from (the `dataset` statement). */
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

export interface DatasetEntry {
  /** The line's `id` field, or `<dataset>#<index>`. */
  name: string;
  profile: Profile;
}

class DatasetError extends Error {}

export async function loadDataset(
  name: string,
  source: DatasetSource,
  opts: {
    scenarioFile: string;
    seed: number;
    offset?: number;
    limit?: number;
    others: Map<string, DatasetEntry[]>;
  },
): Promise<DatasetEntry[]> {
  let all: DatasetEntry[];
  switch (source.kind) {
    case 'file':
      all = await fromFile(resolve(dirname(opts.scenarioFile), source.path));
      break;
    case 'synthetic':
      all = synthetic(name, source, opts.seed);
      break;
    case 'perturb': {
      const base = opts.others.get(source.of);
      if (base === undefined || base.length === 0)
        throw new DatasetError(`dataset "${source.of}" is empty`);
      all = perturbed(
        name,
        base,
        source.count,
        source.keep,
        source.noise,
        new Rng(opts.seed, `perturb/${name}`),
      );
      break;
    }
  }
  const from = opts.offset ?? 0;
  return all.slice(from, opts.limit === undefined ? undefined : from + opts.limit);
}

async function fromFile(path: string): Promise<DatasetEntry[]> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    throw new DatasetError(
      `cannot read ${path} (${(err as NodeJS.ErrnoException).code ?? 'error'})`,
    );
  }
  const out: DatasetEntry[] = [];
  text.split('\n').forEach((raw, i) => {
    const line = raw.trim();
    if (line === '') return;
    let value: { id?: unknown };
    try {
      value = JSON.parse(line);
      out.push({
        name: typeof value.id === 'string' ? value.id : `${path}#${i + 1}`,
        profile: parseProfile(value),
      });
    } catch (err) {
      throw new DatasetError(`${path}:${i + 1}: ${(err as Error).message}`);
    }
  });
  return out;
}

/**
 * Synthetic profiles: each belongs to one of `topics` topics and draws 80% of its attributes
 * from that topic's vocabulary and 20% from a shared one, with weights in (0.1, 1]. As a
 * matrix, attributes of the same topic that co-occur are related (0.3–1), shared ones weakly.
 */
export function synthetic(
  name: string,
  s: { count: number; size: number; topics: number; vocabulary: number; matrix: boolean },
  seed: number,
): DatasetEntry[] {
  const rng = new Rng(seed, `synthetic/${name}`);
  const out: DatasetEntry[] = [];
  for (let c = 0; c < s.count; c++) {
    const topic = c % s.topics;
    const own = Math.round(s.size * 0.8);
    const attrs = new Set<string>();
    while (attrs.size < own) attrs.add(`t${topic}w${rng.below(s.vocabulary)}`);
    while (attrs.size < s.size) attrs.add(`shared${rng.below(s.vocabulary)}`);
    const weights = new Map<string, number>();
    for (const a of attrs)
      weights.set(a, Math.round((0.1 + 0.9 * rng.next()) * 1000) / 1000 || 0.001);
    let relations: Relation[] | null = null;
    if (s.matrix) {
      relations = [];
      const list = [...attrs];
      for (let i = 0; i < list.length; i++) {
        for (let j = i + 1; j < list.length; j++) {
          const a = list[i] as string;
          const b = list[j] as string;
          const sameTopic = a.startsWith(`t${topic}`) && b.startsWith(`t${topic}`);
          if (rng.next() < (sameTopic ? 0.3 : 0.05)) {
            relations.push([
              a,
              b,
              Math.round((sameTopic ? 0.3 + 0.7 * rng.next() : 0.2 * rng.next()) * 1000) / 1000,
            ]);
          }
        }
      }
    }
    out.push({ name: `${name}#${c}`, profile: Profile.fromTrusted(weights, relations) });
  }
  return out;
}

/**
 * Users resembling communities: each keeps a fraction `keep` of a base profile's attributes
 * (round-robin over the base set), its weights jittered by ±noise, and gets fresh attributes in
 * place of the dropped ones, so its Jaccard similarity with the base is about keep / (2 − keep).
 */
export function perturbed(
  name: string,
  base: DatasetEntry[],
  count: number,
  keep: number,
  noise: number,
  rng: Rng,
): DatasetEntry[] {
  const out: DatasetEntry[] = [];
  for (let u = 0; u < count; u++) {
    const from = base[u % base.length] as DatasetEntry;
    const attrs = [...from.profile.weights];
    const kept = rng.sample(attrs, Math.max(1, Math.round(attrs.length * keep)));
    const weights = new Map<string, number>();
    for (const [a, w] of kept)
      weights.set(
        a,
        Math.max(0.001, Math.round(w * (1 + noise * (2 * rng.next() - 1)) * 1000) / 1000),
      );
    let fresh = 0;
    while (weights.size < attrs.length)
      weights.set(`${name}-${u}-x${fresh++}`, Math.round((0.1 + 0.9 * rng.next()) * 1000) / 1000);
    out.push({ name: `${name}#${u}`, profile: Profile.fromTrusted(weights) });
  }
  return out;
}
