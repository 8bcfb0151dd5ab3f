/**
 * npm run bench:modes — the same scenario on in-process nodes and on `cidx node` processes, and
 * network faults on processes in namespaces. Each run is `cidx sim` in a child (dist/cli.js:
 * `npm run build` first); the figures come from its report.json. Markdown on stdout.
 *
 *   npm run bench:modes -- --nodes 30,100                 # in-process and --processes at each size
 *   npm run bench:modes -- --nodes 30 --modes processes   # one mode only
 *   npm run bench:modes -- --faults 30                    # --netns: a 50% partition, a frozen third (root)
 *   npm run bench:modes -- --nodes 100 --modes processes --ping 0ms # libp2p's connection monitor off
 *
 * The workload: creates, exact searches, 30% of the nodes crashed, a republish round, every
 * live community searched by its own profile. The fault runs search before, during and after.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SimReport } from '../sim/report/types.ts';
import { benchArgs } from './args.ts';

const { values } = benchArgs('bench:modes', {
  options: {
    nodes: { type: 'string', default: '' },
    modes: { type: 'string', default: 'in-process,processes' },
    faults: { type: 'string', default: '' },
    communities: { type: 'string', default: '60' },
    searches: { type: 'string', default: '60' },
    // The nodes' timing.pingIntervalMs (scenario `timing ping=`): unset, the node's default.
    ping: { type: 'string' },
  },
});
const sizes = (s: string) => s.split(',').filter(Boolean).map(Number);
const CLI = join(import.meta.dirname, '..', 'dist', 'cli.js');
const dir = mkdtempSync(join(tmpdir(), 'bench-modes-'));
// Also when a run fails or the bench is interrupted (cidx sim reaps its own nodes).
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
let running: ChildProcess | undefined;
for (const sig of ['SIGINT', 'SIGTERM'] as const)
  process.once(sig, () => {
    // cidx sim stops its nodes on SIGINT; the bench leaves when it has. Ctrl-C reaches the
    // child already (one process group); a second SIGINT would cut its graceful stop short.
    if (running === undefined || running.exitCode !== null) process.exit(130);
    running.once('exit', () => process.exit(130));
    if (sig === 'SIGTERM') running.kill('SIGINT');
  });
const COMMUNITIES = Number(values.communities);
const SEARCHES = Number(values.searches);

const FLAGS: Record<string, string[]> = {
  'in-process': [],
  processes: ['--processes'],
  netns: ['--netns'],
};

/** Runs `cidx sim` on a scenario; resolves with its report (whatever the expects said). */
async function sim(name: string, text: string, mode: string): Promise<SimReport> {
  const file = join(dir, `${name}.scenario`);
  const out = join(dir, `${name}-${mode}`);
  writeFileSync(file, text);
  const args = [CLI, 'sim', file, '--out', out, '--no-progress', ...(FLAGS[mode] ?? [])];
  const child = spawn(process.execPath, args, {
    stdio: ['ignore', 'ignore', 'pipe'],
    // The in-process swarm of 100 nodes needs more than V8's default heap.
    env: { ...process.env, NODE_OPTIONS: '--max-old-space-size=8192' },
  });
  running = child;
  let stderr = '';
  child.stderr.on('data', (d) => {
    stderr = (stderr + d.toString()).slice(-8192);
  });
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  if (code !== 0 && code !== 1)
    throw new Error(`cidx sim ${name} (${mode}) exited ${code}:\n${stderr}`);
  return JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')) as SimReport;
}

const head = `seed 21
index lsh n=20 m=1 seed=bench-modes
params k=5 replicas=3
${values.ping === undefined ? '' : `timing ping=${values.ping}\n`}dataset communities synthetic count=${COMMUNITIES} size=30 topics=12
dataset users perturb communities count=${SEARCHES} keep=0.7 noise=0.1
`;

function workload(nodes: number): string {
  return `${head}at 0s join ${nodes}
at +5s create communities concurrency=4
at +0s search users exact concurrency=2
at +0s kill 30%
at +0s republish
at +0s check findable
`;
}

const f = (v: number | undefined, digits = 0) =>
  v === undefined || Number.isNaN(v)
    ? '—'
    : v.toLocaleString('en', { maximumFractionDigits: digits });

const PROTOCOLS = ['cidx', 'profiles_dht', 'addresses_dht', 'identify', 'identify_push', 'ping'];

