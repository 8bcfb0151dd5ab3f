/**
 * The RPC port of real `cidx node` processes: the token rule for non-loopback addresses,
 * /healthz while the node is still joining, /metrics switched off, and `cidx call`.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { generateKeyPair } from '@libp2p/crypto/keys';
import { peerIdFromPrivateKey } from '@libp2p/peer-id';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CidxClient } from '../../src/client/index.ts';
import { METHOD_NAMES } from '../../src/rpc/api.ts';
import { raw } from '../support/http.ts';
import {
  client,
  freePort,
  launchNode,
  type NodeProcess,
  runNodeExpectingFailure,
  spawnNode,
  stop,
} from '../support/process.ts';
import { variedProfiles, waitFor } from '../support/swarm.ts';

const CLI = join(import.meta.dirname, '..', '..', 'src', 'cli.ts');
const TOKEN = 'process-test-token-0123456789';
const base = ['--listen', '/ip4/127.0.0.1/tcp/0'];
const dir = mkdtempSync(join(tmpdir(), 'cidx-rpc-port-'));
const running: NodeProcess[] = [];

afterAll(async () => {
  await Promise.allSettled(running.map((p) => stop(p)));
  rmSync(dir, { recursive: true, force: true });
});

function cidxCall(args: string[], input?: string) {
  const r = spawnSync(process.execPath, [CLI, 'call', ...args], {
    encoding: 'utf8',
    timeout: 60_000,
    env: { ...process.env, CIDX_RPC_TOKEN: '' },
    input,
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

describe('the token rule', () => {
  it('refuses to start on a non-loopback RPC address without a token (exit 2, one line)', async () => {
    const r = await runNodeExpectingFailure([...base, '--rpc', '0.0.0.0:0']);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/0\.0\.0\.0:0 is not a loopback address: set --rpc-token/);
    expect(r.stdout).toBe('');
    const short = await runNodeExpectingFailure([...base, '--rpc-token', 'tooshort']);
    expect(short.code).toBe(2);
    expect(short.stderr).toMatch(
      /--rpc-token <token>.* must be at least 16 printable ASCII characters/,
    );
  });

  it('serves every address with the token (from the environment) and refuses without it', async () => {
    const n = await spawnNode([...base, '--rpc', '0.0.0.0:0'], { CIDX_RPC_TOKEN: TOKEN });
    running.push(n);
    const url = n.ready.rpc.replace('0.0.0.0', '127.0.0.1');
    expect((await raw(`${url}/metrics`)).status).toBe(401);
    expect(
      await client(url)
        .nodeInfo()
        .catch((e) => e.status),
    ).toBe(401);
    const info = await client(url, TOKEN).nodeInfo();
    expect(info.peerId).toBe(n.ready.peerId);
    expect(await client(url, TOKEN).metrics()).toMatch(/^cidx_index_entries 0$/m);
    // cidx call: the token from --token; without one the node's 401 is an error (exit 1).
    const ok = cidxCall(['node.info', '--rpc', url, '--token', TOKEN]);
    expect(ok.code).toBe(0);
    expect(JSON.parse(ok.out).peerId).toBe(n.ready.peerId);
    const refused = cidxCall(['node.info', '--rpc', url]);
    expect(refused.code).toBe(1);
    expect(refused.err).toMatch(
      /^cidx: node\.info: HTTP 401: Authorization: Bearer <token> required\n$/,
    );
  });
});

describe('/healthz', () => {
  it('says 503 while the node is joining its swarm, 200 once it serves', async () => {
    // A bootstrap peer that accepts TCP connections and never speaks: the join waits on it.
    const held: Socket[] = [];
    const silent = createServer((s) => held.push(s));
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    const peer = peerIdFromPrivateKey(await generateKeyPair('Ed25519'));
    const boot = `/ip4/127.0.0.1/tcp/${(silent.address() as { port: number }).port}/p2p/${peer}`;
    const port = await freePort();
    const n = launchNode([...base, '--rpc', `127.0.0.1:${port}`, '--bootstrap', boot]);
    try {
      const url = `http://127.0.0.1:${port}`;
      let answer: Awaited<ReturnType<typeof raw>> | undefined;
      while (answer === undefined) {
        answer = await raw(`${url}/healthz`).catch(() => undefined); // not listening yet
        if (answer === undefined) await sleep(50);
      }
      expect(answer.status).toBe(503);
      expect(JSON.parse(answer.body)).toEqual({ status: 'starting' });
      expect(held.length).toBeGreaterThan(0); // still dialling the silent peer
      for (const s of held) s.destroy();
      const ready = await n.ready;
      const ok = await raw(`${ready.rpc}/healthz`);
      expect([ok.status, JSON.parse(ok.body)]).toEqual([
        200,
        { status: 'serving', peerId: ready.peerId },
      ]);
    } finally {
      n.proc.kill('SIGTERM');
      await n.exited;
      silent.close();
    }
  });
});

describe('the client’s notification stream', () => {
  it('outlives a restart of the node: it retries, reconnects and resumes with Last-Event-ID', async () => {
    const data = join(dir, 'restart-a');
    const rpcPort = await freePort();
    const p2pPort = await freePort();
    const aArgs = ['--listen', `/ip4/127.0.0.1/tcp/${p2pPort}`, '--rpc', `127.0.0.1:${rpcPort}`];
    let a = await spawnNode([...aArgs, '--data', data]);
    running.push(a);
    const b = await spawnNode([
      ...base,
      '--rpc',
      '127.0.0.1:0',
      '--bootstrap',
      a.ready.addrs[0] as string,
    ]);
    running.push(b);
    const [p1, p2, p3] = variedProfiles(3, 16, 33, 1);
    await client(a).communityCreate({ profile: p1 });
    const reconnects: string[] = [];
    const stream = client(a).notifications({
      since: 0,
      retryMs: 100,
      maxRetryMs: 400,
      onReconnect: (e) => reconnects.push(e.message),
    });
    const first = stream.next();
    const second = await client(b).communityCreate({ profile: p2 });
    expect((await first).value).toMatchObject({ seq: 1, community: { id: second.id } });

    expect(await stop(a)).toBe(0);
    const pending = stream.next();
    // The client notices the lost stream, then finds the port closed: wait for both.
    await waitFor(() => reconnects.length >= 2, 30_000, 'two reconnect attempts');
    expect(reconnects[0]).toMatch(/closed the stream|terminated|ECONNRESET/);
    expect(reconnects[1]).toMatch(/ECONNREFUSED/);
    a = await spawnNode([...aArgs, '--data', data, '--bootstrap', b.ready.addrs[0] as string]);
    running.push(a);
    const third = await client(b).communityCreate({ profile: p3 });
    expect((await pending).value).toMatchObject({ seq: 2, community: { id: third.id } });
    await stream.return();
  });
});

describe('--no-metrics', () => {
  it('serves no /metrics', async () => {
    const n = await spawnNode([...base, '--rpc', '127.0.0.1:0', '--no-metrics']);
    running.push(n);
    const r = await raw(`${n.ready.rpc}/metrics`);
    expect([r.status, JSON.parse(r.body).error]).toEqual([404, 'metrics are off']);
  });
});

describe('cidx call', () => {
  let n: NodeProcess;
  beforeAll(async () => {
    n = await spawnNode([...base, '--rpc', '127.0.0.1:0']);
    running.push(n);
  }, 60_000);

  it('prints the result as JSON, params inline, from a file or from stdin', async () => {
    const profile = { weights: { Verdi: 1.2, Rigoletto: 0.8, opera: 1 } }; // mean 1: similarity 1 with itself
    const created = cidxCall([
      'community.create',
      JSON.stringify({ profile }),
      '--rpc',
      n.ready.rpc.slice('http://'.length),
    ]);
    expect(created.err).toBe('');
    expect(created.code).toBe(0);
    const { id } = JSON.parse(created.out);
    const file = join(dir, 'get.json');
    writeFileSync(file, JSON.stringify({ id }));
    const got = cidxCall(['community.get', `@${file}`, '--rpc', n.ready.rpc]);
    expect(JSON.parse(got.out)).toMatchObject({ id, version: 1, profile });
    const searched = cidxCall(
      ['community.search', '@-', '--rpc', n.ready.rpc],
      JSON.stringify({ profile, k: 1 }),
    );
    expect(JSON.parse(searched.out).results[0]).toMatchObject({ id, similarity: 1 });
    expect((await new CidxClient(n.ready.rpc).stats()).rpc.calls['community.get']).toBe(1);
  });

  it('exits 1 on an RPC error, with its message and code on stderr', () => {
    const r = cidxCall([
      'community.get',
      JSON.stringify({ id: 'f'.repeat(64) }),
      '--rpc',
      n.ready.rpc,
    ]);
    expect(r.code).toBe(1);
    expect(r.out).toBe('');
    expect(r.err).toMatch(/^cidx: community\.get: .* \(code -32004\)\n$/);
    const bad = cidxCall(['community.search', '{"profile":{"weights":{}}}', '--rpc', n.ready.rpc]);
    expect(bad.code).toBe(1);
    expect(bad.err).toMatch(/\(code -32602\)/);
  });

  it('exits 2 on bad usage: unknown method, params not JSON, no method, a bad URL', () => {
    const unknown = cidxCall(['community.explode', '--rpc', n.ready.rpc]);
    expect([unknown.code, unknown.err]).toEqual([
      2,
      'cidx: call: unknown method community.explode (see cidx call --list)\n',
    ]);
    expect(cidxCall(['node.info', '{oops', '--rpc', n.ready.rpc]).code).toBe(2);
    expect(cidxCall([]).code).toBe(2);
    expect(cidxCall(['node.info', '--rpc', 'ftp://x']).code).toBe(2);
  });

  it('lists every method with its params, from the schemas', () => {
    const r = cidxCall(['--list']);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^community\.search {2}— .*\n {4}profile +json +profile JSON/m);
    expect(r.out).toMatch(/^ {4}k\? +integer 1\.\.1000 +results wanted/m);
    const listed = [...r.out.matchAll(/^(\S+) {2}— /gm)].map((m) => m[1]);
    expect(listed).toEqual(METHOD_NAMES);
  });
});
