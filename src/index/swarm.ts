import { createHash } from 'node:crypto';
import { type IndexParams, ParamsError, resolveIndexParams } from '../keys/params.ts';
import { problemOf } from '../settings/kinds.ts';
import { SETTINGS } from '../settings/table.ts';

/** Parameters every node of a swarm must share (thesis k, l, s and the index mode). */
export interface SwarmParams {
  index: IndexParams;
  /** Most results each queried node returns (k). */
  k: number;
  /** Most similar communities notified on a create or update (l). */
  l: number;
  /** Most similar descriptors a storing node returns (s). */
  s: number;
  /** Peers holding each key's records. */
  replicas: number;
}

/** The defaults of the settings table. */
export const DEFAULT_SWARM: SwarmParams = {
  index: {
    mode: 'lsh',
    n: SETTINGS.lsh.n.default,
    m: SETTINGS.lsh.m.default,
    seed: SETTINGS.lsh.seed.default,
  },
  k: SETTINGS.k.default,
  l: SETTINGS.l.default,
  s: SETTINGS.s.default,
  replicas: SETTINGS.replicas.default,
};

export interface ResolvedSwarm {
  params: SwarmParams;
  /** SHA-256 of the canonical parameters: sent with every request. */
  digest: Uint8Array;
}

/** Validates swarm parameters, fills defaults, and computes their digest. */
export function resolveSwarm(p: Partial<SwarmParams> = {}): ResolvedSwarm {
  const merged = { ...DEFAULT_SWARM, ...p };
  const index = resolveIndexParams(merged.index);
  // Ranges from the settings table; the parameters may come off the wire, so anything is checked.
  for (const field of ['k', 'l', 's', 'replicas'] as const) {
    const problem = problemOf(SETTINGS[field], merged[field]);
    if (problem !== null) throw new ParamsError(field, problem);
  }
  const params: SwarmParams = {
    index,
    k: merged.k,
    l: merged.l,
    s: merged.s,
    replicas: merged.replicas,
  };
  const canonical = JSON.stringify([
    'cidx/swarm/v1',
    index.mode === 'lsh'
      ? [index.mode, index.family, index.bits, index.n, index.m, index.seed]
      : [index.mode],
    params.k,
    params.l,
    params.s,
    params.replicas,
  ]);
  return { params, digest: new Uint8Array(createHash('sha256').update(canonical).digest()) };
}
