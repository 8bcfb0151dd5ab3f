import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { KadDHTInit } from '@libp2p/kad-dht';
import type { SwarmParams } from '../../src/index/swarm.ts';
import type { Limits, Timing } from '../../src/node/config.ts';
import { CidxNode } from '../../src/node/node.ts';
import type { FakeClock } from './clock.ts';

export interface SwarmOptions {
  swarm?: Partial<SwarmParams>;
  timing?: Partial<Timing>;
  limits?: Partial<Limits>;
  dht?: Partial<KadDHTInit>;
  /** Peers each new node bootstraps to, besides the first node (default 2). */
  extraBootstrap?: number;
  /** The clock and scheduler of every node (default: real time). */
  clock?: FakeClock;
}

/**
 * Starts `count` real cidx nodes over the memory transport (plaintext, as in the simulator),
 * each bootstrapping to the first node and a few random earlier ones, and waits until every
 * routing table holds peers.
 */
export async function startSwarm(count: number, o: SwarmOptions = {}): Promise<CidxNode[]> {
  const tag = randomBytes(4).toString('hex');
  const nodes: CidxNode[] = [];
  const make = async (i: number, bootstrap: string[]) => {
    const n = await CidxNode.create({
      transport: 'memory',
      listen: [`/memory/cidx-${tag}-${i}`],
      encryption: 'plaintext',
      bootstrap,
      swarm: o.swarm,
      timing: { ...TEST_TIMING, ...o.timing },
      limits: o.limits,
      dht: o.dht,
      now: o.clock?.now,
      scheduler: o.clock,
    });
    await n.start();
    return n;
  };
  const pick = rng(count);
  nodes.push(await make(0, []));
  for (let i = 1; i < count; i++) {
    const boot = [nodes[0]?.addrs[0] as string];
    for (let j = 0; j < (o.extraBootstrap ?? 2) && i > 1; j++) {
      boot.push(nodes[1 + Math.floor(pick() * (i - 1))]?.addrs[0] as string);
    }
    nodes.push(await make(i, [...new Set(boot)]));
  }
  await waitFor(
    () => nodes.every((n) => n.info().peers.profiles >= Math.min(count - 1, 3)),
    WAIT_MS,
    'routing tables',
  );
  return nodes;
}

export async function stopAll(nodes: CidxNode[]): Promise<void> {
  await Promise.allSettled(nodes.map((n) => n.stop()));
}

/**
 * How long a test waits for something that happens by itself (identify, routing tables, a
 * delivery) before it fails: only a bound on a hang, never a speed target, so it is generous.
 */
export const WAIT_MS = 120_000;

/**
 * Request and lookup bounds of test nodes. They bound real I/O, and no test relies on them
 * firing (a stopped memory-transport peer refuses at once); at the defaults (10 s, 20 s) a
 * lookup on a heavily loaded 2-core machine could run out and a search miss what it should find.
 */
export const TEST_TIMING = { requestTimeoutMs: 60_000, lookupTimeoutMs: 120_000 } as const;

/** Waits until `cond` holds, polling it; fails after `timeoutMs` (a bound on a hang). */
export async function waitFor(
  cond: () => boolean,
  timeoutMs = WAIT_MS,
  what = 'condition',
): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

/** A seeded generator for test data (mulberry32): tests must not depend on Math.random. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** `N` elements of `T` when N is a number literal (so `const [a, b] = …` are defined), else T[]. */
export type Tuple<T, N extends number, R extends T[] = []> = number extends N
  ? T[]
  : R['length'] extends N
    ? R
    : Tuple<T, N, [T, ...R]>;

/**
 * `count` varied weighted vectors: each belongs to one of `topics` topics, draws most of its
 * attributes from that topic's vocabulary and a few from a shared one, with weights whose mean
 * is exactly 1 (so a profile's similarity with itself, metric 4.1, is 1).
 */
export function variedProfiles<N extends number>(
  count: N,
  size: number,
  seed: number,
  topics = 6,
): Tuple<{ weights: Record<string, number> }, N> {
  const r = rng(seed);
  const out: { weights: Record<string, number> }[] = [];
  for (let c = 0; c < count; c++) {
    const topic = c % topics;
    const attrs = new Set<string>();
    while (attrs.size < size - 3) attrs.add(`t${topic}-w${Math.floor(r() * size * 3)}`);
    while (attrs.size < size) attrs.add(`common-${Math.floor(r() * 40)}`);
    const list = [...attrs];
    const weights: Record<string, number> = {};
    // Pairs of weights 1 + d and 1 − d keep the mean at 1.
    for (let i = 0; i < list.length; i += 2) {
      const d = Math.round(r() * 50) / 100;
      weights[list[i] as string] = 1 + d;
      if (i + 1 < list.length) weights[list[i + 1] as string] = 1 - d;
      else weights[list[i] as string] = 1;
    }
    out.push({ weights });
  }
  return out as Tuple<{ weights: Record<string, number> }, N>;
}
