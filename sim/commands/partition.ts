/**
 * `partition <n | p%> [for <d>]`: that many live nodes on one side, every other node on the
 * other; nodes on different sides cannot reach each other until `heal` (after `d`, with
 * `for`). `heal` ends every partition. What a partition does to connections depends on the
 * swarm: in network namespaces packets across are dropped (nftables), so open TCP connections
 * stall, and new ones time out.
 */
import { amountOf } from '../context.ts';
import type { Amount, CommandSpec } from '../language.ts';
import { optionalFor } from './freeze.ts';

type Partition = { kind: 'partition'; amount: Amount; forMs?: number };

export const partition: CommandSpec<Partition> = {
  word: 'partition',
  kinds: ['partition'],
  needs: 'partition',
  parse(p) {
    const amount = p.amount();
    const forMs = optionalFor(p);
    return { kind: 'partition', amount, ...(forMs === undefined ? {} : { forMs }) };
  },
  async run(c, ctx) {
    const swarm = ctx.liveSwarm();
    const { partition: cut, heal } = swarm;
    if (cut === undefined || heal === undefined)
      return ctx.fail('this swarm cannot be partitioned');
    const alive = swarm.alive();
    const side = ctx.rng.sample(alive, amountOf(c.amount, alive.length));
    await cut.call(swarm, side);
    if (c.forMs !== undefined)
      ctx.later(c.forMs, `heal (${ctx.text})`, async () => {
        await heal.call(swarm);
        return 'healed';
      });
    return `${side.length} of ${alive.length} nodes cut off`;
  },
};

export const heal: CommandSpec<{ kind: 'heal' }> = {
  word: 'heal',
  kinds: ['heal'],
  needs: 'partition',
  parse: () => ({ kind: 'heal' }),
  async run(_c, ctx) {
    const swarm = ctx.liveSwarm();
    if (swarm.heal === undefined) return ctx.fail('this swarm cannot be partitioned');
    await swarm.heal();
    return 'healed';
  },
};
