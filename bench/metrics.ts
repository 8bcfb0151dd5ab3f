/**
 * npm run bench:metrics — what operating a node costs:
 * - one GET /metrics scrape of a node holding 10,000 index entries (a lone node stores each of
 *   500 communities under its 20 LSH keys): time over HTTP and in-process, and bytes;
 * - the web console's bundle, raw and gzip-compressed;
 * - the RSS of a `cidx node` process with metrics on and off (idle after 20 creates and 50
 *   scrapes or node.info calls; median of --runs processes each).
 * Options: --entries N (default 10000), --scrapes N (default 200), --runs N (default 3).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { gzipSync } from 'node:zlib';
import { CidxClient } from '../src/client/index.ts';
import { CidxNode } from '../src/node/node.ts';
import { startRpc } from '../src/rpc/http.ts';
import { NodeMetrics } from '../src/rpc/metrics.ts';
import { client, spawnNode, stop } from '../test/support/process.ts';
import { variedProfiles } from '../test/support/swarm.ts';
import { benchArgs, wholeNumber } from './args.ts';

const { values: flags } = benchArgs('bench:metrics', {
  options: {
    entries: { type: 'string', default: '10000' },
    scrapes: { type: 'string', default: '200' },
    runs: { type: 'string', default: '3' },
  },
});
const ENTRIES = wholeNumber('entries', flags.entries, 1);
const SCRAPES = wholeNumber('scrapes', flags.scrapes, 1);
const RUNS = wholeNumber('runs', flags.runs, 1);
const KEYS = 20; // LSH n: index entries per community on a lone node

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] as number;
};
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const ms = (x: number) => x.toFixed(2);

async function scrapeCost(): Promise<void> {
  const metrics = new NodeMetrics();
  const node = await CidxNode.create({
    transport: 'memory',
    listen: ['/memory/bench-metrics'],
    encryption: 'plaintext',
    metrics: metrics.libp2pMetrics(),
    onServed: metrics.served,
  });
  metrics.watch(node);
  await node.start();
  const rpc = await startRpc(node, { host: '127.0.0.1', port: 0, metrics });
  try {
    const communities = Math.ceil(ENTRIES / KEYS);
    for (const p of variedProfiles(communities, 20, 404)) await node.create(p);
    const held = node.info().stored.descriptors;
    const c = new CidxClient(rpc.url);
    for (let i = 0; i < 10; i++) await c.metrics(); // warm-up
    const http: number[] = [];
    let bytes = 0;
    for (let i = 0; i < SCRAPES; i++) {
      const t = performance.now();
      bytes = Buffer.byteLength(await c.metrics());
      http.push(performance.now() - t);
    }
    const inproc: number[] = [];
    for (let i = 0; i < SCRAPES; i++) {
      const t = performance.now();
      await metrics.scrape();
      inproc.push(performance.now() - t);
    }
    const info: number[] = [];
    for (let i = 0; i < SCRAPES; i++) {
      const t = performance.now();
      node.info();
      info.push(performance.now() - t);
    }
    const text = await c.metrics();
    const series = text.split('\n').filter((l) => l !== '' && !l.startsWith('#')).length;
    console.log(`## One /metrics scrape, node holding ${held} index entries\n`);
    console.log('| measured | mean ms | p50 ms | p95 ms |');
    console.log('|---|---|---|---|');
    console.log(
      `| GET /metrics over HTTP | ${ms(mean(http))} | ${ms(pct(http, 50))} | ${ms(pct(http, 95))} |`,
    );
    console.log(
      `| registry scrape in-process | ${ms(mean(inproc))} | ${ms(pct(inproc, 50))} | ${ms(pct(inproc, 95))} |`,
    );
    console.log(
      `| of which node.info(), the gauges' snapshot | ${ms(mean(info))} | ${ms(pct(info, 50))} | ${ms(pct(info, 95))} |`,
    );
    console.log(
      `\n${SCRAPES} scrapes each; one answer: ${bytes} bytes, ${series} samples (${Buffer.byteLength(gzipSync(text))} bytes gzip).\n`,
    );
  } finally {
    await rpc.close(100);
    await node.stop();
  }
}

function bundleSize(): void {
  const out = mkdtempSync(join(tmpdir(), 'cidx-bench-console-'));
  try {
    execFileSync(process.execPath, [
      join(import.meta.dirname, '..', 'scripts', 'build-console.ts'),
      '--out',
      out,
    ]);
    console.log('## The web console\n');
    console.log('| file | bytes | gzip -9 |');
    console.log('|---|---|---|');
    let raw = 0;
    let gz = 0;
    for (const f of ['console.js', 'console.css', 'index.html']) {
      const b = readFileSync(join(out, f));
      const z = gzipSync(b, { level: 9 }).length;
      raw += b.length;
      gz += z;
      console.log(`| ${f} | ${b.length} | ${z} |`);
    }
    console.log(`| total | ${raw} | ${gz} |\n`);
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

function rssKiB(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(m?.[1]);
}

async function rss(metricsOn: boolean): Promise<number> {
  const n = await spawnNode([
    '--rpc',
    '127.0.0.1:0',
    '--listen',
    '/ip4/127.0.0.1/tcp/0',
    '--metrics',
    metricsOn ? 'on' : 'off',
  ]);
  try {
    const c = client(n);
    for (const p of variedProfiles(20, 20, 505)) await c.communityCreate({ profile: p });
    for (let i = 0; i < 50; i++) {
      if (metricsOn) await c.metrics();
      else await c.nodeInfo();
    }
    await sleep(2_000); // let the node settle
    return rssKiB(n.proc.pid as number);
  } finally {
    await stop(n);
  }
}

async function rssOnOff(): Promise<void> {
  const on: number[] = [];
  const off: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    off.push(await rss(false));
    on.push(await rss(true));
  }
  const med = (xs: number[]) => pct(xs, 50) / 1024;
  console.log(`## RSS of a \`cidx node\` process (median of ${RUNS})\n`);
  console.log('| metrics | RSS MiB | runs (MiB) |');
  console.log('|---|---|---|');
  console.log(
    `| off | ${med(off).toFixed(1)} | ${off.map((x) => (x / 1024).toFixed(1)).join(', ')} |`,
  );
  console.log(
    `| on | ${med(on).toFixed(1)} | ${on.map((x) => (x / 1024).toFixed(1)).join(', ')} |`,
  );
  console.log(`\nDifference: ${(med(on) - med(off)).toFixed(1)} MiB.\n`);
}

console.log(`# bench:metrics — ${new Date().toISOString()}\n`);
await scrapeCost();
bundleSize();
await rssOnOff();
