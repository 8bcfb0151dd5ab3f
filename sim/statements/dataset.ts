/**
 * `dataset <name> <path.jsonl> | synthetic … | perturb <other> …` [offset=N] [limit=N]: the
 * profiles commands create, search and update with. Loaded when the statement runs.
 */
import type { DatasetSource } from '../datasets.ts';
import type { StatementSpec } from '../language.ts';
import type { LineParser } from '../line-parser.ts';

type DatasetStatement = {
  kind: 'dataset';
  name: string;
  source: DatasetSource;
  offset?: number;
  limit?: number;
};

export const dataset: StatementSpec<DatasetStatement> = {
  word: 'dataset',
  parse(p: LineParser, scope): DatasetStatement {
    const name = p.name('a dataset name');
    const what = p.word('a path, "synthetic" or "perturb"');
    let source: DatasetSource;
    let range: { offset?: number; limit?: number };
    if (what === 'synthetic') {
      const kv = p.options({
        count: 'int',
        size: 'int',
        topics: 'int',
        vocabulary: 'int',
        matrix: 'bool',
        offset: 'int',
        limit: 'int',
      });
      if (kv.count === undefined || kv.size === undefined)
        p.fail('dataset synthetic needs count= and size=');
      source = {
        kind: 'synthetic',
        count: kv.count,
        size: kv.size,
        topics: kv.topics ?? 7,
        vocabulary: kv.vocabulary ?? 4 * kv.size,
        matrix: kv.matrix ?? false,
      };
      range = kv;
    } else if (what === 'perturb') {
      const of = p.name('the dataset to perturb');
      if (!scope.datasets.has(of)) p.fail(`unknown dataset "${of}" (declare it first)`);
      const kv = p.options({
        count: 'int',
        keep: 'fraction',
        noise: 'fraction',
        offset: 'int',
        limit: 'int',
      });
      if (kv.count === undefined || kv.keep === undefined)
        p.fail('dataset perturb needs count= and keep=');
      source = { kind: 'perturb', of, count: kv.count, keep: kv.keep, noise: kv.noise ?? 0 };
      range = kv;
    } else {
      range = p.options({ offset: 'int', limit: 'int' });
      source = { kind: 'file', path: what };
    }
    scope.datasets.add(name);
    return {
      kind: 'dataset',
      name,
      source,
      offset: range.offset,
      limit: range.limit,
    };
  },
  async run(s, run) {
    const range = { offset: s.offset, limit: s.limit };
    run.datasets.set(s.name, await run.load(s.name, s.source, range));
  },
};
