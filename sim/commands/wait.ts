/**
 * `wait <d>` sleeps; `wait republish` and `republish` run one republish round on every live
 * node now (owners of live and of dissolved communities).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import pLimit from 'p-limit';
import type { RunContext } from '../context.ts';
import type { CommandSpec } from '../language.ts';

type Wait = { kind: 'wait'; ms: number } | { kind: 'wait-republish' };

export const wait: CommandSpec<Wait> = {
  word: 'wait',
  kinds: ['wait', 'wait-republish'],
  parse(p) {
    const w = p.word('"republish" or a duration');
    if (w === 'republish') return { kind: 'wait-republish' };
    return { kind: 'wait', ms: p.duration(w, 'wait') };
  },
  async run(c, ctx) {
    if (c.kind === 'wait-republish') return republishAll(ctx);
    await sleep(c.ms, undefined, { signal: ctx.signal });
    return undefined;
  },
};

export const republish: CommandSpec<{ kind: 'republish' }> = {
  word: 'republish',
  kinds: ['republish'],
  parse: () => ({ kind: 'republish' }),
  run: (_c, ctx) => republishAll(ctx),
};

async function republishAll(ctx: RunContext): Promise<string> {
  // A frozen owner republishes nothing: it runs no code until thawed. Every other node runs
  // its round: one that owns only dissolved communities still sends their tombstones, and one
  // that owns nothing returns at once.
  const alive = ctx.select({ kind: 'all' });
  const limit = pLimit(8);
  const rounds = await Promise.allSettled(alive.map((p) => limit(() => p.republish())));
  const ran = rounds.filter((r) => r.status === 'fulfilled').length;
  return `${ran} of ${alive.length} nodes ran a republish round`;
}
