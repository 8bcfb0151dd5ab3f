/**
 * What the NAT test bed's tests and its bench drive besides the node processes: a dialling
 * node in this process (on the test network through the control leg), a web page running the
 * browser build in Debian's Chromium, and a wait on asynchronous conditions.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { CidxNode } from '../../src/node/node.ts';
import { type Browser, launchBrowser } from './browser.ts';

/** Polls `cond` until it holds; fails naming `what` after `timeoutMs`. */
export async function until<T>(
  cond: () => Promise<T | undefined | false>,
  timeoutMs: number,
  what: string,
): Promise<T> {
  const end = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await cond();
      if (v !== undefined && v !== false) return v;
    } catch (err) {
      last = err;
    }
    if (Date.now() > end)
      throw new Error(
        `timed out waiting for ${what}${last ? ` (${(last as Error).message})` : ''}`,
      );
    await new Promise((r) => setTimeout(r, 200));
  }
}

/**
 * A node in this process that only dials: no listen address, no relay slot, no bootstrap
 * peer — it reaches a peer at the address it is given and nowhere else.
 */
export async function dialOnlyNode(swarmKey: Uint8Array): Promise<CidxNode> {
  const node = await CidxNode.create({
    transport: 'tcp',
    listen: [],
    reachability: 'private',
    relay: { reservations: 0 },
    swarmKey,
    timing: { requestTimeoutMs: 10_000 },
  });
  await node.start();
  return node;
}

const ROOT = join(import.meta.dirname, '..', '..');
const PAGE = `<!doctype html><meta charset="utf-8"><title>cidx</title>
<script type="module">import * as cidx from '/dist/browser.js'; window.cidx = cidx;</script>`;

/** A page on 127.0.0.1 that loads the browser build (dist/browser.js) as `window.cidx`. */
export interface BrowserPage {
  page: Page;
  close(): Promise<void>;
}

export async function browserPage(): Promise<BrowserPage> {
  const bundle = join(ROOT, 'dist', 'browser.js');
  if (!existsSync(bundle)) throw new Error(`${bundle} is missing: run npm run build first`);
  const server: Server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    if (path === '/') res.writeHead(200, { 'content-type': 'text/html' }).end(PAGE);
    else if (path === '/dist/browser.js')
      readFile(bundle).then(
        (b) => res.writeHead(200, { 'content-type': 'text/javascript' }).end(b),
        () => res.writeHead(500).end(),
      );
    else res.writeHead(404).end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  let browser: Browser | undefined;
  const close = async () => {
    await browser?.close();
    await new Promise((r) => server.close(r));
  };
  try {
    browser = await launchBrowser();
    const page = await browser.context.newPage();
    const { port } = server.address() as { port: number };
    await page.goto(`http://127.0.0.1:${port}/`);
    await page.waitForFunction('window.cidx !== undefined', null, { timeout: 30_000 });
    return { page, close };
  } catch (err) {
    await close();
    throw err;
  }
}
