/**
 * `update <dataset> <path.jsonl> [label=L]` | `update <dataset> perturb keep=0.9 [noise=]`:
 * new profiles for the communities created from the data set, in creation order; each owner
 * updates its own.
 */
import type { Profile } from '../../src/profile/profile.ts';
import { perturbed } from '../datasets.ts';
import type { CommandSpec } from '../language.ts';
import type { LineParser } from '../line-parser.ts';
import { chargeTraffic } from '../metrics.ts';

type Update = {
  kind: 'update';
  dataset: string;
  source: { kind: 'file'; path: string } | { kind: 'perturb'; keep: number; noise: number };
  label?: string;
};

export const update: CommandSpec<Update> = {
  word: 'update',
  kinds: ['update'],
  parse(p: LineParser, scope): Update {
    const dataset = p.dataset(scope.datasets);
    const what = p.word('a path or "perturb"');
    if (what === 'perturb') {
      const kv = p.options({ keep: 'fraction', noise: 'fraction', label: 'string' });
      if (kv.keep === undefined) p.fail('update perturb needs keep=');
      return {
        kind: 'update',
        dataset,
        source: { kind: 'perturb', keep: kv.keep, noise: kv.noise ?? 0 },
        label: kv.label,
      };
    }
    const kv = p.options({ label: 'string' });
    return {
      kind: 'update',
      dataset,
      source: { kind: 'file', path: what },
      label: kv.label,
    };
  },
  async run(c, ctx) {
    const swarm = ctx.liveSwarm();
    const ids = ctx.world.ids(c.dataset);
    let profiles: Profile[];
    if (c.source.kind === 'file') {
      profiles = (await ctx.load(`${c.dataset}-update`, c.source)).map((e) => e.profile);
    } else {
      const base = ids.map((id, i) => ({
        name: `${c.dataset}#${i}`,
        profile: ctx.world.get(id)?.profile as Profile,
      }));
      const { keep, noise } = c.source;
      profiles =
        base.length === 0
          ? []
          : perturbed(`${c.dataset}-u`, base, base.length, keep, noise, ctx.rng).map(
              (e) => e.profile,
            );
    }
    let done = 0;
    const stats = ctx.ops.groups(c.label).map((g) => g.update);
    const before = await swarm.traffic();
    for (const [i, id] of ids.entries()) {
      const p = profiles[i];
      const com = ctx.world.get(id);
      if (p === undefined || com === undefined || !ctx.world.isLive(id) || !com.owner.alive)
        continue;
      const t = Date.now();
      try {
        await com.owner.update(id, p);
        ctx.world.updated(id, p);
        done++;
        for (const s of stats) s.done(Date.now() - t, t - ctx.startedAt);
      } catch {
        for (const s of stats) s.failed++;
      }
    }
    chargeTraffic(stats, before, await swarm.traffic());
    return `${done} updated`;
  },
};
