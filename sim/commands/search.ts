/**
 * `search <dataset> [exact] [k=N] [from=<nodes>] [limit=N] [label=L] [concurrency=C]`: searches
 * every profile of a data set; `exact` also scores each answer against the ground truth.
 */
import pLimit from 'p-limit';
import type { RunContext } from '../context.ts';
import { scoreSearch } from '../ground-truth.ts';
import type { CommandSpec, Selector } from '../language.ts';
import { chargeTraffic } from '../metrics.ts';
import type { SimPeer } from '../swarm-api.ts';

/** One live node that can be asked (not frozen), drawn at random. */
const ANY = { kind: 'random', count: 1 } as const;

export type Search = {
  kind: 'search';
  dataset: string;
  exact: boolean;
  k?: number;
  from: Selector;
  limit?: number;
  label?: string;
  concurrency: number;
};

export const search: CommandSpec<Search> = {
  word: 'search',
  kinds: ['search'],
  parse(p, scope) {
    const dataset = p.dataset(scope.datasets);
    const exact = p.accept('exact');
    const kv = p.options({
      k: 'int',
      from: 'selector',
      limit: 'int',
      label: 'string',
      concurrency: 'int',
    });
    return {
      kind: 'search',
      dataset,
      exact,
      from: kv.from ?? { kind: 'all' },
      concurrency: kv.concurrency ?? 1,
      k: kv.k,
      limit: kv.limit,
      label: kv.label,
    };
  },
  run: (c, ctx) => runSearch(c, ctx, ctx.text),
};

/** Runs the searches of `c` (also during churn); returns the timeline note. */
export async function runSearch(c: Search, ctx: RunContext, text: string): Promise<string> {
  const swarm = ctx.liveSwarm();
  const entries = ctx.entries(c.dataset, c.limit);
  const askers = ctx.select(c.from);
  if (askers.length === 0) ctx.fail('no live node matches from=');
  const k = c.k ?? ctx.settings().k;
  const stats = ctx.ops.groups(c.label).map((g) => g.search);
  const bar = ctx.progress(text, entries.length);
  const before = await swarm.traffic();
  const limit = pLimit(Math.max(1, c.concurrency));
  let unresolved = 0;
  await Promise.all(
    entries.map((e, i) =>
      limit(async () => {
        let asker = askers[i % askers.length] as SimPeer;
        if (!asker.alive || asker.frozen) asker = ctx.select(ANY)[0] ?? asker;
        const t = Date.now();
        try {
          const results = await asker.search(e.profile, k);
          const latency = Date.now() - t;
          const began = t - ctx.startedAt;
          ctx.partitions.search(
            asker.index,
            began,
            began + latency,
            results.length > 0 ? 'resolved' : 'empty',
          );
          const score = c.exact
            ? scoreSearch(
                results.map((r) => ({ id: r.id, similarity: r.similarity })),
                ctx.world.answerable(ctx.world.exact(e.profile), results.length),
                k,
              )
            : undefined;
          if (score?.unresolved) unresolved++;
          for (const s of stats) {
            s.done(latency, began);
            if (score) s.addScore(score);
          }
        } catch {
          ctx.partitions.search(
            asker.index,
            t - ctx.startedAt,
            Date.now() - ctx.startedAt,
            'failed',
          );
          for (const s of stats) s.failed++;
        }
        bar.increment();
      }),
    ),
  );
  bar.stop();
  chargeTraffic(stats, before, await swarm.traffic());
  return `${entries.length} searches${c.exact ? `, ${unresolved} unresolved` : ''}`;
}