if (values.nodes !== '') {
  console.log(`# bench:modes — ${new Date().toISOString()}\n`);
  console.log(
    `${COMMUNITIES} communities created, ${SEARCHES} exact searches (2 at a time), kill 30%, republish, check findable.\n`,
  );
  console.log(
    '| nodes | mode | top-1 | unresolved | findable | messages / search | bytes / search | search p50 ms | p95 ms | bytes / create | node RSS MiB (anon) | node start ms | join s |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|---|---|---|---|');
  const perProtocol: string[] = [];
  for (const n of sizes(values.nodes))
    for (const mode of values.modes.split(',')) {
      const r = await sim(`workload-${n}`, workload(n), mode);
      const m = r.metrics;
      const rss =
        m['memory.node_rss_mb'] === undefined
          ? `${f(m['memory.peak_rss_mb'])} all nodes (peak)`
          : `${f(m['memory.node_rss_mb'])} (${f(m['memory.node_anon_mb'])})`;
      console.log(
        `| ${n} | ${mode} | ${f(m['search.top1_agreement'], 3)} | ${f(m['search.unresolved'])} | ${f(m['communities.findable'], 3)} | ${f(m['messages.per_search'], 1)} | ${f(m['bytes.per_search'])} | ${f(m['search.latency_p50_ms'])} | ${f(m['search.latency_p95_ms'])} | ${f(m['bytes.per_create'])} | ${rss} | ${f(m['time.node_start_ms'])} | ${f((m['time.join_ms'] ?? 0) / 1000, 1)} |`,
      );
      perProtocol.push(
        `| ${n} | ${mode} | ${PROTOCOLS.map((p) => `${f(m[`bytes.per_search.${p}`])} / ${f(m[`messages.per_search.${p}`], 1)}`).join(' | ')} |`,
      );
    }
  console.log(`\nBytes / messages per search by protocol:\n`);
  console.log(`| nodes | mode | ${PROTOCOLS.join(' | ')} |`);
  console.log(`|---|---|${PROTOCOLS.map(() => '---').join('|')}|`);
  for (const row of perProtocol) console.log(row);
}

if (values.faults !== '') {
  for (const n of sizes(values.faults)) {
    const start = `${head}at 0s join ${n}
at +5s create communities concurrency=4
at +0s search users exact concurrency=2 limit=30 label=before
`;
    const phases = (r: SimReport, labels: string[]) => {
      console.log('| phase | searches | failed | unresolved | top-1 | p50 ms | p95 ms | p99 ms |');
      console.log('|---|---|---|---|---|---|---|---|');
      for (const l of labels) {
        const m = r.metrics;
        console.log(
          `| ${l} | ${f(m[`${l}.search.count`])} | ${f(m[`${l}.search.failed`])} | ${f(m[`${l}.search.unresolved`])} | ${f(m[`${l}.search.top1_agreement`], 3)} | ${f(m[`${l}.search.latency_p50_ms`])} | ${f(m[`${l}.search.latency_p95_ms`])} | ${f(m[`${l}.search.latency_p99_ms`])} |`,
        );
      }
      const t = r.timeline.map(
        (e) => `| ${e.command} | ${f(e.durationMs / 1000, 1)} | ${e.note ?? ''} |`,
      );
      console.log(`\n| command | s | note |\n|---|---|---|\n${t.join('\n')}\n`);
    };
    const cut = await sim(
      `partition-${n}`,
      `${start}at +0s partition 50%
at +0s search users exact concurrency=2 limit=30 label=cut
at +0s heal
at +5s search users exact concurrency=2 limit=30 label=healed
at +0s republish
at +0s search users exact concurrency=2 limit=30 label=republished
at +0s check findable
`,
      'netns',
    );
    console.log(`\n## --netns, ${n} nodes: a 50% partition, then heal\n`);
    phases(cut, ['before', 'cut', 'healed', 'republished']);
    console.log(`communities.findable after: ${f(cut.metrics['communities.findable'], 3)}\n`);
    const frozen = await sim(
      `freeze-${n}`,
      `${start}at +0s freeze 33%
at +0s search users exact concurrency=2 limit=30 label=frozen
at +0s check findable
`,
      'netns',
    );
    console.log(`\n## --netns, ${n} nodes: a third of them frozen (SIGSTOP) while searching\n`);
    phases(frozen, ['before', 'frozen']);
    console.log(
      `communities.findable with the third still frozen: ${f(frozen.metrics['communities.findable'], 3)}\n`,
    );
  }
}
