/**
 * `churn exponential mean=<d> [downtime=<d>] for <d>`, `churn pareto shape=<x> scale=<d>
 * [downtime=<d>] for <d>`, `churn rate=<p>% per=<d> [spare=<nodes>] [search=<dataset>
 * label=L] for <d>`: nodes crash and new ones join while the command runs (sim/churn-models.ts);
 * with `search=`, the data set is searched and scored after every rate step.
 */
import { type RateModel, rateChurn, type SessionModel, sessionChurn } from '../churn-models.ts';
import type { CommandSpec, Selector } from '../language.ts';
import type { LineParser } from '../line-parser.ts';
import type { SimPeer } from '../swarm-api.ts';
import { runSearch } from './search.ts';

type Churn = {
  kind: 'churn';
  model: SessionModel | (RateModel & { search?: { dataset: string; label?: string } });
  forMs: number;
  spare?: Selector;
};

export const churn: CommandSpec<Churn> = {
  word: 'churn',
  needs: 'control',
  kinds: ['churn'],
  parse(p: LineParser, scope) {
    const model = p.peek() ?? p.word('exponential, pareto or rate=<p>%');
    let m: Churn['model'];
    let spare: Selector | undefined;
    if (model === 'exponential') {
      p.word(model);
      const kv = p.options({ mean: 'duration', downtime: 'duration' });
      if (kv.mean === undefined) p.fail('churn exponential needs mean=');
      m = { kind: 'exponential', meanMs: kv.mean, downtimeMs: kv.downtime ?? 0 };
    } else if (model === 'pareto') {
      p.word(model);
      const kv = p.options({ shape: 'number', scale: 'duration', downtime: 'duration' });
      if (kv.shape === undefined || kv.scale === undefined)
        p.fail('churn pareto needs shape= and scale=');
      m = { kind: 'pareto', shape: kv.shape, scaleMs: kv.scale, downtimeMs: kv.downtime ?? 0 };
    } else if (model.startsWith('rate=')) {
      const kv = p.options({
        rate: 'percent',
        per: 'duration',
        search: 'string',
        label: 'string',
        spare: 'selector',
      });
      spare = kv.spare;
      m = { kind: 'rate', fraction: kv.rate ?? 0, perMs: kv.per ?? 60_000 };
      if (kv.search !== undefined) {
        m.search = {
          dataset: p.dataset(scope.datasets, kv.search),
          label: kv.label,
        };
      } else if (kv.label !== undefined) p.fail('label= needs search=<dataset>');
    } else {
      return p.fail(`unknown churn model "${model}" (exponential, pareto, rate=)`);
    }
    return { kind: 'churn', model: m, forMs: forDuration(p), ...(spare ? { spare } : {}) };
  },
  async run(c, ctx) {
    const swarm = ctx.liveSwarm();
    const driver = {
      swarm,
      rng: ctx.rng,
      crash: (victims: SimPeer[]) => ctx.world.orphan(victims, () => swarm.kill(victims)),
    };
    const m = c.model;
    const count =
      m.kind === 'rate'
        ? await rateChurn(
            driver,
            m,
            c.forMs,
            // p% of all live nodes go, drawn from those not spared (long-lived owners, say).
            () => new Set(c.spare === undefined ? [] : ctx.select(c.spare)),
            async () => {
              if (m.search === undefined) return;
              const { dataset, label } = m.search;
              await runSearch(
                {
                  kind: 'search',
                  dataset,
                  exact: true,
                  from: { kind: 'all' },
                  concurrency: 4,
                  label,
                },
                ctx,
                `search ${dataset} during churn`,
              );
            },
          )
        : await sessionChurn(driver, m, c.forMs);
    return `${count.crashed} crashed, ${count.joined} joined, ${swarm.alive().length} alive`;
  },
};

function forDuration(p: LineParser): number {
  const f = p.word('"for <duration>"');
  if (f !== 'for') p.fail(`expected "for <duration>", not "${f}"`);
  return p.duration(p.word('a duration'), 'for');
}
