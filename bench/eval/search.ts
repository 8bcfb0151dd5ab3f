/**
 * npm run eval:search — thesis §5.4.1 (weighted vectors), §5.4.2 (adjacency matrices) and the
 * per-message costs of §5.5, on the corpus data (npm run data): 300 users' profiles are stored
 * as communities, every other user searches. For each profile kind, per-attribute indexing (the
 * exact reference) and LSH with n ∈ {15, 20}, m ∈ {1, 2, 3} are scored against the exact answer
 * on the loss-free swarm model (swarm-model.ts).
 *
 * Usage: npm run eval:search [-- --kinds v150,v300,m150,interests --family oph]
 */
import { parseArgs } from 'node:util';
import type { Ranked } from '../../sim/ground-truth.ts';
import type { IndexParams } from '../../src/keys/params.ts';
import { loadProfiles, pct, table, writeChart, writeJson, writeSection } from './publish.ts';
import {
  type Community,
  type ModelRun,
  runModel,
  signCommunities,
  summarise,
} from './swarm-model.ts';

const { values } = parseArgs({
  options: {
    kinds: { type: 'string', default: 'v150,v300,m150,interests' },
    family: { type: 'string', default: 'oph' },
    k: { type: 'string', default: '5' },
  },
});
const kinds = values.kinds.split(',');
const family = values.family;
const k = Number(values.k);
const SEED = 'cidx-eval';

const LABEL: Record<string, string> = {
  v150: 'vectors, 150 terms',
  v300: 'vectors, 300 terms',
  m150: 'matrices, 150 terms',
  interests: 'interests (components)',
};

function datasets(kind: string): { communities: Community[]; queries: Community[] } {
  return {
    communities: loadProfiles(`communities-${kind}.jsonl`),
    queries: loadProfiles(`queries-${kind}.jsonl`),
  };
}

const configs: { name: string; index: IndexParams }[] = [
  { name: 'per attribute', index: { mode: 'attribute' } },
];
for (const n of [15, 20])
  for (const m of [1, 2, 3])
    configs.push({ name: `LSH n=${n} m=${m}`, index: { mode: 'lsh', n, m, seed: SEED, family } });

interface Row {
  kind: string;
  config: string;
  n: number | null;
  m: number | null;
  summary: ReturnType<typeof summarise>;
  meanExactJaccard: number;
  expectedTop1: number;
  perSearch: { keys: number; requestBytes: number; replyBytes: number; descriptors: number };
  perCreate: { keys: number; requestBytes: number; replyBytes: number };
  entries: number;
  indexBytes: number;
  maxEntriesPerKey: number;
}

/** Mean over the answerable queries of 1 − (1 − J^m)^n, J = Jaccard with the exact best. */
function expectedShare(js: number[], n: number, m: number): number {
  const answerable = js.filter((j) => j > 0);
  return answerable.reduce((s, j) => s + 1 - (1 - j ** m) ** n, 0) / answerable.length;
}

const rows: Row[] = [];
const t0 = Date.now();
for (const kind of kinds) {
  const { communities, queries } = datasets(kind);
  const signed = await signCommunities(communities);
  const exact = new Map<string, Ranked[]>();
  for (const c of configs) {
    const run: ModelRun = await runModel(c.index, signed, queries, { k, s: 5 }, exact);
    const q = queries.length;
    rows.push({
      kind,
      config: c.name,
      n: c.index.mode === 'lsh' ? c.index.n : null,
      m: c.index.mode === 'lsh' ? c.index.m : null,
      summary: summarise(run.scores),
      meanExactJaccard: run.exactJaccard.reduce((s, x) => s + x, 0) / q,
      // What min-hash theory predicts for top-1: the chance the exact best shares a band.
      expectedTop1:
        c.index.mode === 'lsh' ? expectedShare(run.exactJaccard, c.index.n, c.index.m) : 1,
      perSearch: {
        keys: run.search.keys / q,
        requestBytes: run.search.requestBytes / q,
        replyBytes: run.search.replyBytes / q,
        descriptors: run.search.repliedDescriptors / q,
      },
      perCreate: {
        keys: run.create.keys / communities.length,
        requestBytes: run.create.requestBytes / communities.length,
        replyBytes: run.create.replyBytes / communities.length,
      },
      entries: run.entries,
      indexBytes: run.indexBytes,
      maxEntriesPerKey: run.maxEntriesPerKey,
    });
    process.stderr.write(
      `[${((Date.now() - t0) / 1000).toFixed(0)} s] ${kind} ${c.name}: top-1 ${pct(rows.at(-1)?.summary.top1 ?? 0)}\n`,
    );
  }
  process.stderr.write(`${kind}: ${communities.length} communities, ${queries.length} queries\n`);
}
writeJson('search', { family, k, seed: SEED, rows });

