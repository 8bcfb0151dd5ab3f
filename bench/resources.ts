/**
 * npm run bench:resources — what one `cidx node` process needs, for docs/DEPLOY.md: resident
 * memory and CPU idle and while it serves searches, and disk per 1000 index entries. Three node
 * processes on 127.0.0.1 (`npm run build` first), each with its own data directory; with three
 * replicas every node holds every entry, so node A holds 20 entries (one per LSH key) for each
 * community created. Then a fourth node is held with `--connections` more peers connected
 * (libp2p hosts running both DHTs, over TCP and Noise, from this process): what an open
 * connection costs a node in memory and idle CPU, for choosing `--max-connections`.
 *
 * Usage: npm run bench:resources [-- --communities 500 --idle 60 --load 60 --rate 5
 *   --connections 600 [--metrics]]
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { multiaddr } from '@multiformats/multiaddr';
import pLimit from 'p-limit';
import { type NodeProcess, ProcessHarness } from '../sim/processes/index.ts';
import { type CidxLibp2p, createHost } from '../src/net/libp2p.ts';
import { variedProfiles } from '../test/support/swarm.ts';
import { benchArgs } from './args.ts';

const { values } = benchArgs('bench:resources', {
  options: {
    communities: { type: 'string', default: '500' },
    idle: { type: 'string', default: '60' },
    load: { type: 'string', default: '60' },
    rate: { type: 'string', default: '5' },
    connections: { type: 'string', default: '600' },
    metrics: { type: 'boolean', default: false },
  },
});
const COMMUNITIES = Number(values.communities);
const IDLE_S = Number(values.idle);
const LOAD_S = Number(values.load);
const RATE = Number(values.rate);
const CONNECTIONS = Number(values.connections);
for (const [name, v] of Object.entries({ COMMUNITIES, IDLE_S, LOAD_S, RATE, CONNECTIONS })) {
  if (!(Number.isFinite(v) && v >= 0)) {
    console.error(`bench:resources: ${name.toLowerCase()} must be a number, 0 or more`);
    process.exit(2);
  }
}

/** Clock ticks per second, the unit of /proc/<pid>/stat's CPU times. */
const TICKS = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;

/** CPU seconds (user + system) a process has used, from /proc/<pid>/stat. */
function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name, which is in parentheses and may hold spaces.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]);
  return ticks / TICKS;
}

function memory(pid: number): { rss: number; anon: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status)?.[1]);
  return { rss: kib('VmRSS') / 1024, anon: kib('RssAnon') / 1024 };
}

/** Bytes under a directory (du's apparent size). */
const du = (dir: string) =>
  Number(execFileSync('du', ['-sb', dir], { encoding: 'utf8' }).split('\t')[0]);

/** CPU share of a core `pid` used over `seconds` while `during` runs. */
async function cpuShare(
  pids: number[],
  seconds: number,
  during?: (until: number) => Promise<void>,
) {
  const before = pids.map(cpuSeconds);
  const t = performance.now();
  const until = Date.now() + seconds * 1000;
  await (during ? during(until) : sleep(seconds * 1000));
  const wall = (performance.now() - t) / 1000;
  return pids.map((p, i) => (cpuSeconds(p) - (before[i] ?? 0)) / wall);
}

const pct = (x: number | undefined) => `${((x ?? 0) * 100).toFixed(1)} %`;
const mib = (x: number) => x.toFixed(1);

