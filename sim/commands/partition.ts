/**
 * `partition <n | p%> [for <d>]`: the chosen live nodes and all the others cannot reach each
 * other (in-process: connections across the cut close, new ones are refused; in namespaces:
 * packets across it are dropped) until `heal`, or for `d` — then every partition heals, as
 * `heal` does. Searches made meanwhile are counted per side (`partition.<n>.…`). `heal`: ends
 * every partition.
 */
import { amountOf, type RunContext } from '../context.ts';
import type { Amount, CommandSpec } from '../language.ts';
import type { SimSwarm } from '../swarm-api.ts';

type Partition = { kind: 'partition'; amount: Amount; forMs?: number };

export const partition: CommandSpec<Partition> = {
  word: 'partition',
  kinds: ['partition'],
  parse(p) {
    const amount = p.amount();
    if (!p.accept('for')) return { kind: 'partition', amount };
    const forMs = p.duration(p.word('a duration after "for"'), 'for');
    if (forMs <= 0) p.fail('a partition lasts longer than 0');
    return { kind: 'partition', amount, forMs };
  },
  async run(c, ctx) {
    const swarm = ctx.liveSwarm();
    const cut = swarm.partition?.bind(swarm) ?? ctx.fail('this swarm cannot partition its nodes');
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
    if (c.forMs !== undefined) ctx.later(c.forMs, () => healAll(swarm, ctx).then(() => {}));
    const sides = `${p.nodes.minority} | ${p.nodes.majority} nodes`;
    return `partition ${p.n}: ${sides}${c.forMs === undefined ? '' : `, for ${c.forMs} ms`}`;
  },
};

export const heal: CommandSpec<{ kind: 'heal' }> = {
  word: 'heal',
  kinds: ['heal'],
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
