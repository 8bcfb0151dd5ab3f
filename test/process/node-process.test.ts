import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CidxRpcError } from '../../src/client/index.ts';
import {
  client,
  type NodeProcess,
  runNodeExpectingFailure,
  spawnNode,
  stop,
} from '../support/process.ts';
import { variedProfiles, WAIT_MS } from '../support/swarm.ts';

const tmp = (name: string) => mkdtempSync(join(tmpdir(), `cidx-${name}-`));
const base = ['--rpc', '127.0.0.1:0', '--listen', '/ip4/127.0.0.1/tcp/0'];

describe('three cidx node processes on 127.0.0.1, driven through JSON-RPC', () => {
  let a: NodeProcess;
  let b: NodeProcess;
  let c: NodeProcess;
  const dirA = tmp('a');
  const [p1, p2, p3] = variedProfiles(3, 20, 71, 1);
  let first: { id: string };

  beforeAll(async () => {
    a = await spawnNode([...base, '--data', dirA]);
    b = await spawnNode([...base, '--data', tmp('b'), '--bootstrap', a.ready.addrs[0] as string]);
    c = await spawnNode([...base, '--data', tmp('c'), '--bootstrap', a.ready.addrs[0] as string]);
  });

  afterAll(async () => {
    await Promise.all([a, b, c].map((p) => p && stop(p)));
  });

  it('prints one ready line with its peer id, TCP addresses and RPC URL', () => {
    expect(a.ready.peerId).toMatch(/^12D3Koo/);
    expect(a.ready.addrs[0]).toMatch(
      new RegExp(`^/ip4/127\\.0\\.0\\.1/tcp/\\d+/p2p/${a.ready.peerId}$`),
    );
    expect(a.ready.rpc).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });

  it('creates on one node; searches and joins from another', async () => {
    first = await client(a).communityCreate({ profile: p1 });
    expect(first).toMatchObject({ version: 1, notified: 0 });
    const { results } = await client(b).communitySearch({ profile: p1, k: 3 });
    expect(results[0]).toMatchObject({ id: first.id, similarity: 1, contacts: a.ready.addrs });
    const joined = await client(c).communityJoin({ profile: p1 });
    expect(joined.interests).toHaveLength(1);
    expect(joined.interests[0]?.community?.id).toBe(first.id);
    const got = await client(c).communityGet({ id: first.id });
    expect(got).toMatchObject({ id: first.id, version: 1, profile: p1, contacts: a.ready.addrs });
    const info = await client(b).nodeInfo();
    expect(info.peers.profiles).toBeGreaterThanOrEqual(2);
  });

  it('delivers notifications to the contacts of similar communities, listed and streamed', async () => {
    const events = await fetch(`${a.ready.rpc}/events`, { signal: AbortSignal.timeout(30_000) });
    expect(events.headers.get('content-type')).toBe('text/event-stream');
    const reader = (events.body as ReadableStream<Uint8Array>).getReader();
    const second = await client(b).communityCreate({ profile: p2 });
    expect(second.similar.map((s) => s.id)).toContain(first.id);
    const { notifications } = await client(a).notificationsList({});
    expect(notifications).toHaveLength(1);
    expect(notifications[0]).toMatchObject({
      seq: 1,
      kind: 'created',
      community: { id: second.id, version: 1 },
      for: first.id,
    });
    // Server-sent events: blank-line separated; lines starting with ':' are keep-alive comments.
    let text = '';
    let event: string | undefined;
    while (event === undefined) {
      text += new TextDecoder().decode((await reader.read()).value);
      event = text
        .split('\n\n')
        .map((e) =>
          e
            .split('\n')
            .filter((l) => !l.startsWith(':'))
            .join('\n'),
        )
        .find((e) => e.startsWith('id: '));
    }
    await reader.cancel();
    expect(event).toMatch(/^id: 1\nevent: notification\ndata: /);
    expect(JSON.parse(event.split('data: ')[1] as string).community.id).toBe(second.id);
    expect((await client(a).notificationsList({ since: 1 })).notifications).toEqual([]);
  });

  it('stats: wire traffic of every protocol, lookups, searches, notifications; /metrics too', async () => {
    const s = await client(b).stats();
    const wire = s.wire ?? {};
    for (const proto of ['/cidx/index/1.0.0', '/cidx/profiles/kad/1.0.0', '/ipfs/id/1.0.0'])
      expect(wire[proto]?.bytes, proto).toBeGreaterThan(0);
    expect(wire['/cidx/index/1.0.0']?.messages).toBeGreaterThanOrEqual(s.messages.sent.messages);
    expect(s.searches?.count).toBe(1);
    expect(s.searches?.requests).toBeGreaterThan(0);
    expect(s.lookups?.count).toBeGreaterThan(0);
    const owner = await client(a).stats();
    expect(owner.notifications?.received).toBe(
      (await client(a).notificationsList({})).notifications.length,
    );
    // The Prometheus component still sees every stream next to the meter.
    const text = await client(a).metrics();
    expect(text).toMatch(
      /libp2p_data_transfer_bytes_total\{protocol="\/cidx\/index\/1\.0\.0 sent"\} [1-9]/,
    );
  });

  it('node.republish puts back what the node owns, now', async () => {
    const cidxMessages = async (n: NodeProcess) =>
      (await client(n).stats()).wire?.['/cidx/index/1.0.0']?.messages ?? 0;
    const sentByA = await cidxMessages(a);
    expect(await client(a).nodeRepublish()).toEqual({
      communities: 1,
      tombstones: 0,
      failedKeys: 0,
    });
    expect(await cidxMessages(a)).toBeGreaterThan(sentByA);
    expect((await client(b).nodeRepublish()).communities).toBe(1);
    // c owns nothing: its round sends nothing (what c sends otherwise answers a's and b's).
    const sentByC = await cidxMessages(c);
    expect((await client(c).nodeRepublish()).communities).toBe(0);
    expect(await cidxMessages(c)).toBe(sentByC);
  });

  it('answers not-owner, unknown-community and bad-params errors with the contract codes', async () => {
    const B = client(b);
    const fails = (p: Promise<unknown>) =>
      p.then(
        () => undefined,
        (e: unknown) => e,
      );
    const notOwner = await fails(B.communityUpdate({ id: first.id, profile: p3 }));
    expect(notOwner).toBeInstanceOf(CidxRpcError);
    expect(notOwner).toMatchObject({ code: -32001 });
    expect(await fails(client(c).communityDissolve({ id: first.id }))).toMatchObject({
      code: -32001,
    });
    expect(await fails(B.communityGet({ id: 'f'.repeat(64) }))).toMatchObject({ code: -32004 });
    expect(await fails(B.communityCreate({ profile: { weights: { x: 0 } } }))).toMatchObject({
      code: -32602,
      message: 'params.profile.weights["x"]: must be a finite number > 0',
    });
    // Wrongly typed params on purpose: the node, not the client's types, must refuse them.
    const untyped = B.call.bind(B) as (m: string, p?: unknown) => Promise<unknown>;
    expect(await fails(untyped('community.search', { profile: p1, k: 'many' }))).toMatchObject({
      code: -32602,
      message: 'params.k: must be an integer in [1, 1000]',
    });
    const extra = await fails(untyped('community.search', { profile: p1, colour: 'red' }));
    expect((extra as Error).message).toMatch(/unknown field\(s\): colour/);
    expect(await fails(B.communityGet({ id: 'nope' }))).toMatchObject({
      code: -32602,
      message: 'params.id: must be a community id (64 hex digits)',
    });
    expect(await fails(untyped('no.such.method'))).toMatchObject({ code: -32601 });
    // nothing changed: the community is still version 1 and still found first
    expect((await client(c).communityGet({ id: first.id })).version).toBe(1);
  });

  it('handles batches, parse errors, invalid requests and the body limit', async () => {
    const post = (body: string, type = 'application/json') =>
      fetch(a.ready.rpc, { method: 'POST', headers: { 'Content-Type': type }, body });
    const batch = (await (
      await post(
        JSON.stringify([
          { jsonrpc: '2.0', id: 1, method: 'node.info' },
          { jsonrpc: '2.0', id: 2, method: 'community.get', params: { id: first.id } },
          { jsonrpc: '2.0', method: 'stats' },
        ]),
      )
    ).json()) as { id: number }[];
    expect(batch.map((r) => r.id)).toEqual([1, 2]);
    const errorCode = async (body: string) =>
      ((await (await post(body)).json()) as { error: { code: number } }).error.code;
    expect(await errorCode('{"jsonrpc":')).toBe(-32700);
    expect(await errorCode('{"id":1,"method":3}')).toBe(-32600);
    expect((await post('x', 'text/plain')).status).toBe(415);
    const huge = await post(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'node.info',
        pad: 'x'.repeat(9 * 1024 * 1024),
      }),
    ).catch((e: Error) => e);
    expect(huge instanceof Error || huge.status === 413).toBe(true);
    const stats = await client(a).stats();
    expect(stats.requests.served).toBeGreaterThan(0);
    expect(stats.rpc.calls['community.create']).toBe(1);
  });

  it('stops with exit 0 on SIGTERM and comes back from its data directory with everything', async () => {
    const before = await client(a).nodeInfo();
    expect(await stop(a)).toBe(0);
    a = await spawnNode([...base, '--data', dirA, '--bootstrap', b.ready.addrs[0] as string]);
    expect(a.ready.peerId).toBe(before.peerId);
    const after = await client(a).nodeInfo();
    expect(after.stored).toEqual(before.stored);
    expect((await client(a).communityList()).communities.map((x) => x.id)).toEqual([first.id]);
    expect((await client(a).notificationsList()).notifications).toHaveLength(1);
    // still the owner: it can update, and the others see the new version
    expect((await client(a).communityUpdate({ id: first.id, profile: p3 })).version).toBe(2);
    const { results } = await client(c).communitySearch({ profile: p3 });
    expect(results[0]).toMatchObject({ id: first.id, version: 2 });
  });
});

