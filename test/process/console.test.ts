/**
 * The web console in a real browser (Debian's headless Chromium) against two real `cidx node`
 * processes over TCP on 127.0.0.1: a community created in A's console is found first from B's,
 * and a similar one created in B's shows up in A's notifications without a reload.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Browser,
  createCommunity,
  dissolveCommunity,
  launchBrowser,
  notificationAbout,
  search,
  updateCommunity,
} from '../support/browser.ts';
import { client, type NodeProcess, spawnNode, stop } from '../support/process.ts';

const base = ['--rpc', '127.0.0.1:0', '--listen', '/ip4/127.0.0.1/tcp/0'];
const OPERA =
  'Verdi wrote Rigoletto and La traviata. The opera singers rehearse the aria with the orchestra.';
/** Stems, as the profile builder writes them: it shares verdi, rigoletto, opera and aria. */
const MORE_OPERA_JSON = { weights: { verdi: 2, rigoletto: 2, opera: 2, aria: 2, chorus: 1 } };

describe('the web console, in Chromium, on two node processes', () => {
  let a: NodeProcess;
  let b: NodeProcess;
  let browser: Browser;

  beforeAll(async () => {
    const built = join(import.meta.dirname, '..', '..', 'dist', 'console', 'console.js');
    if (!existsSync(built)) throw new Error(`${built} is missing: run npm run build first`);
    browser = await launchBrowser();
    a = await spawnNode(base);
    b = await spawnNode([...base, '--bootstrap', a.ready.addrs[0] as string]);
  }, 90_000);

  afterAll(async () => {
    await browser?.close();
    await Promise.allSettled([a, b].map((p) => p && stop(p)));
  });

  it('creates in A, finds it first from B, and shows B’s similar one live in A', async () => {
    const pageA = await browser.page(a.ready.rpc);
    const pageB = await browser.page(b.ready.rpc);
    await expect(pageA.locator('#peer-id').textContent()).resolves.toBe(a.ready.peerId);

    // A: a community from text, through the project's profile builder in the page.
    const mine = await createCommunity(pageA, OPERA);
    expect((await client(a).communityList()).communities.map((c) => c.id)).toEqual([mine]);

    // B: the same text finds it first, identical: metric 4.1 of a profile with itself is its
    // mean weight, 2 for terms of one document's body.
    const results = await search(pageB, OPERA);
    expect(results[0]).toEqual({ id: mine, similarity: 'similarity 2.000' });

    // B: a similar community, as JSON; A's open page hears of it over the event stream.
    const theirs = await createCommunity(pageB, MORE_OPERA_JSON);
    const note = await notificationAbout(pageA, theirs);
    await expect(note.textContent()).resolves.toMatch(/^New community .* is similar to yours/);
    expect(await note.locator('code').nth(1).getAttribute('data-id')).toBe(mine);
    expect(browser.problems).toEqual([]);
  });

  it('updates and dissolves a community of this node', async () => {
    const page = await browser.page(a.ready.rpc);
    const [mine] = (await client(a).communityList()).communities.map((c) => c.id);
    const status = await updateCommunity(page, mine as string, {
      weights: { Verdi: 1.2, opera: 0.8, chorus: 1 },
    });
    expect(status).toMatch(/^updated .* to version 2$/);
    expect((await client(a).communityGet({ id: mine as string })).version).toBe(2);
    await expect(page.locator(`li.owned[data-id="${mine}"] .version`).textContent()).resolves.toBe(
      'version 2',
    );
    await dissolveCommunity(page, mine as string);
    expect((await client(a).communityList()).communities).toEqual([]);
    expect(browser.problems).toEqual([]);
  });

  it('reports a bad profile next to the form, naming the field', async () => {
    const page = await browser.page(b.ready.rpc);
    const box = page.getByRole('region', { name: 'Search communities' });
    await box.getByRole('radio', { name: 'JSON' }).check();
    await box.getByLabel('Profile JSON').fill('{"weights":{"x":-1}}');
    await box.getByRole('button', { name: 'Search' }).click();
    const status = box.getByRole('status');
    await status.filter({ hasText: 'code' }).waitFor();
    await expect(status.textContent()).resolves.toBe(
      'params.profile.weights["x"]: must be a finite number > 0 (code -32602)',
    );
  });

  it('asks for the token of a node that has one, then works with it', async () => {
    const token = 'console-test-token-0123456789';
    const c = await spawnNode([...base, '--rpc-token', token]);
    try {
      const page = await browser.context.newPage();
      await page.goto(c.ready.rpc);
      const conn = page.getByRole('status').first();
      await conn.filter({ hasText: 'needs its RPC token' }).waitFor();
      await page.getByLabel('RPC token').fill(token);
      await page.getByLabel('RPC token').press('Enter');
      await conn.filter({ hasText: 'connected to' }).waitFor();
      await expect(page.locator('#peer-id').textContent()).resolves.toBe(c.ready.peerId);
      await page.locator('#notes-status').filter({ hasText: 'live' }).waitFor();
      const id = await createCommunity(page, { weights: { violin: 1, cello: 1 } });
      expect((await client(c, token).communityList()).communities.map((x) => x.id)).toEqual([id]);
      await page.close();
    } finally {
      await stop(c);
    }
  });
});
