/**
 * GET /metrics of real nodes (memory transport, real HTTP): cidx's series count what the nodes
 * did, libp2p's series land in each node's own registry, and a node without metrics has none.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { register } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CidxClient, CidxRpcError } from '../../src/client/index.ts';
import { CidxNode } from '../../src/node/node.ts';
import { type RpcHandle, startRpc } from '../../src/rpc/http.ts';
import { NodeMetrics } from '../../src/rpc/metrics.ts';
import { raw } from '../support/http.ts';
import { variedProfiles, waitFor } from '../support/swarm.ts';

/** The value of one sample line (`name{labels} value`), or undefined. */
function sample(text: string, series: string): number | undefined {
  for (const line of text.split('\n')) {
    const at = line.lastIndexOf(' ');
    if (line.slice(0, at) === series) return Number(line.slice(at + 1));
  }
  return undefined;
}

const tag = `metrics-${process.pid}`;
let a: CidxNode;
let b: CidxNode;
let c: CidxNode;
let bare: CidxNode;
let ma: NodeMetrics;
let mb: NodeMetrics;
let mc: NodeMetrics;
const rpcs: RpcHandle[] = [];
let A: CidxClient;
let B: CidxClient;

beforeAll(async () => {
  ma = new NodeMetrics();
  mb = new NodeMetrics();
  mc = new NodeMetrics();
  const make = (name: string, m: NodeMetrics | undefined, extra: object = {}) =>
    CidxNode.create({
      transport: 'memory',
      listen: [`/memory/${tag}-${name}`],
      encryption: 'plaintext',
      timing: { requestTimeoutMs: 5_000, lookupTimeoutMs: 10_000 },
      metrics: m?.libp2pMetrics(),
      onServed: m?.served,
      ...extra,
    });
  a = await make('a', ma);
  ma.watch(a);
  await a.start();
  b = await make('b', mb, { bootstrap: a.addrs });
  mb.watch(b);
  await b.start();
  // c answers one request a second from a peer, the rest `busy`.
  c = await make('c', mc, { bootstrap: a.addrs, limits: { peerRequestsPerSecond: 1 } });
  await c.start();
  bare = await make('bare', undefined);
  await bare.start();
  await waitFor(() => [a, b, c].every((n) => n.info().peers.profiles >= 2), 15_000);
  const serve = async (n: CidxNode, m?: NodeMetrics) => {
    const h = await startRpc(n, { host: '127.0.0.1', port: 0, metrics: m });
    rpcs.push(h);
    return h.url;
  };
  A = new CidxClient(await serve(a, ma));
  B = new CidxClient(await serve(b, mb));
  rpcs.push(await startRpc(bare, { host: '127.0.0.1', port: 0 }));
}, 60_000);

afterAll(async () => {
  await Promise.allSettled(rpcs.map((h) => h.close(100)));
  await Promise.allSettled([a, b, c, bare].map((n) => n?.stop()));
});

