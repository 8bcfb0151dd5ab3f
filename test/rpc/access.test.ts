/**
 * Who may use the RPC port, over real HTTP to a real node: Host names (DNS rebinding), Origin
 * (cross-site pages), the bearer token, the console's Content-Security-Policy and /healthz.
 */
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CidxNode } from '../../src/node/node.ts';
import { CONSOLE_CSP } from '../../src/rpc/console-assets.ts';
import { type RpcHandle, startRpc } from '../../src/rpc/http.ts';
import { NodeMetrics } from '../../src/rpc/metrics.ts';
import { buildConsole, raw, rpcBody } from '../support/http.ts';

const TOKEN = 'access-test-token-0123456789';
const JSON_TYPE = { 'Content-Type': 'application/json' };

/** The four kinds of request the checks must cover, as [name, path, method, body]. */
const TARGETS = [
  ['JSON-RPC', '/', 'POST', rpcBody('node.info')],
  ['event stream', '/events', 'GET', undefined],
  ['metrics', '/metrics', 'GET', undefined],
  ['console', '/', 'GET', undefined],
] as const;

let node: CidxNode;
let consoleDir: string;
const handles: RpcHandle[] = [];

async function serve(o: Partial<Parameters<typeof startRpc>[1]> = {}): Promise<RpcHandle> {
  const h = await startRpc(node, {
    host: '127.0.0.1',
    port: 0,
    consoleDir,
    metrics: new NodeMetrics(),
    ...o,
  });
  handles.push(h);
  return h;
}

const send = (
  url: string,
  path: string,
  method: string,
  body: string | undefined,
  headers: Record<string, string> = {},
) =>
  raw(`${url}${path}`, {
    method,
    headers: { ...(method === 'POST' ? JSON_TYPE : {}), ...headers },
    body,
  });

beforeAll(async () => {
  consoleDir = buildConsole();
  node = await CidxNode.create({
    transport: 'memory',
    listen: [`/memory/access-${process.pid}`],
    encryption: 'plaintext',
  });
  await node.start();
}, 60_000);

afterAll(async () => {
  await Promise.allSettled(handles.map((h) => h.close(100)));
  await node?.stop();
  if (consoleDir) rmSync(consoleDir, { recursive: true, force: true });
});

describe('Host header', () => {
  it.each(TARGETS)('refuses a foreign Host for the %s (DNS rebinding)', async (_, path, m, b) => {
    const { url } = await serve();
    const port = new URL(url).port;
    for (const host of ['evil.example', `evil.example:${port}`, `127.0.0.2:${port}`]) {
      const r = await send(url, path, m, b, { Host: host });
      expect(r.status, host).toBe(403);
      expect(JSON.parse(r.body).error).toMatch(/^Host .* refused$/);
    }
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, 'LOCALHOST']) {
      const r = await send(url, path, m, b, { Host: host });
      expect(r.status, host).toBe(200);
    }
  });

  it('accepts the names the operator adds, and any with *', async () => {
    const named = await serve({ vhosts: ['node1.lan', 'node3.lan:8080', '::1'] });
    expect(
      (await send(named.url, '/healthz', 'GET', undefined, { Host: 'node1.lan' })).status,
    ).toBe(200);
    expect(
      (await send(named.url, '/healthz', 'GET', undefined, { Host: 'node2.lan' })).status,
    ).toBe(403);
    for (const host of ['NODE3.lan:7070', '[::1]:7070'])
      expect((await send(named.url, '/healthz', 'GET', undefined, { Host: host })).status).toBe(
        200,
      );
    const any = await serve({ vhosts: ['*'] });
    expect((await send(any.url, '/healthz', 'GET', undefined, { Host: 'whatever' })).status).toBe(
      200,
    );
  });
});