describe('kill -9 in the middle of writes', () => {
  it('loses no acknowledged create, half-applies none, and the store opens cleanly', async () => {
    const dir = tmp('kill');
    let n = await spawnNode([...base, '--data', dir]);
    const profiles = variedProfiles(100, 20, 81);
    const acked: string[] = [];
    let killed = false;
    await Promise.allSettled(
      profiles.map(async (p) => {
        const r = await client(n).communityCreate({ profile: p });
        if (!killed) acked.push(r.id);
        if (acked.length >= 25 && !killed) {
          killed = true;
          n.proc.kill('SIGKILL');
        }
      }),
    );
    expect(await n.exited).toBe('SIGKILL');
    expect(acked.length).toBeGreaterThanOrEqual(25);
    n = await spawnNode([...base, '--data', dir]);
    const listed = (await client(n).communityList()).communities;
    const ids = new Set(listed.map((x) => x.id));
    for (const id of acked) expect(ids.has(id)).toBe(true);
    // Every community the store holds — acknowledged or caught mid-create — is whole: version 1,
    // one of the profiles sent, and (once the restart's republish ran) found by its own profile.
    const sent = new Set(profiles.map((p) => JSON.stringify(p.weights)));
    // Polled until the restart's republish has run (a bound on a hang, not a speed target).
    const end = Date.now() + WAIT_MS;
    for (const { id } of listed) {
      const got = await client(n).communityGet({ id });
      expect(got.version).toBe(1);
      expect(sent.has(JSON.stringify(got.profile.weights))).toBe(true);
      let best: { id: string; similarity: number } | undefined;
      do {
        [best] = (await client(n).communitySearch({ profile: got.profile })).results;
        if (best?.id !== id) await sleep(200);
      } while (best?.id !== id && Date.now() < end);
      expect(best).toMatchObject({ id, similarity: 1 });
    }
    // And the index holds nothing else: a lone node stores each community under its 20 keys,
    // so copies of a create that never reached the owned list would show here.
    const { stored } = await client(n).stats();
    expect(stored.descriptors).toBe(20 * listed.length);
    expect(await stop(n)).toBe(0);
  });
});