const harness = new ProcessHarness();
try {
  const args = values.metrics ? [] : ['--no-metrics'];
  const a = await harness.start({ name: 'a', args });
  const boot = [a.ready.addrs[0] as string];
  const [b, c] = (await harness.startMany([
    { name: 'b', args, bootstrap: boot },
    { name: 'c', args, bootstrap: boot },
  ])) as [NodeProcess, NodeProcess];
  const empty = du(a.info.dataDir);
  await sleep(10_000);
  const idleEmpty = memory(a.pid);
  const [cpuEmpty] = await cpuShare([a.pid], IDLE_S);

  const profiles = variedProfiles(COMMUNITIES, 30, 7);
  const limit = pLimit(4);
  const owners = [a, b, c];
  await Promise.all(
    profiles.map((p, i) =>
      limit(() => (owners[i % 3] as NodeProcess).client.communityCreate({ profile: p })),
    ),
  );
  const info = await a.client.nodeInfo();
  await sleep(10_000);
  const held = memory(a.pid);
  const [cpuHeld] = await cpuShare([a.pid], IDLE_S);
  const disk = du(a.info.dataDir);

  // Searches from c at a steady rate: a serves queries and contacts, c runs the searches.
  let searches = 0;
  let failed = 0;
  const [cpuServing, cpuSearching] = await cpuShare([a.pid, c.pid], LOAD_S, async (until) => {
    const inFlight: Promise<unknown>[] = [];
    for (let i = 0; Date.now() < until; i++) {
      const p = profiles[i % profiles.length];
      inFlight.push(
        c.client.communitySearch({ profile: p ?? { weights: { x: 1 } }, k: 5 }).then(
          () => searches++,
          () => failed++,
        ),
      );
      await sleep(1000 / RATE);
    }
    await Promise.all(inFlight);
  });
  const loaded = memory(a.pid);

  // A fourth node, D, empty and idle, then held with CONNECTIONS more peers connected (its limit
  // leaves room for them): A's rows above stay those of a node without them.
  const peers: CidxLibp2p[] = [];
  let dEmpty = { rss: 0, anon: 0 };
  let connected = { rss: 0, anon: 0 };
  let cpuConnected = 0;
  let heldConnections = 0;
  if (CONNECTIONS > 0) {
    const d = await harness.start({
      name: 'd',
      args: [...args, '--max-connections', String(CONNECTIONS + 10)],
      bootstrap: boot,
    });
    await sleep(10_000);
    dEmpty = memory(d.pid);
    try {
      // One at a time, 4 a second: libp2p refuses more than 5 inbound connections a second from
      // one address (its inboundConnectionThreshold), and all of these come from 127.0.0.1.
      for (let i = 0; i < CONNECTIONS; i++) {
        // The peers' own connection monitors off: hundreds of them in this process would starve
        // it, and D's own monitor still pings each connection.
        const p = await createHost({
          transport: 'tcp',
          listen: ['/ip4/127.0.0.1/tcp/0'],
          pingIntervalMs: 0,
        });
        peers.push(p);
        await p.start();
        await p.dial(multiaddr(d.ready.addrs[0] as string), {
          signal: AbortSignal.timeout(30_000),
        });
        if ((i + 1) % 100 === 0) process.stderr.write(`${i + 1} peers connected\n`);
        await sleep(250);
      }
      await sleep(10_000);
      heldConnections = (await d.client.nodeInfo()).peers.connections;
      connected = memory(d.pid);
      [cpuConnected = 0] = await cpuShare([d.pid], IDLE_S);
    } finally {
      await Promise.allSettled(peers.map((p) => p.stop()));
    }
  }

  await harness.leave(a);
  const closed = du(a.info.dataDir);

  console.log(`# bench:resources — ${new Date().toISOString()}\n`);
  console.log(
    `One \`cidx node\` process (metrics ${values.metrics ? 'on' : 'off'}) in a swarm of three on 127.0.0.1; node A after ${COMMUNITIES} communities holds ${info.stored.descriptors} index entries under ${info.stored.keys} keys (${info.stored.bytes} bytes of records).\n`,
  );
  console.log('| state | RSS MiB | anonymous MiB | CPU (one core) |');
  console.log('|---|---|---|---|');
  console.log(
    `| idle, empty | ${mib(idleEmpty.rss)} | ${mib(idleEmpty.anon)} | ${pct(cpuEmpty)} over ${IDLE_S} s |`,
  );
  console.log(
    `| idle, ${info.stored.descriptors} entries | ${mib(held.rss)} | ${mib(held.anon)} | ${pct(cpuHeld)} over ${IDLE_S} s |`,
  );
  console.log(
    `| serving ${RATE} searches/s (${searches} done, ${failed} failed) | ${mib(loaded.rss)} | ${mib(loaded.anon)} | ${pct(cpuServing)}; the searching node ${pct(cpuSearching)} |`,
  );
  if (CONNECTIONS > 0) {
    const per = (x: number, y: number) => (((x - y) * 1024) / CONNECTIONS).toFixed(0);
    console.log(`| another node, idle, empty | ${mib(dEmpty.rss)} | ${mib(dEmpty.anon)} | — |`);
    console.log(
      `| the same, ${heldConnections} connections (${CONNECTIONS} more peers) | ${mib(connected.rss)} | ${mib(connected.anon)} | ${pct(cpuConnected)} over ${IDLE_S} s; ${per(connected.rss, dEmpty.rss)} KiB RSS, ${per(connected.anon, dEmpty.anon)} KiB anonymous per connection |`,
    );
  }
  const per1000 = (bytes: number) => (((bytes - empty) / info.stored.descriptors) * 1000) / 1024;
  console.log(`\n| data directory | bytes | KiB per 1000 entries |`);
  console.log('|---|---|---|');
  console.log(`| new, after joining | ${empty} | — |`);
  console.log(
    `| running, ${info.stored.descriptors} entries | ${disk} | ${per1000(disk).toFixed(0)} |`,
  );
  console.log(`| after a graceful stop | ${closed} | ${per1000(closed).toFixed(0)} |`);
} finally {
  await harness.close();
}
