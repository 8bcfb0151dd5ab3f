/**
 * npm run eval:swarm — thesis §5.4.1 / §5.4.2 in the simulator: a swarm of real nodes stores the
 * 300 community profiles and answers the first Q queries, scored against the exact answer; the
 * loss-free model (swarm-model.ts) answers the same queries, so the table shows whether the
 * swarm loses anything the model does not (it should not: same keys, same ranking). One child
 * process per configuration keeps their memory apart; the wire is metered per protocol.
 *
 * Usage: npm run eval:swarm [-- --nodes 100 --queries 100 --kinds v150,v300,m150,interests
 *          --configs attribute,15x1,15x2,15x3,20x1,20x2,20x3]
 *        npm run eval:swarm -- --nodes 100 --render     (redraw the table from the saved runs)
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { runScenario } from '../../sim/interpreter.ts';
import { parseScenario } from '../../sim/scenario.ts';
import type { IndexParams } from '../../src/keys/params.ts';
import { runChild } from '../child.ts';
import {
  DATA_DIR,
  loadProfiles,
  pct,
  table,
  writeChart,
  writeJson,
  writeSection,
} from './publish.ts';
import { runModel, signCommunities, summarise } from './swarm-model.ts';

const { values } = parseArgs({
  options: {
    nodes: { type: 'string', default: '100' },
    queries: { type: 'string', default: '100' },
    communities: { type: 'string', default: '300' },
    heap: { type: 'string' },
    kinds: { type: 'string', default: 'v150' },
    configs: { type: 'string', default: 'attribute,15x1,15x2,15x3,20x1,20x2,20x3' },
    one: { type: 'string' },
    render: { type: 'boolean', default: false },
  },
});
const NODES = Number(values.nodes);
const QUERIES = Number(values.queries);
const COMMUNITIES = Number(values.communities);
const SEED = 'cidx-eval';

function indexOf(config: string): IndexParams {
  if (config === 'attribute') return { mode: 'attribute' };
  const [n, m] = config.split('x').map(Number) as [number, number];
  return { mode: 'lsh', n, m, seed: SEED };
}
const indexLine = (i: IndexParams) =>
  i.mode === 'attribute' ? 'index attribute' : `index lsh n=${i.n} m=${i.m} seed=${i.seed}`;
const METRICS = [
  'search.count',
  'search.failed',
  'search.top1_agreement',
  'search.precision',
  'search.mean_rel_error',
  'search.unresolved_rate',
  'bytes.per_search',
  'messages.per_search',
  'bytes.per_create',
  'messages.per_create',
  'lookup.messages',
  'lookup.hops',
  'search.latency_p50_ms',
  'time.join_ms',
  'memory.peak_rss_mb',
];

async function one(spec: string): Promise<void> {
  const [kind, config] = spec.split('/') as [string, string];
  const text = `
seed 541
${indexLine(indexOf(config))}
params k=5 l=3 s=5 replicas=3
timing republish=3h ttl=6h tombstone=12h lookup=60s request=60s
dataset communities ${join(DATA_DIR, `communities-${kind}.jsonl`)} limit=${COMMUNITIES}
dataset users ${join(DATA_DIR, `queries-${kind}.jsonl`)} limit=${QUERIES}
at 0s join ${NODES}
at +0s create communities concurrency=4
at +0s search users exact concurrency=4
`;
  const file = join(mkdtempSync(join(tmpdir(), 'cidx-swarm-')), `${kind}-${config}.scenario`);
  writeFileSync(file, text);
  const t0 = Date.now();
  const report = await runScenario(parseScenario(text, file), { file, progress: false });
  const metrics = Object.fromEntries(METRICS.map((m) => [m, report.metrics[m] ?? null]));
  process.stdout.write(`${JSON.stringify({ kind, config, ms: Date.now() - t0, metrics })}\n`);
}

/**
 * `swarm-100` for the vectors, `swarm-100-m150` for other kinds, `-c60` added for fewer
 * communities than all 300: one table per run.
 */
function sectionName(nodes: number, kinds: string[], communities = 300): string {
  const k = kinds.join('-');
  const base = k === 'v150' ? `swarm-${nodes}` : `swarm-${nodes}-${k}`;
  return communities === 300 ? base : `${base}-c${communities}`;
}

interface Run {
  kind: string;
  config: string;
  swarm: { ms: number; metrics: Record<string, number | null> };
  model: ReturnType<typeof summarise>;
}

