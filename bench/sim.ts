/**
 * npm run bench:sim — how far the in-process simulator scales: for each swarm size, a fresh
 * process joins the nodes, creates and searches, and reports RSS, time to join and searches per
 * second. Usage: npm run bench:sim [-- 100 500 1000 2000]. One size per child process, so each
 * RSS is that size's alone.
 * BENCH_HEAP_MB sets the child's V8 heap limit (default 12288).
 * Besides peak RSS it reports the live heap right after the join (after a full GC): what the
 * nodes themselves hold, without the garbage a generous heap limit lets pile up between GCs.
 */
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runScenario } from '../sim/interpreter.ts';
import { parseScenario } from '../sim/scenario.ts';

const SEARCHES = 50;

async function one(size: number): Promise<void> {
  const text = `
seed 1
index lsh n=20 m=1 seed=bench
timing republish=1h ttl=3h tombstone=6h lookup=60s request=30s
dataset communities synthetic count=50 size=40 topics=7
dataset users perturb communities count=${SEARCHES} keep=0.7
at 0s join ${size}
at +0s create communities
at +0s search users exact concurrency=4
`;
  const file = join(tmpdir(), `bench-sim-${size}.scenario`);
  writeFileSync(file, text);
  let liveHeapMb = Number.NaN;
  const report = await runScenario(parseScenario(text, file), {
    file,
    progress: process.env.BENCH_PROGRESS === '1',
    aroundCommand: async (command, run) => {
      await run();
      if (command !== 'join') return;
      (globalThis as { gc?: () => void }).gc?.();
      liveHeapMb = process.memoryUsage().heapUsed / 2 ** 20;
    },
  });
  const m = report.metrics;
  const search = report.timeline.find((t) => t.command.includes('search'));
  const create = report.timeline.find((t) => t.command.includes('create'));
  const row = {
    nodes: m['nodes.alive'],
    peakRssMb: m['memory.peak_rss_mb'],
    liveHeapMb,
    joinS: (m['time.join_ms'] ?? 0) / 1000,
    createS: (create?.durationMs ?? 0) / 1000,
    searchesPerS: search ? SEARCHES / (search.durationMs / 1000) : 0,
    top1: m['search.top1_agreement'],
    lookupHops: m['lookup.hops'],
    messagesPerSearch: m['messages.per_search'],
  };
  process.stdout.write(`${JSON.stringify(row)}\n`);
}

const sizeArg = process.argv.indexOf('--size');
if (sizeArg >= 0) {
  await one(Number(process.argv[sizeArg + 1]));
} else {
  const sizes = process.argv
    .slice(2)
    .map(Number)
    .filter((n) => n > 0);
  console.log(`# bench:sim — ${new Date().toISOString()}\n`);
  console.log(
    '| nodes | peak RSS (MiB) | live heap after join (MiB) | join (s) | 50 creates (s) | searches / s | top-1 agreement | lookup hops | messages / search |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|');
  for (const size of sizes.length > 0 ? sizes : [100, 500, 1000, 2000]) {
    const r = spawnSync(
      process.execPath,
      [
        `--max-old-space-size=${process.env.BENCH_HEAP_MB ?? 12288}`,
        '--expose-gc',
        import.meta.filename,
        '--size',
        String(size),
      ],
      {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'inherit'],
        timeout: 3 * 3_600_000,
      },
    );
    const line = r.stdout.trim().split('\n').pop() ?? '';
    try {
      const x = JSON.parse(line);
      console.log(
        `| ${x.nodes} | ${x.peakRssMb} | ${x.liveHeapMb.toFixed(0)} | ${x.joinS.toFixed(0)} | ${x.createS.toFixed(0)} | ${x.searchesPerS.toFixed(2)} | ${x.top1?.toFixed(3)} | ${x.lookupHops?.toFixed(2)} | ${x.messagesPerSearch?.toFixed(0)} |`,
      );
    } catch {
      console.log(`| ${size} | failed (exit ${r.status ?? r.signal}) | | | | | | | |`);
    }
  }
}
