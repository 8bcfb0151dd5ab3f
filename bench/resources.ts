/**
 * npm run bench:resources — what one `cidx node` process needs, for docs/DEPLOY.md: resident
 * memory and CPU idle and while it serves searches, and disk per 1000 index entries. Three node
 * processes on 127.0.0.1 (`npm run build` first), each with its own data directory; with three
 * replicas every node holds every entry, so node A holds 20 entries (one per LSH key) for each
 * community created.
 *
 * Usage: npm run bench:resources [-- --communities 500 --idle 60 --load 60 --rate 5 [--metrics]]
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import pLimit from 'p-limit';
import { type NodeProcess, ProcessHarness } from '../sim/processes/index.ts';
import { variedProfiles } from '../test/support/swarm.ts';

const { values } = parseArgs({
  options: {
    communities: { type: 'string', default: '500' },
    idle: { type: 'string', default: '60' },
    load: { type: 'string', default: '60' },
    rate: { type: 'string', default: '5' },
    metrics: { type: 'boolean', default: false },
  },
});
const COMMUNITIES = Number(values.communities);
const IDLE_S = Number(values.idle);
const LOAD_S = Number(values.load);
const RATE = Number(values.rate);

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
