/**
 * `freeze <n | p%> [for <d>]`: stops that many live nodes' processes (SIGSTOP) — they keep
 * their connections and their share of the index, and answer nothing — and resumes them
 * (SIGCONT) after `d`, while later commands run; without `for`, until the run ends. Frozen
 * nodes are never asked to search, create or update. Needs nodes that are processes
 * (`--processes`, `--netns`).
 */
import { amountOf } from '../context.ts';
import type { Amount, CommandSpec } from '../language.ts';
import type { LineParser } from '../line-parser.ts';

type Freeze = { kind: 'freeze'; amount: Amount; forMs?: number };

export const freeze: CommandSpec<Freeze> = {
  word: 'freeze',
  kinds: ['freeze'],
  needs: 'freeze',
  parse(p) {
    const amount = p.amount();
    const forMs = optionalFor(p);
    return { kind: 'freeze', amount, ...(forMs === undefined ? {} : { forMs }) };
  },
  async run(c, ctx) {
    const swarm = ctx.liveSwarm();
    const { freeze: stop, thaw } = swarm;
    if (stop === undefined || thaw === undefined) return ctx.fail('these nodes cannot be frozen');
    const candidates = swarm.alive().filter((p) => p.frozen !== true);
    const frozen = ctx.rng.sample(candidates, amountOf(c.amount, swarm.alive().length));
    await stop.call(swarm, frozen);
    if (c.forMs !== undefined)
      ctx.later(c.forMs, `thaw (${ctx.text})`, async () => {
        // Those that crashed or left meanwhile are gone; the rest resume.
        const back = frozen.filter((p) => p.alive && p.frozen === true);
        await thaw.call(swarm, back);
        return `${back.length} nodes resumed`;
      });
    return `${frozen.length} nodes frozen${c.forMs === undefined ? '' : ` for ${c.forMs} ms`}`;
  },
};

/** `for <duration>` if the line goes on, else undefined. */
export function optionalFor(p: LineParser): number | undefined {
  if (!p.accept('for')) return undefined;
  const ms = p.duration(p.word('a duration after "for"'), 'for');
  if (ms <= 0) p.fail('"for" must be longer than 0');
  return ms;
}
