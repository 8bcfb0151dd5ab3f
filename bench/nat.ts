/**
 * npm run bench:nat — what being behind a NAT costs, on the NAT test bed (sim/processes/
 * nat-testbed.ts: public nodes, home nodes behind masquerading routers, all `cidx node`
 * processes in namespaces). Needs root, iproute2, nftables and `npm run build`.
 *
 * - searches and creates from a home node (DHT client) and from a public node (server): bytes
 *   on the wire, DHT and cidx messages, latency;
 * - bytes a relay carries per notification to a home node;
 * - the time from a home node's start to its first relay reservation;
 * - whether DCUtR turns the relayed connection between two homes into a direct one;
 * - the browser build's size.
 *
 * Usage: npm run bench:nat [-- --runs 10 --starts 5 --communities 30]
 */

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { NatTestbed, type TestbedNode } from '../sim/processes/index.ts';
import type { ProfileJSON } from '../src/profile/profile.ts';
import { variedProfiles } from '../test/support/swarm.ts';
import { benchArgs } from './args.ts';

const { values } = benchArgs('bench:nat', {
  options: {
    runs: { type: 'string', default: '10' },
    starts: { type: 'string', default: '5' },
    communities: { type: 'string', default: '30' },
  },
});
const RUNS = Number(values.runs);
const STARTS = Number(values.starts);
const COMMUNITIES = Number(values.communities);

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length === 0
    ? Number.NaN
    : s.length % 2
      ? (s[m] as number)
      : ((s[m - 1] as number) + (s[m] as number)) / 2;
};
const kib = (b: number) => `${(b / 1024).toFixed(1)} KiB`;

/** The counters one operation is measured by, read from a node before and after it. */
interface Counters {
  bytes: number;
  dht: number;
  cidx: number;
  cidxBytes: number;
  hop: number;
}

async function metrics(n: TestbedNode, token: string): Promise<Map<string, number>> {
  const res = await fetch(`${n.url}/metrics`, {
    headers: { Authorization: `Bearer ${token}` },
    signal: AbortSignal.timeout(30_000),
  });
  const out = new Map<string, number>();
  for (const line of (await res.text()).split('\n')) {
    const m = /^(\w+)(\{[^}]*\})? ([\d.e+-]+)$/.exec(line);
    if (m) out.set(`${m[1]}${m[2] ?? ''}`, Number(m[3]));
  }
  return out;
}

