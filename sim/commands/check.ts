/**
 * `check findable [sample=N]`: searches each live community's own profile from a random node;
 * `communities.findable` is the share found first. `check gone`: searches the own profile of
 * every community that should be gone — dissolved, or orphaned longer than the record lifetime
 * plus one sweep — and counts those still returned (`communities.reappeared` of
 * `communities.gone_checked`).
 */
import type { CommandSpec } from '../language.ts';

type Check = { kind: 'check-findable'; sample?: number } | { kind: 'check-gone' };

export const check: CommandSpec<Check> = {
  word: 'check',
  kinds: ['check-findable', 'check-gone'],
  parse(p) {
    const what = p.word('"findable" or "gone"');
    if (what === 'gone') return { kind: 'check-gone' };
    if (what !== 'findable') p.fail(`unknown check "${what}" (findable, gone)`);
    const { sample } = p.options({ sample: 'int' });
    return { kind: 'check-findable', sample };
  },
  async run(c, ctx) {
    ctx.liveSwarm();
    if (ctx.select({ kind: 'all' }).length === 0) ctx.fail('every live node is frozen');
    const asker = () =>
      ctx.select({ kind: 'random', count: 1 })[0] ?? ctx.fail('every live node is frozen');
    if (c.kind === 'check-gone') {
      const gone = ctx.world.gone(ctx.settings().timing.expireIntervalMs);
      const bar = ctx.progress(ctx.text, gone.length);
      let reappeared = 0;
      for (const com of gone) {
        try {
          if ((await asker().search(com.profile, 5)).some((r) => r.id === com.id)) reappeared++;
        } catch {
          // nothing returned: gone
        }
        bar.increment();
      }
      bar.stop();
      ctx.gauges.set('communities.gone_checked', gone.length);
      ctx.gauges.set('communities.reappeared', reappeared);
      return `${reappeared} of ${gone.length} still returned`;
    }
    const owned = ctx.world.owned();
    const chosen = c.sample === undefined ? owned : ctx.rng.sample(owned, c.sample);
    const bar = ctx.progress(ctx.text, chosen.length);
    let found = 0;
    for (const com of chosen) {
      try {
        const [best] = await asker().search(com.profile, 1);
        const exact = ctx.world.exact(com.profile)[0];
        // Found first: itself, or a community exactly as similar to its profile.
        if (
          best !== undefined &&
          (best.id === com.id ||
            (exact !== undefined && Math.abs(best.similarity - exact.similarity) < 1e-9))
        )
          found++;
      } catch {
        // not found
      }
      bar.increment();
    }
    bar.stop();
    ctx.gauges.set('communities.findable', chosen.length === 0 ? 1 : found / chosen.length);
    return `${found} of ${chosen.length} found first`;
  },
};
