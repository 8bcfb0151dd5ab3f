/**
 * Nodes leaving: `kill <n | p%> [which=random|holders]` crashes them (connections reset, no
 * goodbye; `holders`: those holding the most index entries), `leave <n | p%>` stops them
 * gracefully. Their communities stay in the index until their records expire.
 */
import { amountOf, type RunContext } from '../context.ts';
import type { Amount, CommandSpec } from '../language.ts';
import type { SimPeer } from '../swarm-api.ts';

type Kill = { kind: 'kill'; amount: Amount; which: 'random' | 'holders' };
type Leave = { kind: 'leave'; amount: Amount };

export const kill: CommandSpec<Kill> = {
  word: 'kill',
  needs: 'control',
  kinds: ['kill'],
  parse(p): Kill {
    const amount = p.amount();
    const which = p.options({ which: 'string' }).which ?? 'random';
    if (which === 'random' || which === 'holders') return { kind: 'kill', amount, which };
    return p.fail('which= must be random or holders');
  },
  run: (c, ctx) => depart(ctx, c.amount, c.which === 'holders' ? holdersFirst : undefined, 'kill'),
};

export const leave: CommandSpec<Leave> = {
  word: 'leave',
  needs: 'control',
  kinds: ['leave'],
  parse: (p) => ({ kind: 'leave', amount: p.amount() }),
  run: (c, ctx) => depart(ctx, c.amount, undefined, 'leave'),
};

/** The live nodes, those holding the most index entries first. */
export async function holdersFirst(peers: SimPeer[]): Promise<SimPeer[]> {
  const held = await Promise.all(peers.map(async (p) => ({ p, n: (await p.info()).descriptors })));
  return held.sort((a, b) => b.n - a.n).map((h) => h.p);
}

async function depart(
  ctx: RunContext,
  amount: Amount,
  order: ((peers: SimPeer[]) => Promise<SimPeer[]>) | undefined,
  how: 'kill' | 'leave',
): Promise<string> {
  const swarm = ctx.liveSwarm();
  const alive = swarm.alive();
  const n = amountOf(amount, alive.length);
  const victims = order ? (await order(alive)).slice(0, n) : ctx.rng.sample(alive, n);
  await ctx.world.orphan(victims, () =>
    how === 'kill' ? swarm.kill(victims) : swarm.leave(victims),
  );
  return `${victims.length} nodes gone, ${swarm.alive().length} alive`;
}