// Thesis numbers (§5.4.1, §5.4.2) where it printed them.
const THESIS: Record<string, string> = {
  'v150 LSH n=15 m=1': '99.02% top-1',
  'v150 LSH n=20 m=1': '99.1% top-1, rel. error ≈ 0.07',
  'v150 LSH n=15 m=3': 'rel. error ≈ 0.18; 92.58% answered (m = 3)',
  'v150 LSH n=20 m=3': '92.58% answered (m = 3)',
  'm150 LSH n=15 m=1': '> 93.5% top-1',
  'm150 LSH n=20 m=1': '> 93.5% top-1',
};
const kb = (b: number) => (b / 1024).toFixed(1);
const sections: string[] = [];
for (const kind of kinds) {
  const rs = rows.filter((r) => r.kind === kind);
  const first = rs[0] as Row;
  sections.push(
    `**${LABEL[kind] ?? kind}** — ${first.summary.queries} queries (${first.summary.answerable} with an answer), ` +
      `mean Jaccard of a query with its exact best community ${first.meanExactJaccard.toFixed(3)}.\n\n` +
      table(
        [
          'index',
          'top-1',
          'theory',
          'precision',
          'mean rel. error',
          'unresolved',
          'keys / search',
          'KiB / search (query + replies)',
          'KiB / create',
          'entries',
          'index MiB',
          'thesis',
        ],
        rs.map((r) => [
          r.config,
          pct(r.summary.top1),
          pct(r.expectedTop1),
          r.summary.precision.toFixed(3),
          r.summary.meanRelError.toFixed(3),
          pct(r.summary.unresolved),
          r.perSearch.keys.toFixed(1),
          `${kb(r.perSearch.requestBytes)} + ${kb(r.perSearch.replyBytes)}`,
          kb(r.perCreate.requestBytes + r.perCreate.replyBytes),
          r.entries,
          (r.indexBytes / 2 ** 20).toFixed(2),
          THESIS[`${kind} ${r.config}`] ?? '',
        ]),
      ),
  );
}
const chart = await writeChart('search', {
  $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
  data: {
    values: rows
      .filter((r) => r.m !== null)
      .map((r) => ({
        kind: LABEL[r.kind] ?? r.kind,
        n: `n = ${r.n}`,
        m: r.m,
        top1: r.summary.top1,
      })),
  },
  facet: { column: { field: 'kind', type: 'nominal', title: null } },
  spec: {
    width: 180,
    height: 160,
    mark: { type: 'line', point: true },
    encoding: {
      x: { field: 'm', type: 'ordinal', title: 'm (functions per identifier)' },
      y: { field: 'top1', type: 'quantitative', title: 'top-1 agreement', axis: { format: '%' } },
      color: { field: 'n', type: 'nominal', title: null },
    },
  },
});
// §5.5: bytes per operation and index size, per-attribute against LSH n = 20, m = 1.
const costRows: (string | number)[][] = [];
for (const kind of kinds) {
  const attr = rows.find((r) => r.kind === kind && r.n === null) as Row;
  const lsh = rows.find((r) => r.kind === kind && r.n === 20 && r.m === 1) as Row;
  const ratio = (a: number, b: number) => `${(a / b).toFixed(1)}×`;
  costRows.push([
    LABEL[kind] ?? kind,
    `${kb(attr.perSearch.requestBytes)} / ${kb(lsh.perSearch.requestBytes)} (${ratio(attr.perSearch.requestBytes, lsh.perSearch.requestBytes)})`,
    `${kb(attr.perSearch.replyBytes)} / ${kb(lsh.perSearch.replyBytes)} (${ratio(attr.perSearch.replyBytes, lsh.perSearch.replyBytes)})`,
    `${kb(attr.perCreate.requestBytes)} / ${kb(lsh.perCreate.requestBytes)} (${ratio(attr.perCreate.requestBytes, lsh.perCreate.requestBytes)})`,
    `${(attr.indexBytes / 2 ** 20).toFixed(1)} / ${(lsh.indexBytes / 2 ** 20).toFixed(1)} (${ratio(attr.indexBytes, lsh.indexBytes)})`,
  ]);
}
const costChart = await writeChart('cost', {
  $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
  data: {
    values: kinds.flatMap((kind) =>
      rows
        .filter((r) => r.kind === kind && (r.n === null || (r.n === 20 && r.m === 1)))
        .flatMap((r) => {
          const index = r.n === null ? 'per attribute' : 'LSH n=20 m=1';
          const kindLabel = LABEL[kind] ?? kind;
          return [
            {
              kind: kindLabel,
              index,
              what: 'query / search',
              kib: r.perSearch.requestBytes / 1024,
            },
            {
              kind: kindLabel,
              index,
              what: 'replies / search',
              kib: r.perSearch.replyBytes / 1024,
            },
            {
              kind: kindLabel,
              index,
              what: 'store / create',
              kib: r.perCreate.requestBytes / 1024,
            },
          ];
        }),
    ),
  },
  facet: { column: { field: 'what', type: 'nominal', title: null } },
  spec: {
    width: 200,
    height: 160,
    mark: 'bar',
    encoding: {
      y: { field: 'kind', type: 'nominal', title: null },
      yOffset: { field: 'index' },
      x: { field: 'kib', type: 'quantitative', title: 'KiB', scale: { type: 'log' } },
      color: { field: 'index', type: 'nominal', title: null },
    },
  },
});
writeSection(
  'cost',
  `Per-attribute / LSH (n = 20, m = 1) and their ratio, from the same runs as the table above ` +
    `(cidx protocol frames; the DHT's routing traffic is in the simulator's tables).\n\n` +
    table(
      [
        'profiles',
        'query KiB / search',
        'reply KiB / search',
        'store KiB / create (one copy)',
        'index MiB (one copy)',
      ],
      costRows,
    ) +
    `\n\n![bytes per operation, log scale](${costChart})`,
);
writeSection(
  'search',
  `${sections.join('\n\n')}\n\n![top-1 agreement by n and m](${chart})\n\n` +
    `LSH family \`${family}\`, k = ${k}, s = 5; regenerate with \`npm run eval:search\` (≈ ${Math.round((Date.now() - t0) / 1000)} s).`,
);
