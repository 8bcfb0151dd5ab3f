import { createHash } from 'node:crypto';
import { type IndexParams, ParamsError, resolveIndexParams } from '../keys/params.ts';

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

export const DEFAULT_SWARM: SwarmParams = {
  index: { mode: 'lsh', n: 20, m: 1, seed: 'cidx' },
  k: 5,
  l: 3,
  s: 5,
  replicas: 3,
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
  for (const [field, max] of [
    ['k', 1000],
    ['l', 1000],
    ['s', 1000],
    ['replicas', 20],
  ] as const) {
    const v = merged[field];
    if (!Number.isInteger(v) || v < (field === 'l' || field === 's' ? 0 : 1) || v > max) {
      throw new ParamsError(
        field,
        `must be an integer in [${field === 'l' || field === 's' ? 0 : 1}, ${max}]`,
      );
    }
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
