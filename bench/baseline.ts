/**
 * npm run bench:baseline — what searches, creates and updates cost on the wire, in both index
 * modes, on the corpus data (npm run data first): a simulated swarm creates communities from the
 * users' 150-term vectors, searches with other users, updates every community (90% of its terms
 * kept), and every protocol is metered. The numbers later optimisations are measured against.
 * One child process per mode. Prints a markdown table for docs/BENCHMARKS.md.
 *
 * Usage: npm run bench:baseline [-- --nodes 100 --communities 60 --queries 40]
 *          [--heap 20480] [--cpu-prof search.cpuprofile] [--one lsh|attribute] [--size 400]
 * --cpu-prof samples the CPU during the searches only (not join, creates, updates), in the LSH
 * run, and writes a .cpuprofile that Chrome DevTools or `node bench/cpu-profile.ts` reads.
 * --size replaces the corpus with synthetic profiles of that many attributes (queries as large).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { runScenario } from '../sim/interpreter.ts';
import { parseScenario } from '../sim/scenario.ts';
import { benchArgs } from './args.ts';
import { runChild } from './child.ts';
import { profiled } from './cpu-sampling.ts';
import { DATA_DIR } from './eval/publish.ts';
import { removedAtExit } from './removed-at-exit.ts';

const { values } = benchArgs('bench:baseline', {
  options: {
    nodes: { type: 'string', default: '100' },
    communities: { type: 'string', default: '60' },
    queries: { type: 'string', default: '40' },
    // More `params` settings (e.g. "bucket=8 alpha=1": kad-dht's k and alpha).
    params: { type: 'string', default: '' },
    // More `timing` settings (e.g. "cache=0ms" turns off the closest-peer cache).
    timing: { type: 'string', default: '' },
    one: { type: 'string' },
    // Old-space size of each child, MiB (2000 nodes ran at 5120, spending half the CPU in GC);
    // with --one, pass --max-old-space-size to node yourself.
    heap: { type: 'string', default: '12288' },
    'cpu-prof': { type: 'string' },
    // Synthetic profiles of this many attributes (7 topics; users resemble communities,
    // keep = 0.45) instead of the corpus: how the two modes compare as profiles grow.
    size: { type: 'string' },
  },
});
const MODES: Record<string, string> = {
  attribute: 'index attribute',
  lsh: 'index lsh n=20 m=1 seed=cidx-eval',
};
const METRICS = [
  'messages.per_search',
  'bytes.per_search',
  'messages.per_create',
  'bytes.per_create',
  'messages.per_update',
  'bytes.per_update',
  'index.entries',
  'index.bytes',
  'lookup.messages',
  'lookup.count',
  'search.count',
  'search.top1_agreement',
  'search.requests',
  'search.request_peers',
  'search.repeat_queries',
  'search.keys_dropped',
  'search.keys_routed',
  'search.latency_p50_ms',
  'create.latency_p50_ms',
  'update.latency_p50_ms',
  'time.join_ms',
];

function datasets(): string {
  if (values.size !== undefined) {
    const size = Number(values.size);
    if (!Number.isInteger(size) || size < 1) throw new Error(`--size must be a positive integer`);
    return [
      `dataset communities synthetic count=${values.communities} size=${size} topics=7`,
      `dataset users perturb communities count=${values.queries} keep=0.45 noise=0.2`,
    ].join('\n');
  }
  return [
    `dataset communities ${join(DATA_DIR, 'communities-v150.jsonl')} limit=${values.communities}`,
    `dataset users ${join(DATA_DIR, 'queries-v150.jsonl')} limit=${values.queries}`,
  ].join('\n');
}

async function one(mode: string): Promise<void> {
  const text = `
seed 88
${MODES[mode]}
params k=5 l=3 s=5 replicas=3 ${values.params}
timing republish=3h ttl=6h tombstone=12h lookup=60s request=60s ${values.timing}
${datasets()}
at 0s join ${values.nodes}
at +0s create communities concurrency=4
at +0s search users exact concurrency=4
at +0s update communities perturb keep=0.9
`;
  const file = join(mkdtempSync(join(tmpdir(), 'cidx-baseline-')), `${mode}.scenario`);
  removedAtExit(dirname(file));
  writeFileSync(file, text);
  const t0 = Date.now();
  const profile = mode === 'lsh' ? values['cpu-prof'] : undefined;
  let searchCpuS = Number.NaN;
  const report = await runScenario(parseScenario(text, file), {
    file,
    // BENCH_PROGRESS=1: a line per tenth of each command on stderr (long runs).
    progress: process.env.BENCH_PROGRESS === '1',
    aroundCommand: async (command, run) => {
      if (command !== 'search') return run();
      // CPU seconds of the whole process (main thread and GC helpers) while searching.
      const cpu0 = process.cpuUsage();
      await (profile ? profiled(profile, run) : run());
      const cpu = process.cpuUsage(cpu0);
      searchCpuS = (cpu.user + cpu.system) / 1e6;
    },
  });
  const metrics: Record<string, number | null> = Object.fromEntries(
    METRICS.map((m) => [m, report.metrics[m] ?? null]),
  );
  // …and each operation's traffic by protocol.
  for (const [k, v] of Object.entries(report.metrics))
    if (/^(bytes|messages)\.per_(search|create|update)\./.test(k)) metrics[k] = v;
  metrics['cpu.search_s'] = searchCpuS;
  // The parent reads the JSON line on stdout; a reader of a --one run, the table on stderr.
  if (process.env.BENCH_CHILD !== '1')
    process.stderr.write(`${whereSearchBytesGo(mode, metrics).join('\n')}\n`);
  process.stdout.write(`${JSON.stringify({ mode, ms: Date.now() - t0, metrics })}\n`);
}

/** A search's bytes and messages by protocol and message type, the largest first. */
function whereSearchBytesGo(mode: string, m: Record<string, number | null>): string[] {
  const total = m['bytes.per_search'] ?? 0;
  const rows = Object.keys(m)
    .filter((k) => /^bytes\.per_search\.[^.]+\.[^.]+$/.test(k))
    .map((k) => {
      const type = k.slice('bytes.per_search.'.length);
      return { type, bytes: m[k] ?? 0, messages: m[`messages.per_search.${type}`] ?? 0 };
    });
  // Protocols without types (identify, ping) as one row each.
  for (const k of Object.keys(m))
    if (/^bytes\.per_search\.[^.]+$/.test(k)) {
      const p = k.slice('bytes.per_search.'.length);
      if (!rows.some((r) => r.type.startsWith(`${p}.`)))
        rows.push({ type: p, bytes: m[k] ?? 0, messages: m[`messages.per_search.${p}`] ?? 0 });
    }
  rows.sort((a, b) => b.bytes - a.bytes);
  return [
    '',
    `Where a search's ${(total / 1024).toFixed(1)} KiB go (${mode}):`,
    '',
    '| protocol.type | KiB / search | share | msgs / search | bytes / msg |',
    '|---|---|---|---|---|',
    ...rows.map(
      (r) =>
        `| ${r.type} | ${(r.bytes / 1024).toFixed(1)} | ${((100 * r.bytes) / (total || 1)).toFixed(1)} % | ${r.messages.toFixed(1)} | ${(r.bytes / (r.messages || 1)).toFixed(0)} |`,
    ),
  ];
}