describe('Origin header', () => {
  it.each(TARGETS)('refuses a cross-origin %s', async (_, path, m, b) => {
    const { url } = await serve();
    for (const origin of ['http://evil.example', 'null', `http://localhost:1`, 'file://']) {
      const r = await send(url, path, m, b, { Origin: origin });
      expect(r.status, origin).toBe(403);
    }
    // The console's own origin: the page the node served calls back to where it came from.
    expect((await send(url, path, m, b, { Origin: url })).status).toBe(200);
  });

  it('refuses an origin that differs from the Host it was sent to, even both local', async () => {
    const { url } = await serve();
    const port = new URL(url).port;
    const r = await send(url, '/', 'POST', rpcBody('node.info'), {
      Host: `localhost:${port}`,
      Origin: url, // http://127.0.0.1:port
    });
    expect(r.status).toBe(403);
  });
});

describe('token', () => {
  it.each(TARGETS.filter(([name]) => name !== 'console'))(
    'requires Authorization: Bearer <token> for the %s',
    async (_, path, m, b) => {
      const { url } = await serve({ token: TOKEN });
      for (const auth of [undefined, `Bearer ${TOKEN}x`, `Bearer ${TOKEN.slice(1)}`, TOKEN]) {
        const r = await send(url, path, m, b, auth === undefined ? {} : { Authorization: auth });
        expect(r.status, String(auth)).toBe(401);
        expect(r.headers['www-authenticate']).toBe('Bearer realm="cidx"');
      }
      const ok = await send(url, path, m, b, { Authorization: `Bearer ${TOKEN}` });
      expect(ok.status).toBe(200);
    },
  );

  it('leaves the console page and /healthz open: they carry no data', async () => {
    const { url } = await serve({ token: TOKEN });
    expect((await raw(`${url}/`)).status).toBe(200);
    expect((await raw(`${url}/console.js`)).status).toBe(200);
    expect((await raw(`${url}/healthz`)).status).toBe(200);
  });

  it('is required on a non-loopback address, and must be long enough', async () => {
    await expect(startRpc(node, { host: '0.0.0.0', port: 0 })).rejects.toThrow(/needs a token/);
    await expect(startRpc(node, { host: '127.0.0.1', port: 0, token: 'short' })).rejects.toThrow(
      /at least 16 characters/,
    );
    const all = await serve({ host: '0.0.0.0', token: TOKEN });
    const port = new URL(all.url).port;
    const r = await send(`http://127.0.0.1:${port}`, '/', 'POST', rpcBody('node.info'), {
      Authorization: `Bearer ${TOKEN}`,
    });
    expect(r.status).toBe(200); // 127.0.0.1 is one of the addresses it listens on
  });
});

describe('the console page', () => {
  it('is sent with a strict Content-Security-Policy and no inline code', async () => {
    const { url } = await serve();
    const page = await raw(`${url}/`);
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.headers['content-security-policy']).toBe(CONSOLE_CSP);
    expect(CONSOLE_CSP).toContain("script-src 'self'");
    expect(CONSOLE_CSP).toContain("connect-src 'self'");
    expect(CONSOLE_CSP).toContain("frame-ancestors 'none'");
    expect(CONSOLE_CSP).not.toContain('unsafe');
    expect(page.headers['x-frame-options']).toBe('DENY');
    expect(page.body).not.toMatch(/<script>|<script [^>]*>[^<]|\sstyle=|\son[a-z]+=/i);
    const js = await raw(`${url}/console.js`);
    expect(js.headers['content-type']).toBe('text/javascript; charset=utf-8');
    // No CDN, no external request: the bundle names no other origin.
    expect(js.body).not.toMatch(/https?:\/\/(?!www\.w3\.org)[a-z0-9.-]+\.[a-z]{2,}/i);
  });
});

describe('/healthz', () => {
  it('says 503 while starting and stopping, 200 while serving', async () => {
    const h = await serve({ starting: true });
    const health = async () => {
      const r = await raw(`${h.url}/healthz`);
      return [r.status, JSON.parse(r.body).status];
    };
    expect(await health()).toEqual([503, 'starting']);
    expect((await send(h.url, '/', 'POST', rpcBody('node.info'))).status).toBe(503);
    h.serving();
    expect(await health()).toEqual([200, 'serving']);
    expect(JSON.parse((await raw(`${h.url}/healthz`)).body).peerId).toBe(node.peerId.toString());
    h.stopping();
    expect(await health()).toEqual([503, 'stopping']);
    expect((await send(h.url, '/', 'POST', rpcBody('node.info'))).status).toBe(503);
  });
});
