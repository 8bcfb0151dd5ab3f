/** `join <n> [every <d>]`: starts n nodes, each bootstrapping to 3 random live ones. */
import type { CommandSpec } from '../language.ts';

type Join = { kind: 'join'; count: number; everyMs: number };

export const join: CommandSpec<Join> = {
  word: 'join',
  needs: 'control',
  kinds: ['join'],
  parse(p) {
    const count = p.int('the number of nodes', 1, 100_000);
    const everyMs = p.accept('every') ? p.duration(p.word('an interval'), 'interval') : 0;
    return { kind: 'join', count, everyMs };
  },
  async run(c, ctx) {
    const swarm = ctx.startSwarm();
    const bar = ctx.progress(ctx.text, c.count);
    const t = Date.now();
    await swarm.join(c.count, c.everyMs, () => bar.increment());
    ctx.joinMs += Date.now() - t;
    bar.stop();
    return `${swarm.alive().length} nodes alive`;
  },
};
