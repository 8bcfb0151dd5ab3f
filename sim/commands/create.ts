/**
 * `create <dataset> [from=<nodes>] [limit=N] [label=L] [concurrency=C]`: creates a community of
 * every profile, owners round-robin over the selected live nodes.
 */
import pLimit from 'p-limit';
import type { CommandSpec, Selector } from '../language.ts';
import { chargeTraffic } from '../metrics.ts';
import type { SimPeer } from '../swarm-api.ts';

/** One live node that can be asked (not frozen), drawn at random. */
const ANY = { kind: 'random', count: 1 } as const;

type Create = {
  kind: 'create';
  dataset: string;
  from: Selector;
  limit?: number;
  label?: string;
  concurrency: number;
};

export const create: CommandSpec<Create> = {
  word: 'create',
  kinds: ['create'],
  parse(p, scope) {
    const dataset = p.dataset(scope.datasets);
    const kv = p.options({ from: 'selector', limit: 'int', label: 'string', concurrency: 'int' });
    return {
      kind: 'create',
      dataset,
      from: kv.from ?? { kind: 'all' },
      limit: kv.limit,
      label: kv.label,
      concurrency: kv.concurrency ?? 1,
    };
  },
  async run(c, ctx) {
    const swarm = ctx.liveSwarm();
    const entries = ctx.entries(c.dataset, c.limit);
    const owners = ctx.select(c.from);
    if (owners.length === 0) ctx.fail('no live node matches from=');
    const stats = ctx.ops.groups(c.label).map((g) => g.create);
    const bar = ctx.progress(ctx.text, entries.length);
    const before = await swarm.traffic();
    // Owners are assigned in data-set order and ids recorded in that order, whatever the
    // concurrency, so later commands (update, dissolve) see the same communities.
    const limit = pLimit(Math.max(1, c.concurrency));
    const created = await Promise.all(
      entries.map((e, i) =>
        limit(async () => {
          let owner = owners[i % owners.length] as SimPeer;
          if (!owner.alive || owner.frozen) owner = ctx.select(ANY)[0] ?? owner;
          const t = Date.now();
          try {
            const { id } = await owner.create(e.profile);
            for (const s of stats) s.done(Date.now() - t, t - ctx.startedAt);
            return { id, owner, profile: e.profile };
          } catch {
            for (const s of stats) s.failed++;
            return null;
          } finally {
            bar.increment();
          }
        }),
      ),
    );
    for (const r of created) if (r !== null) ctx.world.created(c.dataset, r.id, r.owner, r.profile);
    bar.stop();
    chargeTraffic(stats, before, await swarm.traffic());
    return `${entries.length} created`;
  },
};