describe('GET /metrics', () => {
  it('counts operations by kind and outcome, with their durations', async () => {
    const [p1, p2] = variedProfiles(2, 12, 5, 1);
    const created = await A.communityCreate({ profile: p1 });
    await A.communitySearch({ profile: p2 });
    await A.communitySearch({ profile: p1 });
    const failed = await A.communityGet({ id: 'e'.repeat(64) }).catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(CidxRpcError);
    const bad = await A.communitySearch({ profile: { weights: {} } }).catch((e: unknown) => e);
    expect(bad).toMatchObject({ code: -32602 });
    const notOwner = await B.communityDissolve({ id: created.id }).catch((e: unknown) => e);
    expect(notOwner).toMatchObject({ code: -32001 });

    const text = await A.metrics();
    expect(sample(text, 'cidx_operations_total{op="create",outcome="ok"}')).toBe(1);
    expect(sample(text, 'cidx_operations_total{op="search",outcome="ok"}')).toBe(2);
    expect(sample(text, 'cidx_operations_total{op="search",outcome="invalid-params"}')).toBe(1);
    expect(sample(text, 'cidx_operations_total{op="get",outcome="unknown-community"}')).toBe(1);
    expect(sample(text, 'cidx_operation_duration_seconds_count{op="search"}')).toBe(3);
    expect(sample(text, 'cidx_operation_duration_seconds_bucket{le="+Inf",op="create"}')).toBe(1);
    // b's refusal is b's: a's registry does not hold it, and b's holds nothing of a's creates.
    expect(sample(text, 'cidx_operations_total{op="dissolve",outcome="not-owner"}')).toBe(
      undefined,
    );
    const other = await B.metrics();
    expect(sample(other, 'cidx_operations_total{op="dissolve",outcome="not-owner"}')).toBe(1);
    expect(sample(other, 'cidx_operations_total{op="create",outcome="ok"}')).toBe(undefined);
  });

  it('counts the requests a node serves by type and outcome, those refused by its limits too', async () => {
    // Three nodes, three replicas: every store goes to each. Four creates at once send c some
    // 80 stores, 32 at a time; c answers one a second and the rest `busy`.
    await Promise.all(variedProfiles(4, 12, 77, 2).map((p) => a.create(p)));
    const limited = (await mc.scrape()).text;
    expect(
      sample(limited, 'cidx_requests_served_total{type="store",outcome="busy"}'),
    ).toBeGreaterThan(0);
    const text = await B.metrics();
    expect(sample(text, 'cidx_requests_served_total{type="store",outcome="ok"}')).toBeGreaterThan(
      0,
    );
    expect(sample(text, 'cidx_requests_served_total{type="store",outcome="busy"}')).toBe(undefined);
    const { served } = (await B.stats()).requests;
    let counted = 0;
    // Every request the node read, whatever its answer; a stream given up before its request
    // arrived (the requester's deadline passed) is counted apart, as aborted of no type.
    for (const line of text.split('\n'))
      if (
        line.startsWith('cidx_requests_served_total{') &&
        !line.includes('type="unknown",outcome="aborted"')
      )
        counted += Number(line.split(' ')[1]);
    expect(counted).toBe(served);
  });

  it('reports what the node holds, read at scrape time', async () => {
    const text = await A.metrics();
    const info = a.info();
    expect(sample(text, 'cidx_index_entries')).toBe(info.stored.descriptors);
    expect(info.stored.descriptors).toBeGreaterThan(0);
    expect(sample(text, 'cidx_index_keys')).toBe(info.stored.keys);
    expect(sample(text, 'cidx_contacts')).toBe(info.stored.contacts);
    expect(sample(text, 'cidx_tombstones')).toBe(info.stored.tombstones);
    expect(sample(text, 'cidx_owned_communities')).toBe(a.ownedIds().length);
    expect(sample(text, 'cidx_peers{dht="profiles"}')).toBe(info.peers.profiles);
    expect(sample(text, 'cidx_peers{dht="addresses"}')).toBe(info.peers.addresses);
    expect(sample(text, 'cidx_inbox_notifications')).toBe(info.inbox);
    expect(sample(text, 'cidx_swarm_size_estimate')).toBe(info.peers.swarmEstimate);
    expect(sample(text, 'cidx_dials_refused_total')).toBe(info.peers.refusedDials);
    expect(sample(text, 'cidx_dials_backed_off_total')).toBe(info.peers.backedOffDials);
  });

  it("holds libp2p's series in the node's own registry, never the process-wide one", async () => {
    const text = await A.metrics();
    expect(sample(text, 'libp2p_dht_profiles_routing_table_size')).toBe(a.info().peers.profiles);
    expect(text).toMatch(/^libp2p_connection_manager_connections\{/m);
    expect(text).toMatch(/^process_resident_memory_bytes /m);
    expect(register.getMetricsAsArray()).toEqual([]);
  });

  it('is absent from a node without metrics, which has no registry', async () => {
    const url = rpcs[2]?.url as string;
    const r = await raw(`${url}/metrics`);
    expect(r.status).toBe(404);
    expect(JSON.parse(r.body).error).toBe('metrics are off');
    expect((bare.libp2p as unknown as { metrics?: unknown }).metrics).toBeUndefined();
  });

  it('counts refused HTTP requests by reason', async () => {
    const url = A.url;
    expect((await raw(`${url}/metrics`, { headers: { Host: 'evil.example' } })).status).toBe(403);
    const r = await raw(url, { method: 'POST', headers: { 'Content-Type': 'text/plain' } });
    expect(r.status).toBe(415);
    const text = await A.metrics();
    expect(sample(text, 'cidx_rpc_refused_total{reason="host"}')).toBe(1);
    expect(sample(text, 'cidx_rpc_refused_total{reason="content-type"}')).toBe(1);
  });

  it('has every series the Grafana dashboard and the README name', async () => {
    const text = await A.metrics();
    const exposed = new Set([...text.matchAll(/^# TYPE (\S+) /gm)].map((m) => m[1] as string));
    const named = (doc: string) =>
      new Set(
        [...doc.matchAll(/\b((?:cidx|libp2p|process|nodejs)_[a-z0-9_]+)/g)]
          .map((m) => (m[1] as string).replace(/_(bucket|count|sum)$/, ''))
          .filter((n) => n !== 'libp2p_' && !n.endsWith('_')),
      );
    const root = join(import.meta.dirname, '..', '..');
    const dashboard = named(readFileSync(join(root, 'docs', 'grafana-dashboard.json'), 'utf8'));
    const readme = named(readFileSync(join(root, 'README.md'), 'utf8'));
    expect(dashboard.size).toBeGreaterThan(10);
    expect([...dashboard].filter((n) => !exposed.has(n))).toEqual([]);
    expect([...readme].filter((n) => n.startsWith('cidx_') && !exposed.has(n))).toEqual([]);
  });
});
