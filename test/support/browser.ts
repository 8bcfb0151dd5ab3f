/**
 * Debian's Chromium driven by playwright-core (no browser is ever downloaded), and the web
 * console's user actions, found the way a screen-reader user finds them: by role and label.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium, type Locator, type Page } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export interface Browser {
  context: BrowserContext;
  /** Content-Security-Policy violations and page errors seen so far, on every page. */
  problems: string[];
  page(url: string): Promise<Page>;
  close(): Promise<void>;
}

/** Starts headless Chromium with a fresh profile directory (removed on close). */
export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM))
    throw new Error(
      `${CHROMIUM} is missing: install Debian's Chromium (apt-get update && apt-get install -y chromium)`,
    );
  const profile = mkdtempSync(join(tmpdir(), 'cidx-chromium-'));
  let context: BrowserContext;
  try {
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: ARGS,
      viewport: { width: 1280, height: 900 },
      timeout: 60_000,
    });
  } catch (err) {
    rmSync(profile, { recursive: true, force: true });
    throw err;
  }
  const problems: string[] = [];
  return {
    context,
    problems,
    async page(url) {
      const page = await context.newPage();
      page.on('console', (m) => {
        if (/Content.Security.Policy/i.test(m.text())) problems.push(`${url}: ${m.text()}`);
      });
      page.on('pageerror', (e) => problems.push(`${url}: ${e.message}`));
      page.setDefaultTimeout(30_000);
      await page.goto(url);
      await page.getByRole('status').first().filter({ hasText: 'connected to' }).waitFor();
      return page;
    },
    async close() {
      await context.close().catch(() => {});
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

const region = (page: Page, name: string) => page.getByRole('region', { name });

/** Fills a profile field: JSON, or text the console builds a profile from. */
async function fillProfile(scope: Locator, profile: object | string): Promise<void> {
  if (typeof profile === 'string') {
    await scope.getByRole('radio', { name: 'Text' }).check();
    await scope.getByLabel('Text to build a profile from').fill(profile);
  } else {
    await scope.getByRole('radio', { name: 'JSON' }).check();
    await scope.getByLabel('Profile JSON').fill(JSON.stringify(profile));
  }
}

/** Creates a community in the console; resolves with its id once it is listed as owned. */
export async function createCommunity(page: Page, profile: object | string): Promise<string> {
  const owned = region(page, 'Communities of this node');
  const before = await owned.locator('li.owned').count();
  await fillProfile(owned, profile);
  await owned.getByRole('button', { name: 'Create community' }).click();
  await owned.locator('li.owned').nth(before).waitFor();
  const status = await owned.getByRole('status').textContent();
  if (!status?.startsWith('created')) throw new Error(`create: ${status}`);
  return (await owned.locator('li.owned').nth(before).getAttribute('data-id')) as string;
}

/** Searches from the console, submitting with the keyboard; the results, best first. */
export async function search(
  page: Page,
  profile: object | string,
  k = 5,
): Promise<{ id: string; similarity: string }[]> {
  const box = region(page, 'Search communities');
  await fillProfile(box, profile);
  const results = box.getByRole('list', { name: 'Search results, most similar first' });
  await results.evaluate((el) => el.replaceChildren());
  const count = box.getByRole('spinbutton', { name: 'Number of results' });
  await count.fill(String(k));
  await count.press('Enter'); // the keyboard submits the form
  await box.getByRole('status').filter({ hasText: /found/ }).waitFor();
  const items = await results
    .getByRole('listitem')
    .filter({ has: page.locator('meter') })
    .all();
  return Promise.all(
    items.map(async (li) => ({
      id: (await li.getAttribute('data-id')) as string,
      similarity: (await li.locator('meter').getAttribute('aria-label')) as string,
    })),
  );
}

/** Waits until the notifications list shows one about `id` (no reload). */
export async function notificationAbout(page: Page, id: string): Promise<Locator> {
  const item = region(page, 'Notifications')
    .getByRole('list', { name: 'Notifications, newest first' })
    .locator(`li[data-id="${id}"]`)
    .first(); // one per community of this node it is similar to
  await item.waitFor();
  return item;
}

/** Gives an owned community a new profile; resolves with the status line. */
export async function updateCommunity(
  page: Page,
  id: string,
  profile: object,
): Promise<string | null> {
  const owned = region(page, 'Communities of this node');
  const item = owned.locator(`li.owned[data-id="${id}"]`);
  await item.getByRole('button', { name: `Update community ${id.slice(0, 8)}` }).click();
  await item.getByLabel('Profile JSON').waitFor();
  await fillProfile(item, profile);
  await item.getByRole('button', { name: 'Save new profile' }).click();
  await owned
    .getByRole('status')
    .filter({ hasText: /^updated|\(code/ })
    .waitFor();
  return owned.getByRole('status').textContent();
}

/** Dissolves an owned community, accepting the confirmation; waits until it is gone. */
export async function dissolveCommunity(page: Page, id: string): Promise<void> {
  const owned = region(page, 'Communities of this node');
  page.once('dialog', (d) => void d.accept());
  await owned.getByRole('button', { name: `Dissolve community ${id.slice(0, 8)}` }).click();
  await owned.locator(`li.owned[data-id="${id}"]`).waitFor({ state: 'detached' });
}
