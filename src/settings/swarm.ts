/**
 * Settings every node of a swarm must share (they go into the swarm digest every request
 * carries): the index mode and LSH parameters, k, l, s and the replicas.
 */
import {
  DEFAULT_BITS,
  DEFAULT_FAMILY,
  FAMILIES,
  MAX_M,
  MAX_N,
  MAX_SEED_BYTES,
} from '../keys/params.ts';
import { choice, int, text } from './kinds.ts';

/** Most results a search, a responder or a notification round handles; also the wire's bound. */
export const MAX_K = 1000;
/**
 * Most peers holding a key's records. kad-dht's own bucket size (20): a node asks its DHTs for
 * replicas + 1 closest peers, and kad-dht's lookups and routing tables are built around k ≤ 20.
 */
export const MAX_REPLICAS = 20;
const INDEX_MODES = ['attribute', 'lsh'] as const;

export const SWARM = {
  index: choice({
    flag: 'index',
    arg: '<mode>',
    help: 'profiles are stored under one key per attribute, or under n LSH keys',
    category: 'swarm',
    default: 'lsh',
    values: INDEX_MODES,
  }),
  lsh: {
    n: int({
      flag: 'lsh-n',
      arg: '<n>',
      help: 'LSH identifiers (keys) per profile',
      category: 'swarm',
      default: 20,
      min: 1,
      max: MAX_N,
      scenario: { statement: 'index', key: 'n' },
    }),
    m: int({
      flag: 'lsh-m',
      arg: '<m>',
      help: 'min-hash functions XORed into each identifier',
      category: 'swarm',
      default: 1,
      min: 1,
      max: MAX_M,
      scenario: { statement: 'index', key: 'm' },
    }),
    seed: text({
      flag: 'lsh-seed',
      arg: '<seed>',
      help: "the swarm's LSH seed: every hash function derives from it",
      category: 'swarm',
      default: 'cidx',
      maxBytes: MAX_SEED_BYTES,
      scenario: { statement: 'index', key: 'seed' },
    }),
    family: choice({
      flag: 'lsh-family',
      arg: '<family>',
      help: 'LSH family',
      category: 'swarm',
      default: DEFAULT_FAMILY,
      values: FAMILIES,
      scenario: { statement: 'index', key: 'family' },
    }),
    bits: choice({
      flag: 'lsh-bits',
      arg: '<bits>',
      help: 'bits per LSH identifier',
      category: 'swarm',
      default: DEFAULT_BITS,
      values: [8, 16, 32, 64],
      scenario: { statement: 'index', key: 'bits' },
    }),
  },
  k: int({
    flag: 'k',
    arg: '<k>',
    help: 'most results each queried node returns (and a search returns by default)',
    category: 'swarm',
    default: 5,
    min: 1,
    max: MAX_K,
    scenario: { statement: 'params', key: 'k' },
  }),
  l: int({
    flag: 'l',
    arg: '<l>',
    help: 'most similar communities notified on a create or an update',
    category: 'swarm',
    default: 3,
    min: 0,
    max: MAX_K,
    scenario: { statement: 'params', key: 'l' },
  }),
  s: int({
    flag: 's',
    arg: '<s>',
    help: 'most similar descriptors a storing node returns',
    category: 'swarm',
    default: 5,
    min: 0,
    max: MAX_K,
    scenario: { statement: 'params', key: 's' },
  }),
  replicas: int({
    flag: 'replicas',
    arg: '<r>',
    help: "peers holding each key's records",
    category: 'swarm',
    default: 3,
    min: 1,
    max: MAX_REPLICAS,
    scenario: { statement: 'params', key: 'replicas' },
  }),
} as const;
