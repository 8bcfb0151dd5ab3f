/**
 * `freeze <n | p%> [which=random|holders] [for <d>]`: stops that many live nodes' processes
 * (SIGSTOP; `holders`: those holding the most index entries) — they keep
 * their connections and their share of the index, and answer nothing — and resumes them
 * (SIGCONT) after `d`, while later commands run; without `for`, until the run ends. Frozen
 * nodes are never asked to search, create or update. Needs nodes that are processes
 * (`--processes`, `--netns`).
 */
import { amountOf } from '../context.ts';
import type { Amount, CommandSpec } from '../language.ts';
import type { LineParser } from '../line-parser.ts';
import { holdersFirst } from './depart.ts';

type Freeze = { kind: 'freeze'; amount: Amount; which: 'random' | 'holders'; forMs?: number };

export const freeze: CommandSpec<Freeze> = {
  word: 'freeze',
  kinds: ['freeze'],
  needs: 'freeze',
  parse(p) {
    const amount = p.amount();
    const w = p.options({ which: 'string' }).which ?? 'random';
    const which =
      w === 'random' || w === 'holders' ? w : p.fail('which= must be random or holders');
    return { kind: 'freeze', amount, which, forMs: optionalFor(p) };
  },
  async run(c, ctx) {
    const swarm = ctx.liveSwarm();
    const { freeze: stop, thaw } = swarm;
    if (stop === undefined || thaw === undefined) return ctx.fail('these nodes cannot be frozen');
    const candidates = swarm.alive().filter((p) => p.frozen !== true);
    const n = amountOf(c.amount, swarm.alive().length);
    const frozen =
      c.which === 'holders'
        ? (await holdersFirst(candidates)).slice(0, n)
        : ctx.rng.sample(candidates, n);
    await stop.call(swarm, frozen);
    if (c.forMs !== undefined)
      ctx.later(c.forMs, `thaw (${ctx.text})`, async () => {
        // Those that crashed or left meanwhile are gone; the rest resume.
        const back = frozen.filter((p) => p.alive && p.frozen === true);
        await thaw.call(swarm, back);
        return `${back.length} nodes resumed`;
      });
    return `${frozen.length} nodes frozen`;
  },
};

/** `for <duration>` if the line goes on, else undefined. */
export function optionalFor(p: LineParser): number | undefined {
  if (!p.accept('for')) return undefined;
  const ms = p.duration(p.word('a duration after "for"'), 'for');
  if (ms <= 0) p.fail('"for" must be longer than 0');
  return ms;
}