/** The table of every run so far, from the saved JSON (also what `--render` redraws). */
async function render(
  nodes: number,
  queries: number,
  runs: Run[],
  communities = 300,
): Promise<void> {
  const name = sectionName(nodes, [...new Set(runs.map((r) => r.kind))], communities);
  const rows = runs.map(({ kind, config, swarm: res, model }) => {
    const m = res.metrics;
    const same =
      m['search.top1_agreement'] === model.top1 &&
      Math.abs((m['search.precision'] ?? -1) - model.precision) < 1e-9 &&
      m['search.unresolved_rate'] === model.unresolved;
    return [
      kind,
      config === 'attribute' ? 'per attribute' : `LSH n=${config.replace('x', ' m=')}`,
      pct(m['search.top1_agreement'] ?? 0),
      (m['search.precision'] ?? 0).toFixed(3),
      (m['search.mean_rel_error'] ?? 0).toFixed(3),
      pct(m['search.unresolved_rate'] ?? 0),
      same
        ? `${pct(model.top1)} (same scores)`
        : `${pct(model.top1)}, precision ${model.precision.toFixed(3)}, unresolved ${pct(model.unresolved)}`,
      ((m['bytes.per_search'] ?? 0) / 1024).toFixed(1),
      (m['messages.per_search'] ?? 0).toFixed(0),
      ((m['bytes.per_create'] ?? 0) / 1024).toFixed(1),
      (m['messages.per_create'] ?? 0).toFixed(0),
      (m['lookup.hops'] ?? 0).toFixed(2),
      `${Math.round((m['memory.peak_rss_mb'] ?? 0) / 102.4) / 10} GiB`,
      `${(res.ms / 60000).toFixed(1)} min`,
    ];
  });
  const kinds = [...new Set(runs.map((r) => r.kind))].join(',');
  const configs = [...new Set(runs.map((r) => r.config))].join(',');
  const chart = await writeChart(name, {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    data: {
      values: runs.flatMap((r) => {
        const config =
          r.config === 'attribute' ? 'per attribute' : `n=${r.config.replace('x', ' m=')}`;
        return [
          { config, source: 'swarm', top1: r.swarm.metrics['search.top1_agreement'] ?? 0 },
          { config, source: 'loss-free model', top1: r.model.top1 },
        ];
      }),
    },
    width: 320,
    height: 160,
    mark: 'bar',
    encoding: {
      x: { field: 'config', type: 'nominal', title: null },
      xOffset: { field: 'source' },
      y: { field: 'top1', type: 'quantitative', title: 'top-1 agreement', axis: { format: '%' } },
      color: { field: 'source', type: 'nominal', title: null },
    },
  });
  writeSection(
    name,
    `${nodes} nodes, ${communities === 300 ? 'the 300' : `the first ${communities}`} communities created, the first ${queries} queries searched ` +
      `(k = 5, s = 5, 3 replicas); every protocol metered on the wire. Run times on the ` +
      `2-core machine, which was running other jobs at the same time.\n\n` +
      table(
        [
          'profiles',
          'index',
          'top-1',
          'precision',
          'mean rel. error',
          'unresolved',
          'model on the same queries',
          'KiB / search',
          'messages / search',
          'KiB / create',
          'messages / create',
          'lookup hops',
          'peak RSS',
          'run time',
        ],
        rows,
      ) +
      `\n\n![top-1 agreement: swarm and model on the same queries](${chart})` +
      `\n\nRegenerate with \`npm run eval:swarm -- --nodes ${nodes} --queries ${queries} ` +
      `${communities === 300 ? '' : `--communities ${communities} `}--kinds ${kinds} --configs ${configs}\`.`,
  );
}

if (values.one !== undefined) {
  await one(values.one);
} else if (values.render) {
  const saved = JSON.parse(
    readFileSync(
      join(
        import.meta.dirname,
        '..',
        '..',
        'docs',
        'results',
        `${sectionName(NODES, values.kinds.split(','), COMMUNITIES)}.json`,
      ),
      'utf8',
    ),
  ) as { nodes: number; queries: number; communities?: number; runs: Run[] };
  await render(saved.nodes, saved.queries, saved.runs, saved.communities);
} else {
  const kinds = values.kinds.split(',');
  const configs = values.configs.split(',');
  const runs: Run[] = [];
  const t0 = Date.now();
  for (const kind of kinds) {
    const signed = await signCommunities(
      loadProfiles(`communities-${kind}.jsonl`).slice(0, COMMUNITIES),
    );
    const queries = loadProfiles(`queries-${kind}.jsonl`).slice(0, QUERIES);
    for (const config of configs) {
      // Matrices are large in memory (each stored copy is a parsed profile of thousands of
      // relations): --heap raises the child's V8 limit.
      const res = runChild<Run['swarm']>(
        import.meta.filename,
        [
          '--one',
          `${kind}/${config}`,
          '--nodes',
          String(NODES),
          '--queries',
          String(QUERIES),
          '--communities',
          String(COMMUNITIES),
        ],
        values.heap === undefined ? [] : [`--max-old-space-size=${values.heap}`],
      );
      const model = summarise(
        (await runModel(indexOf(config), signed, queries, { k: 5, s: 5 })).scores,
      );
      runs.push({ kind, config, swarm: res, model });
      process.stderr.write(
        `[${((Date.now() - t0) / 60000).toFixed(1)} min] ${kind}/${config}: top-1 ${res.metrics['search.top1_agreement']} (model ${model.top1})\n`,
      );
      // Saved and published after every configuration: a long run's finished rows are kept.
      writeJson(sectionName(NODES, kinds, COMMUNITIES), {
        nodes: NODES,
        queries: QUERIES,
        communities: COMMUNITIES,
        runs,
      });
      await render(NODES, QUERIES, runs, COMMUNITIES);
    }
  }
}
