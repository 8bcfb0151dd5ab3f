/** `dissolve <dataset> <p>%`: random live communities of the data set dissolved by their owners. */
import { amountOf } from '../context.ts';
import type { Amount, CommandSpec } from '../language.ts';

type Dissolve = { kind: 'dissolve'; dataset: string; amount: Amount };

export const dissolve: CommandSpec<Dissolve> = {
  word: 'dissolve',
  kinds: ['dissolve'],
  parse: (p, scope) => ({
    kind: 'dissolve',
    dataset: p.dataset(scope.datasets),
    amount: p.amount(),
  }),
  async run(c, ctx) {
    const ids = ctx.world.ids(c.dataset).filter((id) => ctx.world.isLive(id));
    const chosen = ctx.rng.sample(ids, amountOf(c.amount, ids.length));
    let done = 0;
    for (const id of chosen) {
      const com = ctx.world.get(id);
      if (com === undefined) continue;
      try {
        await com.owner.dissolve(id);
        ctx.world.dissolved(id);
        done++;
      } catch {
        // counted below as not dissolved
      }
    }
    return `${done} of ${chosen.length} dissolved`;
  },
};
