/**
 * How a swarm starts `count` nodes: the first node of an empty swarm alone (nodes started
 * together would each find no live node to bootstrap to, and stay islands), then the rest
 * `everyMs` apart, at most `concurrency` starting at once. Shared by the in-process swarm and
 * the swarm of node processes.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import pLimit from 'p-limit';

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