async function counters(n: TestbedNode, token: string): Promise<Counters> {
  const m = await metrics(n, token);
  const sum = (re: RegExp) => [...m].filter(([k]) => re.test(k)).reduce((a, [, v]) => a + v, 0);
  const stats = await n.rpc.call('stats');
  return {
    bytes: sum(/^libp2p_data_transfer_bytes_total\{protocol="global (sent|received)"\}/),
    dht: sum(/^libp2p_dht_\w+_outbound_rpc_requests_total/),
    cidx: stats.messages.sent.messages + stats.messages.received.messages,
    cidxBytes: stats.messages.sent.bytes + stats.messages.received.bytes,
    hop: sum(
      /^libp2p_data_transfer_bytes_total\{protocol="\/libp2p\/circuit\/relay\/0\.2\.0\/hop /,
    ),
  };
}

function diff(a: Counters, b: Counters): Counters {
  return {
    bytes: b.bytes - a.bytes,
    dht: b.dht - a.dht,
    cidx: b.cidx - a.cidx,
    cidxBytes: b.cidxBytes - a.cidxBytes,
    hop: b.hop - a.hop,
  };
}

async function measure(
  n: TestbedNode,
  token: string,
  op: () => Promise<unknown>,
): Promise<Counters & { ms: number }> {
  const before = await counters(n, token);
  const t = performance.now();
  await op();
  const ms = performance.now() - t;
  return { ...diff(before, await counters(n, token)), ms };
}

async function until<T>(f: () => Promise<T | undefined>, ms: number, what: string): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await f();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The pino log line `msg` (JSON on stderr) with the first relay address, its time. */
function relayLogTime(n: TestbedNode): number | undefined {
  for (const line of n.process.stderrTail(10_000).split('\n')) {
    if (!line.startsWith('{')) continue;
    try {
      const l = JSON.parse(line) as { msg?: string; time?: number; relayAddrs?: string[] };
      if (l.msg === 'relay addresses' && (l.relayAddrs?.length ?? 0) > 0) return l.time;
    } catch {}
  }
  return undefined;
}

console.log(`# bench:nat — ${new Date().toISOString()}\n`);
const bundle = readFileSync(join(import.meta.dirname, '..', 'dist', 'browser.js'));
console.log(
  `Browser build: dist/browser.js ${kib(bundle.length)}, ${kib(gzipSync(bundle).length)} gzipped.\n`,
);

const bed = await NatTestbed.create({
  publics: 3,
  homes: 2,
  args: ['--log-level', 'info'],
  homeEnv: { DEBUG: 'libp2p:dcutr*' },
});
try {
  const token = bed.harness.token;
  const [homeA, homeB] = bed.homes as [TestbedNode, TestbedNode];
  const server = bed.publics[2] as TestbedNode;
  for (const h of bed.homes)
    await until(
      async () =>
        (await h.rpc.call('node.info')).addrs.some((a) => a.includes('p2p-circuit'))
          ? true
          : undefined,
      60_000,
      'relay reservations',
    );

  // Time to the first relay reservation: new home networks, each node from its spawn.
  const toReady: number[] = [];
  const toRelay: number[] = [];
  for (let i = 0; i < STARTS; i++) {
    const h = await bed.addHome();
    const at = await until(async () => relayLogTime(h), 60_000, `${h.name}'s relay`);
    toReady.push(h.process.readyAt - h.process.spawnedAt);
    toRelay.push(at - h.process.spawnedAt);
  }

  // A swarm with something in it.
  const pool = variedProfiles(COMMUNITIES + 4 * RUNS, 16, 97);
  for (let i = 0; i < COMMUNITIES; i++)
    await (bed.publics[i % bed.publics.length] as TestbedNode).rpc.call('community.create', {
      profile: pool[i] as ProfileJSON,
    });

  const rows: [string, string, Counters & { ms: number }][] = [];
  for (let r = 0; r < RUNS; r++) {
    const q = pool[r % COMMUNITIES] as ProfileJSON;
    for (const [who, n] of [
      ['home (client)', homeA],
      ['public (server)', server],
    ] as const) {
      rows.push([
        who,
        'search',
        await measure(n, token, () => n.rpc.call('community.search', { profile: q })),
      ]);
      const c = pool[COMMUNITIES + 2 * r + (n === homeA ? 0 : 1)] as ProfileJSON;
      rows.push([
        who,
        'create',
        await measure(n, token, () => n.rpc.call('community.create', { profile: c, notify: 0 })),
      ]);
    }
  }
  console.log(`Medians of ${RUNS} operations each; ${COMMUNITIES} communities in the swarm.\n`);
  console.log(
    '| node | operation | bytes on the wire | DHT requests | cidx messages | cidx bytes | latency ms |',
  );
  console.log('|---|---|---|---|---|---|---|');
  for (const who of ['home (client)', 'public (server)'])
    for (const op of ['search', 'create']) {
      const xs = rows.filter(([w, o]) => w === who && o === op).map(([, , c]) => c);
      const med = (k: keyof Counters | 'ms') => median(xs.map((x) => x[k]));
      console.log(
        `| ${who} | ${op} | ${med('bytes').toFixed(0)} | ${med('dht')} | ${med('cidx')} | ${med('cidxBytes').toFixed(0)} | ${med('ms').toFixed(0)} |`,
      );
    }

  // Notifications from one home to the other: they cross a relay.
  const base = { canto: 1.4, Verdi: 0.9, Rigoletto: 0.62, chitarra: 0.8 };
  const x = await homeA.rpc.call('community.create', {
    profile: { weights: base },
  });
  const inbox = async () => (await homeA.rpc.call('notifications.list', {})).notifications.length;
  const relayed: { hop: number; notes: number }[] = [];
  for (let r = 0; r < RUNS; r++) {
    const before = await Promise.all(bed.publics.map((p) => counters(p, token)));
    const had = await inbox();
    const weights = { ...base, [`var${r}`]: 0.5 };
    const made = await homeB.rpc.call('community.create', { profile: { weights } });
    const notes = await until(
      async () => ((await inbox()) > had ? (await inbox()) - had : undefined),
      60_000,
      'a notification',
    );
    const after = await Promise.all(
      bed.publics.map((p, i) => counters(p, token).then((c) => diff(before[i] as Counters, c))),
    );
    relayed.push({ hop: after.reduce((a, c) => a + c.hop, 0), notes });
    // Gone before the next run, whose community would otherwise be more similar to it than to X.
    await homeB.rpc.call('community.dissolve', { id: made.id });
  }
  const [first, ...later] = relayed;
  console.log(
    `\nNotifications from home B to home A (community ${x.id.slice(0, 8)}), through a relay:\n`,
  );
  console.log('| | relayed bytes (hop streams, all relays) | notifications |');
  console.log('|---|---|---|');
  console.log(`| first (opens the relayed connection) | ${first?.hop} | ${first?.notes} |`);
  console.log(
    `| later, median of ${later.length} | ${median(later.map((l) => l.hop / l.notes)).toFixed(0)} per notification | ${median(later.map((l) => l.notes))} |`,
  );

  // DCUtR between the two homes, from both nodes' libp2p logs and home A's connections.
  const conns = (await homeA.rpc.call('node.peers')).connections.filter(
    (c) => c.peer === homeB.peerId,
  );
  console.log(
    '\nConnections of home A to home B:',
    JSON.stringify(conns.map((c) => ({ addr: c.addr, limited: c.limited }))),
  );
  for (const h of [homeA, homeB]) {
    const lines = h.process
      .stderrTail(10_000)
      .split('\n')
      .filter((l) => l.includes('dcutr'));
    console.log(`\n${h.name}: ${lines.length} DCUtR log lines; the distinct ones:`);
    for (const l of new Set(
      lines.map((l) =>
        l
          .replace(/^\S+\s+/, '')
          .replace(/12D3\w+/g, '<peer>')
          .slice(0, 240),
      ),
    ))
      console.log(`  ${l}`);
  }

  console.log(`\n| home node | start → ready ms | start → first relay reservation ms |`);
  console.log('|---|---|---|');
  console.log(
    `| median of ${STARTS} | ${median(toReady).toFixed(0)} | ${median(toRelay).toFixed(0)} |`,
  );
  console.log(`| each | ${toReady.join(', ')} | ${toRelay.join(', ')} |`);
} finally {
  await bed.close();
}
