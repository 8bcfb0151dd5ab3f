/**
 * npm run bench:connection — what one new connection and one stream cost a node, the two units
 * of work a search is made of in a swarm larger than a node's connection limit (bench:sim
 * counts them per search). 30 in-process nodes (memory transport, plaintext: the simulator's
 * setting) join; then node 0, over and over, closes its connections to the 29 others and opens
 * them again, waiting for identify each time ("a new connection": both ends' work, the closing
 * included), or pings each of them on the open connections ("a stream": a request and its
 * answer, both ends). For each: CPU ms per operation (the process's, every thread), KiB
 * allocated per operation (V8's sampling heap profiler, garbage included) and the calls that
 * reached libp2p's peer store per operation, by method.
 * Usage: npm run bench:connection [-- --rounds 10] [--alloc-prof DIR]: DIR keeps each operation's
 * allocation profile (DIR/connection.heapprofile, DIR/stream.heapprofile), read with
 * `node bench/cpu-profile.ts`.
 */
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateKeyPair } from '@libp2p/crypto/keys';
import type { PeerId } from '@libp2p/interface';
import { defaultLogger } from '@libp2p/logger';
import { peerIdFromPrivateKey } from '@libp2p/peer-id';
import { persistentPeerStore } from '@libp2p/peer-store';
import { MemoryDatastore } from 'datastore-core';
import { TypedEventEmitter } from 'main-event';
import { CidxNode } from '../src/node/node.ts';
import { benchArgs } from './args.ts';
import { allocationsSampled } from './cpu-sampling.ts';

const { values } = benchArgs('bench:connection', {
  options: { rounds: { type: 'string', default: '10' }, 'alloc-prof': { type: 'string' } },
});
const ROUNDS = Number(values.rounds);
if (!(Number.isInteger(ROUNDS) && ROUNDS >= 1)) {
  console.error('--rounds: a positive integer');
  process.exit(2);
}
const NODES = 30;
const run = `${process.pid}`;

/**
 * Calls that reached libp2p's own peer store, whatever sits in front of it: its methods are
 * wrapped before any node exists, on the prototype a throwaway store shows.
 */
const calls = new Map<string, number>();
let counting = false;
const probe = persistentPeerStore({
  peerId: peerIdFromPrivateKey(await generateKeyPair('Ed25519')),
  datastore: new MemoryDatastore(),
  events: new TypedEventEmitter(),
  logger: defaultLogger(),
} as never);
const proto = Object.getPrototypeOf(probe) as Record<string, (...args: unknown[]) => unknown>;
for (const m of ['get', 'getInfo', 'has', 'merge', 'patch', 'save', 'delete', 'all']) {
  const own = proto[m];
  if (typeof own !== 'function') continue;
  proto[m] = function (this: unknown, ...args: unknown[]) {
    if (counting) calls.set(m, (calls.get(m) ?? 0) + 1);
    return own.apply(this, args);
  };
}

const nodes: CidxNode[] = [];
for (let i = 0; i < NODES; i++) {
  const n = await CidxNode.create({
    transport: 'memory',
    listen: [`/memory/bench-conn-${run}-${i}`],
    encryption: 'plaintext',
    bootstrap: i === 0 ? [] : (nodes[0] as CidxNode).addrs,
    simulation: true,
    limits: { inboxCapacity: 1000, inboxFilterCells: 1 << 14 },
  });
  await n.start();
  nodes.push(n);
}
const a = nodes[0] as CidxNode;
const others = nodes.slice(1);

/** Resolves when node 0 has identified p; fails after 10 s. */
function identified(p: PeerId): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      a.libp2p.removeEventListener('peer:identify', on);
      reject(new Error(`identify of ${p} did not finish within 10 s`));
    }, 10_000);
    const on = (e: CustomEvent<{ peerId: PeerId }>) => {
      if (!e.detail.peerId.equals(p)) return;
      a.libp2p.removeEventListener('peer:identify', on);
      clearTimeout(timer);
      resolve();
    };
    a.libp2p.addEventListener('peer:identify', on);
  });
}
const settle = () => new Promise((r) => setTimeout(r, 50));

async function reconnectAll(): Promise<void> {
  // Listening before the close: a peer may open the new connection itself meanwhile.
  const done = others.map((o) => identified(o.libp2p.peerId));
  for (const o of others) await a.libp2p.hangUp(o.libp2p.peerId);
  await settle();
  for (const [i, o] of others.entries()) {
    await a.libp2p.dial(o.libp2p.getMultiaddrs()[0] as never);
    await done[i];
  }
  await settle();
}
async function pingAll(): Promise<void> {
  for (const o of others) await a.libp2p.services.ping.ping(o.libp2p.peerId);
}

async function measure(what: string, op: () => Promise<void>) {
  for (let i = 0; i < 3; i++) await op();
  const keep = values['alloc-prof'];
  if (keep !== undefined) mkdirSync(keep, { recursive: true });
  const file =
    keep === undefined
      ? join(tmpdir(), `bench-connection-${run}.heapprofile`)
      : join(keep, `${what.startsWith('a new connection') ? 'connection' : 'stream'}.heapprofile`);
  calls.clear();
  counting = true;
  const cpu0 = process.cpuUsage();
  await allocationsSampled(file, async () => {
    for (let i = 0; i < ROUNDS; i++) await op();
  });
  const cpu = process.cpuUsage(cpu0);
  counting = false;
  interface Node {
    selfSize: number;
    children: Node[];
  }
  const profile = JSON.parse(readFileSync(file, 'utf8')) as { head: Node };
  if (keep === undefined) rmSync(file, { force: true });
  let bytes = 0;
  const walk = (n: Node) => {
    bytes += n.selfSize;
    for (const c of n.children) walk(c);
  };
  walk(profile.head);
  const ops = ROUNDS * others.length;
  const byMethod = [...calls]
    .sort((x, y) => y[1] - x[1])
    .map(([m, n]) => `${m} ${(n / ops).toFixed(1)}`)
    .join(', ');
  const total = [...calls.values()].reduce((s, n) => s + n, 0);
  console.log(
    `| ${what} | ${ops} | ${((cpu.user + cpu.system) / 1000 / ops).toFixed(2)} | ${(bytes / 1024 / ops).toFixed(1)} | ${(total / ops).toFixed(1)} (${byMethod}) |`,
  );
}

console.log(`# bench:connection — ${new Date().toISOString()}\n`);
console.log(`${NODES} nodes, ${ROUNDS} rounds; both ends of every operation counted.\n`);
console.log(
  '| operation | operations | CPU ms / op | KiB allocated / op | peer-store calls / op |',
);
console.log('|---|---|---|---|---|');
try {
  await measure('a new connection (close, dial, identify)', reconnectAll);
  await measure('a stream (ping and its answer)', pingAll);
} finally {
  await Promise.allSettled(nodes.map((n) => n.stop()));
}
process.exit(0);
