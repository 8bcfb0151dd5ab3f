/**
 * The typed client against a real node's RPC port (two nodes, memory transport, real HTTP):
 * results, errors with their codes, the token, timeouts and size limits, and the notification
 * stream resuming with Last-Event-ID after the server drops it.
 */
import { createServer, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CidxClient, CidxHttpError, CidxRpcError } from '../../src/client/index.ts';
import type { CidxNode } from '../../src/node/node.ts';
import type { NotificationJSON } from '../../src/rpc/api.ts';
import { type RpcHandle, startRpc } from '../../src/rpc/http.ts';
import { startSwarm, stopAll, variedProfiles, waitFor } from '../support/swarm.ts';

const TOKEN = 'client-test-token-0123456789';
let nodes: CidxNode[];
let rpc: RpcHandle;
let locked: RpcHandle;
let silent: Server;
let silentUrl: string;
const [p1, p2, p3] = variedProfiles(3, 16, 21, 1);

beforeAll(async () => {
  nodes = await startSwarm(2);
  rpc = await startRpc(nodes[0] as CidxNode, { host: '127.0.0.1', port: 0 });
  locked = await startRpc(nodes[0] as CidxNode, { host: '127.0.0.1', port: 0, token: TOKEN });
  // A peer that accepts connections and never answers.
  silent = createServer(() => {});
  await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
  silentUrl = `http://127.0.0.1:${(silent.address() as { port: number }).port}`;
}, 60_000);

afterAll(async () => {
  await Promise.allSettled([rpc?.close(100), locked?.close(100)]);
  silent?.close();
  await stopAll(nodes ?? []);
});

const failure = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (e: unknown) => e,
  );

describe('CidxClient', () => {
  it('calls every kind of method and returns typed results', async () => {
    const a = new CidxClient(rpc.url);
    const info = await a.nodeInfo();
    expect(info.peerId).toBe(nodes[0]?.peerId.toString());
    // In-process nodes are declared public: they serve both DHTs.
    expect(info).toMatchObject({ reachability: 'public', dhtMode: 'server' });
    const peers = await a.nodePeers();
    expect(peers.routing.profiles).toEqual([nodes[1]?.peerId.toString()]);
    expect(peers.routing.addresses).toEqual([nodes[1]?.peerId.toString()]);
    expect(peers.connections.map((c) => c.peer)).toContain(nodes[1]?.peerId.toString());
    expect(peers.connections.every((c) => !c.limited)).toBe(true);
    const created = await a.communityCreate({ profile: p1 });
    expect(created.id).toMatch(/^[0-9a-f]{64}$/);
    expect((await a.communityGet({ id: created.id })).profile).toEqual(p1);
    expect((await a.communityList()).communities.map((c) => c.id)).toEqual([created.id]);
    const { results } = await a.communitySearch({ profile: p1, k: 1 });
    expect(results[0]).toMatchObject({ id: created.id, similarity: 1 });
    expect((await a.call('stats')).rpc.calls['community.create']).toBe(1);
    // host:port works as well as a URL
    expect((await new CidxClient(rpc.url.slice(7)).nodeInfo()).peerId).toBe(info.peerId);
  });

  it('rejects with CidxRpcError carrying the JSON-RPC code', async () => {
    const a = new CidxClient(rpc.url);
    const e = await failure(a.communityGet({ id: 'a'.repeat(64) }));
    expect(e).toBeInstanceOf(CidxRpcError);
    expect(e).toMatchObject({ code: -32004 });
    const bad = await failure(a.communitySearch({ profile: { weights: { x: -1 } }, k: 2 }));
    expect(bad).toMatchObject({
      code: -32602,
      message: 'params.profile.weights["x"]: must be a finite number > 0',
      data: { field: 'params.profile.weights["x"]' },
    });
  });

  it('sends the token, and says 401 when it is missing or wrong', async () => {
    const without = await failure(new CidxClient(locked.url).nodeInfo());
    expect(without).toBeInstanceOf(CidxHttpError);
    expect(without).toMatchObject({ status: 401 });
    const wrong = await failure(new CidxClient(locked.url, { token: `${TOKEN}!` }).nodeInfo());
    expect(wrong).toMatchObject({ status: 401 });
    const right = new CidxClient(locked.url, { token: TOKEN });
    expect((await right.nodeInfo()).peerId).toBe(nodes[0]?.peerId.toString());
    const stream = await failure(new CidxClient(locked.url).notifications().next());
    expect(stream).toMatchObject({ status: 401 });
  });

  it('gives up on a node that does not answer, and on an answer over the size limit', async () => {
    const slow = await failure(new CidxClient(silentUrl, { timeoutMs: 300 }).nodeInfo());
    expect(slow).toBeInstanceOf(CidxHttpError);
    expect((slow as Error).message).toMatch(/no answer within 300 ms/);
    const small = new CidxClient(rpc.url, { maxResponseBytes: 100 });
    expect(((await failure(small.nodeInfo())) as Error).message).toMatch(
      /at most 100|larger than 100/,
    );
    const unreachable = await failure(new CidxClient('http://127.0.0.1:9').nodeInfo());
    expect(unreachable).toBeInstanceOf(CidxHttpError);
  });

  it('refuses a URL that is not http(s)', () => {
    expect(() => new CidxClient('ftp://x')).toThrow(/not an http/);
  });
});

describe('CidxClient.notifications', () => {
  it('yields notifications live, resumes after the node drops the stream, never twice', async () => {
    const [a, b] = nodes as [CidxNode, CidxNode];
    const reconnects: string[] = [];
    const stream = new CidxClient(rpc.url).notifications({
      since: a.notifications().length,
      retryMs: 50,
      onReconnect: (err) => reconnects.push(err.message),
    });
    const got: NotificationJSON[] = [];
    const next = async () => {
      const r = await stream.next();
      if (r.done) throw new Error('stream ended');
      got.push(r.value);
      return r.value;
    };
    const first = next();
    const second = await b.create(p2);
    expect((await first).community.id).toBe(second.id);

    // The server side ends every open connection, and a notification arrives while the client
    // is cut off: it reconnects with Last-Event-ID and gets it replayed.
    rpc.server.closeAllConnections();
    const third = await b.create(p3);
    await waitFor(() => a.notifications().some((n) => n.record.id === third.id), 15_000);
    expect(reconnects).toEqual([]);
    expect((await next()).community.id).toBe(third.id);
    expect(reconnects.length).toBeGreaterThanOrEqual(1);
    expect(got.map((n) => n.seq)).toEqual([got[0]?.seq, (got[0]?.seq as number) + 1]);
    await stream.return();
  });

  it('replays what the node kept after `since`', async () => {
    const a = nodes[0] as CidxNode;
    const kept = a.notifications();
    expect(kept.length).toBeGreaterThanOrEqual(2);
    const stream = new CidxClient(rpc.url).notifications({ since: kept[0]?.seq as number });
    const r = await stream.next();
    expect(r.value?.seq).toBe(kept[1]?.seq);
    await stream.return();
  });

  it('ends when its signal aborts', async () => {
    const stop = new AbortController();
    const stream = new CidxClient(rpc.url).notifications({ since: 1_000_000, signal: stop.signal });
    const pending = stream.next();
    stop.abort();
    expect(await pending).toEqual({ done: true, value: undefined });
  });
});