if (values.one !== undefined) {
  await one(values.one);
} else {
  const rows: { mode: string; ms: number; metrics: Record<string, number | null> }[] = [];
  for (const mode of Object.keys(MODES)) {
    rows.push(
      runChild(
        import.meta.filename,
        [
          '--one',
          mode,
          '--nodes',
          values.nodes,
          '--communities',
          values.communities,
          '--queries',
          values.queries,
          '--params',
          values.params,
          '--timing',
          values.timing,
          ...(values.size === undefined ? [] : ['--size', values.size]),
          ...(values['cpu-prof'] ? ['--cpu-prof', values['cpu-prof']] : []),
        ],
        [`--max-old-space-size=${values.heap}`],
      ),
    );
    process.stderr.write(`${mode} done\n`);
  }
  const v = (row: (typeof rows)[number], k: string) => row.metrics[k] ?? 0;
  const kib = (x: number) => (x / 1024).toFixed(1);
  const line = (cells: (string | number)[]) => `| ${cells.join(' | ')} |`;
  const out = [
    `${values.nodes} nodes, ${values.communities} communities (${values.size === undefined ? 'corpus 150-term vectors' : `synthetic ${values.size}-attribute vectors`}), ` +
      `${values.queries} searches, every community updated once; k = 5, s = 5, 3 replicas.`,
    '',
    line([
      'index',
      'msgs / search',
      'KiB / search',
      'keys / search × (queries per lookup + 1)',
      'msgs / create',
      'KiB / create',
      'msgs / update',
      'KiB / update',
      'index entries',
      'index MiB',
      'top-1',
    ]),
    line(Array.from({ length: 11 }, () => '---')),
    ...rows.map((r) => {
      const keysPerSearch = r.mode === 'lsh' ? 20 : null;
      const perLookup = v(r, 'lookup.messages');
      return line([
        r.mode === 'lsh' ? 'LSH n=20 m=1' : 'per attribute',
        v(r, 'messages.per_search').toFixed(0),
        kib(v(r, 'bytes.per_search')),
        keysPerSearch === null
          ? `|P| × ${(perLookup + 1).toFixed(1)}`
          : `${keysPerSearch} × ${(perLookup + 1).toFixed(1)} = ${(keysPerSearch * (perLookup + 1)).toFixed(0)}`,
        v(r, 'messages.per_create').toFixed(0),
        kib(v(r, 'bytes.per_create')),
        v(r, 'messages.per_update').toFixed(0),
        kib(v(r, 'bytes.per_update')),
        v(r, 'index.entries'),
        (v(r, 'index.bytes') / 2 ** 20).toFixed(1),
        `${(100 * v(r, 'search.top1_agreement')).toFixed(0)}%`,
      ]);
    }),
  ];
  for (const r of rows) out.push(...whereSearchBytesGo(r.mode, r.metrics));
  process.stdout.write(`${out.join('\n')}\n\n${JSON.stringify(rows)}\n`);
}
