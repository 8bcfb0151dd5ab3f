/**
 * `partition <n | p%> [for <d>]`: that many live nodes on one side, every other node on the
 * other; nodes on different sides cannot reach each other until `heal` (after `d`, with `for`,
 * every partition heals as `heal` does). In-process, connections across the cut close and new
 * ones are refused; in network namespaces packets across are dropped (nftables), so open TCP
 * connections stall and new ones time out. Searches made meanwhile are counted per side
 * (`partition.<n>.…`). `heal`: ends every partition.
 */
import { amountOf, type RunContext } from '../context.ts';
import type { Amount, CommandSpec } from '../language.ts';
import type { SimSwarm } from '../swarm-api.ts';
import { optionalFor } from './freeze.ts';

type Partition = { kind: 'partition'; amount: Amount; forMs?: number };

export const partition: CommandSpec<Partition> = {
  word: 'partition',
  kinds: ['partition'],
  needs: 'partition',
  parse(p) {
    const amount = p.amount();
    return { kind: 'partition', amount, forMs: optionalFor(p) };
  },
  async run(c, ctx) {
    const swarm = ctx.liveSwarm();
    const cut = swarm.partition?.bind(swarm) ?? ctx.fail('this swarm cannot be partitioned');
    const alive = swarm.alive();
    const n = amountOf(c.amount, alive.length);
    if (n === 0 || n >= alive.length)
      ctx.fail(`a partition needs nodes on both sides: ${n} of ${alive.length} live nodes chosen`);
    const chosen = ctx.rng.sample(alive, n);
    await cut(chosen);
    const p = ctx.partitions.begin(
      Date.now() - ctx.startedAt,
      chosen.map((x) => x.index),
      alive.map((x) => x.index),
    );
    if (c.forMs !== undefined)
      ctx.later(c.forMs, `heal (${ctx.text})`, async () => {
        const ended = await healAll(swarm, ctx);
        return `${ended} partition${ended === 1 ? '' : 's'} ended`;
      });
    const sides = `${p.nodes.minority} | ${p.nodes.majority} nodes`;
    return `partition ${p.n}: ${sides}${c.forMs === undefined ? '' : `, for ${c.forMs} ms`}`;
  },
};

export const heal: CommandSpec<{ kind: 'heal' }> = {
  word: 'heal',
  kinds: ['heal'],
  needs: 'partition',
  parse: () => ({ kind: 'heal' }),
  async run(_c, ctx) {
    const ended = await healAll(ctx.liveSwarm(), ctx);
    return `${ended} partition${ended === 1 ? '' : 's'} ended`;
  },
};

async function healAll(swarm: SimSwarm, ctx: RunContext): Promise<number> {
  const mend = swarm.heal?.bind(swarm) ?? ctx.fail('this swarm cannot heal partitions');
  await mend();
  return ctx.partitions.endAll(Date.now() - ctx.startedAt);
}