describe('configuration', () => {
  it('exits 2 with a one-line error on a bad flag or config', async () => {
    const flag = await runNodeExpectingFailure(['--lsh-n', '0']);
    expect(flag.code).toBe(2);
    expect(flag.stderr.trim().split('\n')).toHaveLength(1);
    expect(flag.stderr).toMatch(/--lsh-n <n>.*must be an integer/);
    const cfg = join(tmp('cfg'), 'bad.json');
    writeFileSync(cfg, JSON.stringify({ lsh: { n: 20, m: 'two' } }));
    const bad = await runNodeExpectingFailure(['--config', cfg]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^cidx: config: lsh\.m: /);
    writeFileSync(cfg, '{ not json');
    expect((await runNodeExpectingFailure(['--config', cfg])).stderr).toMatch(/not valid JSON/);
    const rpcAddr = await runNodeExpectingFailure(['--rpc', 'localhost']);
    expect(rpcAddr.stderr).toMatch(/--rpc <host:port>.*must be host:port/);
    expect(rpcAddr.stdout).toBe('');
  });

  it('takes settings from a config file and the environment, flags winning', async () => {
    const cfg = join(tmp('cfg'), 'swarm.json');
    writeFileSync(
      cfg,
      JSON.stringify({ index: 'attribute', replicas: 2, k: 9, rpc: '127.0.0.1:1' }),
    );
    const n = await spawnNode(['--config', cfg, '--rpc', '127.0.0.1:0', '--k', '4'], {
      CIDX_REPLICAS: '1',
    });
    const info = await client(n).nodeInfo();
    expect(info.swarm).toMatchObject({ index: { mode: 'attribute' }, replicas: 1, k: 4 });
    expect(await stop(n, 'SIGINT')).toBe(0);
  });
});
