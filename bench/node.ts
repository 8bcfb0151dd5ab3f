/**
 * npm run bench:node — latency and traffic of the node's operations on a 20-node in-process
 * swarm (memory transport, plaintext), for kad-dht's default lookup settings and for cidx's.
 *
 * Per setting: mean ms of one DHT lookup, one create and one search (10 each, different nodes),
 * and the cidx-protocol messages and bytes per search and per create, counted on the wire by
 * every node's meter. Options: --nodes N (default 20), --ops N (default 10).
 */
import type { KadDHTInit } from '@libp2p/kad-dht';
import type { CidxNode } from '../src/node/node.ts';
import { startSwarm, stopAll, variedProfiles } from '../test/support/swarm.ts';
import { benchArgs, wholeNumber } from './args.ts';

const { values: flags } = benchArgs('bench:node', {
  options: { nodes: { type: 'string', default: '20' }, ops: { type: 'string', default: '10' } },
});
const NODES = wholeNumber('nodes', flags.nodes, 2);
const OPS = wholeNumber('ops', flags.ops, 1);

const SETTINGS: [string, Partial<KadDHTInit>][] = [
  ['kad-dht defaults (k = 20, alpha = 10)', { kBucketSize: 20, alpha: 10 }],
  ['cidx (k = max(4, replicas + 1), alpha = 3)', {}],
];

function sent(nodes: CidxNode[]): { messages: number; bytes: number } {
  let messages = 0;
  let bytes = 0;
  for (const n of nodes) {
    const t = n.meter.total('out:');
    messages += t.messages;
    bytes += t.bytes;
  }
  return { messages, bytes };
}

console.log(`# bench:node — ${new Date().toISOString()}\n`);
console.log(
  `${NODES} nodes, ${OPS} operations of each kind, LSH n = 20, m = 1, 40-attribute profiles.\n`,
);
console.log(
  '| DHT setting | lookup ms | create ms | search ms | messages / create | bytes / create | messages / search | bytes / search |',
);
console.log('|---|---|---|---|---|---|---|---|');
for (const [name, dht] of SETTINGS) {
  const nodes = await startSwarm(NODES, { dht, timing: { closestCacheMs: 0 } });
  const profiles = variedProfiles(OPS, 40, 5);
  let before = sent(nodes);
  let t = performance.now();
  for (const [i, p] of profiles.entries()) await (nodes[i % NODES] as CidxNode).create(p);
  const create = (performance.now() - t) / OPS;
  let after = sent(nodes);
  const perCreate = {
    messages: (after.messages - before.messages) / OPS,
    bytes: (after.bytes - before.bytes) / OPS,
  };
  before = after;
  t = performance.now();
  for (const [i, p] of profiles.entries()) await (nodes[(i + 7) % NODES] as CidxNode).search(p);
  const search = (performance.now() - t) / OPS;
  after = sent(nodes);
  const perSearch = {
    messages: (after.messages - before.messages) / OPS,
    bytes: (after.bytes - before.bytes) / OPS,
  };
  // Lookups last, on a warm swarm: the first ones would also time the connections' set-up.
  t = performance.now();
  for (let i = 0; i < OPS; i++) {
    for await (const _ of (nodes[i % NODES] as CidxNode).libp2p.services.profiles.getClosestPeers(
      new Uint8Array([i, 7]),
    )) {
      // drain the lookup
    }
  }
  const lookup = (performance.now() - t) / OPS;
  console.log(
    `| ${name} | ${lookup.toFixed(0)} | ${create.toFixed(0)} | ${search.toFixed(0)} | ${perCreate.messages.toFixed(1)} | ${perCreate.bytes.toFixed(0)} | ${perSearch.messages.toFixed(1)} | ${perSearch.bytes.toFixed(0)} |`,
  );
  await stopAll(nodes);
}
console.log(
  '\nMessages and bytes count the cidx protocol only (requests and responses, all nodes); the ' +
    'DHT lookups themselves are kad-dht traffic and not yet metered.',
);
