/**
 * The browser build in a real headless Chromium (Debian's /usr/bin/chromium, driven by
 * playwright-core; no browser is ever downloaded): the example page joins a swarm of Node.js
 * nodes over WebSockets, searches, creates, and is notified through a relay.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildBrowser } from '../../src/browser/build.ts';
import { CidxNode } from '../../src/node/node.ts';
import { CHROMIUM, launchBrowser } from '../support/browser.ts';

const ROOT = join(import.meta.dirname, '..', '..');

const cleanup: (() => Promise<unknown>)[] = [];
let dir: string;
let base: string;

beforeAll(async () => {
  if (!existsSync(CHROMIUM))
    throw new Error(
      `${CHROMIUM} is missing: the browser tests need Debian's chromium (apt-get install -y chromium)`,
    );
  dir = await mkdtemp(join(tmpdir(), 'cidx-browser-'));
  cleanup.push(() => rm(dir, { recursive: true, force: true }));
  // The bundle of the source under test, as `npm run build` makes dist/browser.js.
  await buildBrowser(join(dir, 'dist', 'browser.js'));
  const server = await serve({
    '/examples/browser/index.html': join(ROOT, 'examples', 'browser', 'index.html'),
    '/examples/browser/app.js': join(ROOT, 'examples', 'browser', 'app.js'),
    '/dist/browser.js': join(dir, 'dist', 'browser.js'),
  });
  cleanup.push(() => new Promise((r) => server.close(r)));
  const addr = server.address() as { port: number };
  base = `http://127.0.0.1:${addr.port}`;
}, 120_000);

afterAll(async () => {
  for (const f of cleanup.splice(0).reverse()) await f().catch(() => {});
});

/** A static file server for a fixed set of paths, on 127.0.0.1. */
function serve(files: Record<string, string>): Promise<Server> {
  const types: Record<string, string> = { html: 'text/html', js: 'text/javascript' };
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const file = files[path];
    if (file === undefined) {
      res.writeHead(404).end();
      return;
    }
    readFile(file).then(
      (body) => {
        const ext = path.split('.').pop() ?? '';
        res.writeHead(200, { 'content-type': types[ext] ?? 'application/octet-stream' });
        res.end(body);
      },
      () => res.writeHead(500).end(),
    );
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

async function nodeJsNode(bootstrap: string[]): Promise<CidxNode> {
  const n = await CidxNode.create({
    transport: 'tcp',
    listen: ['/ip4/127.0.0.1/tcp/0', '/ip4/127.0.0.1/tcp/0/ws'],
    reachability: 'public',
    bootstrap,
    timing: { requestTimeoutMs: 5_000, lookupTimeoutMs: 10_000 },
  });
  cleanup.push(() => n.stop());
  await n.start();
  return n;
}

async function status(page: Page): Promise<string> {
  return (await page.textContent('#status')) ?? '';
}

describe('a cidx node in a web page', () => {
  it('joins over WebSockets, finds, creates, and is notified through a relay', async () => {
    const n0 = await nodeJsNode([]);
    const n1 = await nodeJsNode(n0.addrs);
    const n2 = await nodeJsNode(n0.addrs);
    const theirs = { weights: { canto: 1.4, Verdi: 0.9, Rigoletto: 0.62, chitarra: 0.8 } };
    const x = await n1.create(theirs);
    expect(n2.info().peers.profiles).toBeGreaterThan(0);

    const browser = await launchBrowser();
    cleanup.push(() => browser.close());
    const page = await browser.context.newPage();
    const logs: string[] = [];
    page.on('console', (m) => logs.push(`${m.type()}: ${m.text()}`));
    page.on('pageerror', (e) => logs.push(`pageerror: ${e.message}`));
    const ws = n0.addrs.find((a) => a.includes('/ws/')) as string;
    await page.goto(`${base}/examples/browser/index.html?peer=${encodeURIComponent(ws)}`);
    try {
      await page.waitForFunction(
        `!document.querySelector('#create').disabled || document.querySelector('#status').className === 'error'`,
        null,
        { timeout: 60_000 },
      );
    } catch (err) {
      throw new Error(`the page did not start (${await status(page)}): ${logs.join(' | ')}`, {
        cause: err,
      });
    }
    if (!/^node /.test(await status(page)))
      throw new Error(`the page did not start (${await status(page)}): ${logs.join(' | ')}`);
    expect(await status(page)).toMatch(/^node 12D3Koo\w+ joined through /);
    const browserPeer = (await page.evaluate('window.cidxNode.peerId.toString()')) as string;
    // Both relay slots held (two of the three nodes): the page no longer looks for relays.
    await page.waitForFunction(
      `new Set(window.cidxNode.addrs.map((a) => a.split('/p2p-circuit')[0].split('/p2p/')[1])).size >= 2`,
      null,
      { timeout: 60_000 },
    );
    // The page cannot be dialled: its only addresses are through relays.
    const addrs = (await page.evaluate('window.cidxNode.addrs')) as string[];
    expect(addrs.length).toBeGreaterThan(0);
    for (const a of addrs)
      expect(a).toMatch(new RegExp(`/p2p/\\w+/p2p-circuit/p2p/${browserPeer}$`));
    expect(await page.evaluate('window.cidxNode.libp2p.services.reachability.dhtMode')).toBe(
      'client',
    );

    // Search: the community a Node.js node created.
    await page.fill('#profile', JSON.stringify({ weights: { Verdi: 0.81, Rigoletto: 0.7 } }));
    await page.click('#search');
    await waitForStatus(page, /result\(s\)$/);
    const results = await page.$$eval('#results li', (lis) => lis.map((l) => l.textContent));
    expect(results[0]).toContain(x.id);

    // Create: its contacts are the page's relay addresses.
    await page.fill('#profile', JSON.stringify({ weights: { Verdi: 1, Rigoletto: 1, opera: 1 } }));
    await page.click('#create');
    await waitForStatus(page, /^created /);
    const id = (await status(page)).split(' ')[1]?.replace(/;$/, '') as string;
    const stored = await n2.get(id);
    expect(stored.contacts.sort()).toEqual([...addrs].sort());

    // A Node.js node that never met the page creates a similar community: the page is notified,
    // over a connection through a relay.
    const d = await nodeJsNode(n0.addrs);
    const toPage = () => d.libp2p.getConnections().filter((c) => `${c.remotePeer}` === browserPeer);
    expect(toPage()).toHaveLength(0);
    const opened: { addr: string; direction: string }[] = [];
    d.libp2p.addEventListener('connection:open', (e) => {
      if (`${e.detail.remotePeer}` === browserPeer)
        opened.push({ addr: e.detail.remoteAddr.toString(), direction: e.detail.direction });
    });
    const similar = await d.create({ weights: { Verdi: 1, Rigoletto: 1, opera: 1, Aida: 0.5 } });
    expect(similar.similar.map((s) => s.id)).toContain(id);
    await page.waitForFunction(
      `[...document.querySelectorAll('#notifications li')].some((l) => l.textContent.includes(${JSON.stringify(similar.id)}))`,
      null,
      { timeout: 60_000 },
    );
    // d reached the page by dialling one of its relay addresses; a direct connection between
    // them is one the page opened (it dials out over WebSockets, e.g. to check d's parameters).
    expect(opened[0]?.direction).toBe('outbound');
    expect(addrs).toContain(opened[0]?.addr);
    for (const o of opened.slice(1))
      if (!o.addr.includes('/p2p-circuit')) expect(o.direction).toBe('inbound');
  }, 180_000);
});

/** Waits until the page's status line matches, or reports an error (then fails with it). */
async function waitForStatus(page: Page, re: RegExp): Promise<void> {
  await page.waitForFunction(
    `(() => { const s = document.querySelector('#status'); return ${re}.test(s.textContent) || s.className === 'error'; })()`,
    null,
    { timeout: 60_000 },
  );
  const now = await status(page);
  if (!re.test(now)) throw new Error(`the page reported: ${now}`);
}
