/**
 * `seed`, and the settings statements `index`, `params` and `timing`: what every node starts
 * with. Their key=value options are the settings table's scenario keys (src/settings/table.ts),
 * checked against the table's ranges while parsing.
 */
import type { IndexParams } from '../../src/keys/params.ts';
import type { ScenarioStatement } from '../../src/settings/kinds.ts';
import type { Run } from '../interpreter.ts';
import type { StatementSpec } from '../language.ts';
import { type LineParser, scenarioSettings } from '../line-parser.ts';

export const seed: StatementSpec<{ kind: 'seed'; seed: number }> = {
  word: 'seed',
  parse: (p) => ({ kind: 'seed', seed: p.int('seed', 0, 2 ** 32 - 1) }),
  async run(s, run) {
    run.seed = s.seed;
  },
};

/** Sets each value at its setting's place in the node's configuration. */
function configure(run: Run, statement: ScenarioStatement, values: Record<string, unknown>): void {
  const known = scenarioSettings(statement);
  for (const [key, v] of Object.entries(values)) {
    const entry = known.get(key) ?? run.fail(`unknown option "${key}"`);
    run.configure(statement, entry.path, v);
  }
}

type IndexStatement = { kind: 'index'; index: IndexParams };

export const index: StatementSpec<IndexStatement> = {
  word: 'index',
  parse(p: LineParser): IndexStatement {
    const mode = p.word('attribute or lsh');
    if (mode === 'attribute') return { kind: 'index', index: { mode: 'attribute' } };
    if (mode !== 'lsh') p.fail(`index must be "attribute" or "lsh", not "${mode}"`);
    const kv = p.settings('index');
    if (kv.n === undefined || kv.m === undefined || kv.seed === undefined)
      p.fail('index lsh needs n=, m= and seed=');
    // The keys are LshParams' own names (n, m, seed, family, bits), each checked by the table.
    return { kind: 'index', index: { mode: 'lsh', ...kv } as IndexParams };
  },
  async run(s, run) {
    run.configure('index', ['index'], s.index.mode);
    const { mode: _, ...lsh } = s.index;
    configure(run, 'index', lsh);
  },
};

type Values<K extends string> = { kind: K; values: Record<string, unknown> };

export const params: StatementSpec<Values<'params'>> = {
  word: 'params',
  parse: (p) => ({ kind: 'params', values: p.settings('params') }),
  async run(s, run) {
    configure(run, 'params', s.values);
  },
};

export const timing: StatementSpec<Values<'timing'>> = {
  word: 'timing',
  parse: (p) => ({ kind: 'timing', values: p.settings('timing') }),
  async run(s, run) {
    configure(run, 'timing', s.values);
  },
};
