/**
 * How a swarm starts `count` nodes: the first node of an empty swarm alone (nodes started
 * together would each find no live node to bootstrap to, and stay islands), then the rest
 * `everyMs` apart, at most `concurrency` starting at once; and whom a joining node bootstraps
 * to. Shared by the in-process swarm, its worker threads and the swarm of node processes.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import pLimit from 'p-limit';
import type { Rng } from './random.ts';
import type { SwarmConfig } from './swarm-api.ts';

/**
 * How many in-process nodes start at once: many when the joins are spread over time, a few in a
 * burst (each start opens connections and fills routing tables).
 */
export function inProcessStarts(everyMs: number): number {
  return everyMs > 0 ? 64 : 8;
}

export async function startInTurn<P>(
  o: { count: number; everyMs: number; concurrency: number; empty: boolean },
  startOne: () => Promise<P>,
  onJoined?: () => void,
): Promise<P[]> {
  const limit = pLimit(o.concurrency);
  const started: Promise<P>[] = [];
  if (o.empty && o.count > 0) {
    started.push(Promise.resolve(await startOne()));
    onJoined?.();
  }
  for (let i = started.length; i < o.count; i++) {
    if (i > 0 && o.everyMs > 0) await sleep(o.everyMs);
    started.push(
      limit(async () => {
        const peer = await startOne();
        onJoined?.();
        return peer;
      }),
    );
  }
  return Promise.all(started);
}

/** The addresses a joining node bootstraps to: a few live nodes, drawn with the run's `rng`. */
export function bootstrapOf<P>(
  config: SwarmConfig,
  rng: Rng,
  alive: readonly P[],
  addr: (p: P) => string,
): string[] {
  return rng.sample(alive, config.bootstrapPeers ?? 3).map(addr);
}
