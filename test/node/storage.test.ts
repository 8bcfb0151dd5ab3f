import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CidxNode } from '../../src/node/node.ts';
import { NodeStorage } from '../../src/node/storage.ts';
import { TEST_TIMING, variedProfiles, waitFor } from '../support/swarm.ts';

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const f of cleanup.splice(0).reverse()) await f().catch(() => {});
});

async function diskNode(dir: string, bootstrap: string[] = [], port = 0) {
  const storage = await NodeStorage.open(dir);
  const node = await CidxNode.create(
    {
      transport: 'tcp',
      listen: [`/ip4/127.0.0.1/tcp/${port}`],
      bootstrap,
      timing: TEST_TIMING,
    },
    storage,
  );
  await node.start();
  const close = async () => {
    await node.stop();
    await storage.close();
  };
  cleanup.push(close);
  return { node, storage, close };
}

describe('a node on disk', () => {
  it('keeps identity, index share, owned communities and inbox across a restart', async () => {
    const dirA = mkdtempSync(join(tmpdir(), 'cidx-a-'));
    const dirB = mkdtempSync(join(tmpdir(), 'cidx-b-'));
    const a = await diskNode(dirA);
    const b = await diskNode(dirB, a.node.addrs);
    await waitFor(() => a.node.info().peers.profiles > 0, undefined, 'peers');
    const [p, q] = variedProfiles(2, 20, 61, 1);
    const mine = await a.node.create(p);
    const theirs = await b.node.create(q); // notifies a's community
    expect(a.node.notifications()).toHaveLength(1);
    const before = {
      peerId: a.node.peerId.toString(),
      stored: a.node.info().stored,
      owned: a.node.ownedIds(),
    };
    expect(before.stored.descriptors).toBeGreaterThan(0);
    const port = Number(a.node.addrs[0]?.split('/')[4]);
    await a.close();

    // On the same port: its addresses, and so the contacts that follow them, are unchanged.
    const again = await diskNode(dirA, b.node.addrs, port);
    expect(again.node.peerId.toString()).toBe(before.peerId);
    expect(again.node.info().stored).toEqual(before.stored);
    expect(again.node.ownedIds()).toEqual(before.owned);
    expect(again.node.owned(mine.id)?.defaultContacts).toBe(true);
    expect(await again.node.refreshContacts()).toEqual([]);
    expect(again.node.notifications().map((n) => [n.seq, n.record.id, n.for])).toEqual([
      [1, theirs.id, mine.id],
    ]);
    // it still owns, updates and answers for what it had
    expect((await again.node.update(mine.id, p)).version).toBe(2);
    expect((await b.node.search(p))[0]?.id).toBe(mine.id);
  });
});
