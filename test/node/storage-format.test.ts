import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { peerIdFromPrivateKey } from '@libp2p/peer-id';
import { decode, encode } from 'cborg';
import { LevelDatastore } from 'datastore-level';
import { Key } from 'interface-datastore';
import { afterAll, describe, expect, it } from 'vitest';
import { CidxNode } from '../../src/node/node.ts';
import {
  CorruptRecordError,
  NodeStorage,
  StorageError,
  StorageFormatError,
} from '../../src/node/storage.ts';
import { runNodeExpectingFailure } from '../support/process.ts';
import { type Format0Store, writeFormat0Store } from '../support/store-format0.ts';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
const tmp = () => {
  const d = mkdtempSync(join(tmpdir(), 'cidx-format-'));
  dirs.push(d);
  return d;
};

/** Every key and value of the store, as hex strings (for "nothing changed" checks). */
async function snapshot(dir: string): Promise<Record<string, string>> {
  const ds = new LevelDatastore(join(dir, 'store'));
  await ds.open();
  try {
    const out: Record<string, string> = {};
    for await (const { key, value } of ds.query({}))
      out[key.toString()] = Buffer.from(value).toString('hex');
    return out;
  } finally {
    await ds.close();
  }
}

async function rawPut(dir: string, key: string, value: Uint8Array): Promise<void> {
  const ds = new LevelDatastore(join(dir, 'store'));
  await ds.open();
  await ds.put(new Key(key), value).finally(() => ds.close());
}

async function rawDelete(dir: string, key: string): Promise<void> {
  const ds = new LevelDatastore(join(dir, 'store'));
  await ds.open();
  await ds.delete(new Key(key)).finally(() => ds.close());
}

/** Opens the store and loads a node from it (not started); closes both. */
async function load<T>(dir: string, check: (node: CidxNode) => T): Promise<T> {
  const storage = await NodeStorage.open(dir);
  try {
    const node = await CidxNode.create(
      {
        transport: 'memory',
        listen: [`/memory/format-${randomBytes(4).toString('hex')}`],
        encryption: 'plaintext',
      },
      storage,
    );
    return check(node);
  } finally {
    await storage.close();
  }
}

const nodeArgs = (dir: string) => [
  '--data',
  dir,
  '--rpc',
  '127.0.0.1:0',
  '--listen',
  '/ip4/127.0.0.1/tcp/0',
];

describe('the store format', () => {
  it('migrates a format-0 store on open, keeping identity, index share, owned communities and inbox', async () => {
    const dir = tmp();
    const old = await writeFormat0Store(dir);
    const before = await snapshot(dir);
    expect(before['/cidx/format']).toBeUndefined();
    const check = (node: CidxNode, f: Format0Store) => {
      const now = Date.now();
      expect(node.peerId.equals(peerIdFromPrivateKey(f.key))).toBe(true);
      expect(node.table.stats()).toMatchObject({
        descriptors: 1,
        keys: 1,
        contacts: 1,
        tombstones: 1,
      });
      expect([...node.table.descriptors(f.held.key, now)].map((d) => [d.id, d.version])).toEqual([
        [f.held.id, 1],
      ]);
      expect([...node.table.descriptors(f.held.removedKey, now)]).toEqual([]);
      const held = node.table.contacts(f.held.id, now);
      expect(held.contacts?.addrs).toEqual(f.held.contacts);
      expect(held.descriptor?.id).toBe(f.held.id);
      expect(node.table.tombstone(f.tombstone.id, now)?.version).toBe(3);
      expect(node.ownedIds()).toEqual([f.own.id]);
      const own = node.owned(f.own.id);
      expect(own?.profile.toJSON().weights).toEqual(f.own.weights);
      expect(own?.keys).toEqual(f.own.keys);
      expect(own?.contacts).toEqual(f.own.contacts);
      expect(own?.holders).toEqual({});
      expect(node.owned(f.dissolved.id)?.dissolved?.until).toBe(f.dissolved.until);
      expect(
        node
          .notifications()
          .map((n) => ({ seq: n.seq, kind: n.kind, id: n.record.id, for: n.for })),
      ).toEqual(f.notes);
    };
    await load(dir, (node) => check(node, old));

    // One batch wrote the format and gave the older owned record its (empty) holders; every
    // other value is as it was.
    const after = await snapshot(dir);
    expect(decode(Buffer.from(after['/cidx/format'] as string, 'hex'))).toBe(1);
    const changed = Object.keys(after).filter((k) => after[k] !== before[k]);
    expect(changed.filter((k) => k.startsWith('/cidx/')).sort()).toEqual(
      ['/cidx/format', `/cidx/o/${old.own.id}`].sort(),
    );
    const ownValue = decode(Buffer.from(after[`/cidx/o/${old.own.id}`] as string, 'hex'));
    expect(ownValue.h).toEqual({});
    // Opened again, it is read as format 1, with nothing left to migrate.
    await load(dir, (node) => check(node, old));
    const again = await snapshot(dir);
    for (const k of Object.keys(after).filter((k) => k.startsWith('/cidx/')))
      expect(again[k]).toBe(after[k]);
  });

  it('a migration that meets a corrupt record changes nothing, and completes once it is gone', async () => {
    const dir = tmp();
    const old = await writeFormat0Store(dir);
    const bad = `/cidx/o/${'ab'.repeat(32)}`;
    await rawPut(dir, bad, encode({ id: 'ab'.repeat(32), v: 1 }));
    const before = await snapshot(dir);
    const err = await NodeStorage.open(dir).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CorruptRecordError);
    expect((err as CorruptRecordError).key).toBe(bad);
    // Not half-applied: the good record lacking its holders was not rewritten either.
    expect(await snapshot(dir)).toEqual(before);
    await rawDelete(dir, bad);
    expect(await load(dir, (node) => node.owned(old.own.id)?.holders)).toEqual({});
  });

  it('refuses a store written by a newer format, before reading or writing anything', async () => {
    const dir = tmp();
    await writeFormat0Store(dir);
    await rawPut(dir, '/cidx/format', encode(2));
    const before = await snapshot(dir);
    const err = await NodeStorage.open(dir).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StorageFormatError);
    expect((err as Error).message).toBe(
      `${dir}: written by a newer cidx (store format 2); this cidx reads store formats up to 1`,
    );
    expect(await snapshot(dir)).toEqual(before);
    // …and the store is closed again: it opens once more (LevelDB locks an open store).
    await expect(NodeStorage.open(dir)).rejects.toBeInstanceOf(StorageFormatError);
  });

  it('`cidx node` on a newer store exits 2 with a one-line error', async () => {
    const dir = tmp();
    await writeFormat0Store(dir);
    await rawPut(dir, '/cidx/format', encode(7));
    const r = await runNodeExpectingFailure(nodeArgs(dir));
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr.trim()).toBe(
      `cidx: --data ${dir}: written by a newer cidx (store format 7); this cidx reads store formats up to 1`,
    );
  });
});

describe('a corrupt record', () => {
  /** Each corruption of a migrated store, and the key the error must name. */
  const cases: [string, (f: Format0Store) => [string, Uint8Array]][] = [
    [
      'an entry of the wrong shape',
      (f) => [`/cidx/e/${f.held.key}/${f.held.id}`, encode({ b: 5, x: 1 })],
    ],
    [
      'contacts that are not CBOR',
      (f) => [`/cidx/c/${f.held.id}`, Uint8Array.of(0xff, 0x00, 0x13)],
    ],
    [
      'a tombstone whose signed payload is garbage',
      (f) => [
        `/cidx/t/${f.tombstone.id}`,
        encode({ b: { p: Uint8Array.of(1, 2), o: Uint8Array.of(3), s: Uint8Array.of(4) }, x: 1 }),
      ],
    ],
    [
      'an owned community missing a field',
      (f) => [`/cidx/o/${f.own.id}`, encode({ id: f.own.id, v: 1 })],
    ],
    ['a notification under another number', () => [`/cidx/n/${'0'.repeat(15)}1`, notePayload(9)]],
    [
      'an identity that is not a key',
      () => ['/cidx/identity', Uint8Array.of(8, 1, 18, 3, 1, 2, 3)],
    ],
    ['an entry under a malformed key', () => ['/cidx/e/zz/not-an-id', encode({ v: 1, x: 1 })]],
  ];
  let template: Uint8Array | undefined;
  /** A well-formed notification value, with its number changed. */
  function notePayload(seq: number): Uint8Array {
    const v = decode(template as Uint8Array) as Record<string, unknown>;
    return encode({ ...v, q: seq });
  }

  for (const [what, corrupt] of cases) {
    it(`is reported by its key, not a TypeError: ${what}`, async () => {
      const dir = tmp();
      const f = await writeFormat0Store(dir);
      await load(dir, () => {}); // migrated: a format-1 store
      const snap = await snapshot(dir);
      template = Buffer.from(snap[`/cidx/n/${'0'.repeat(15)}1`] as string, 'hex');
      const [key, value] = corrupt(f);
      await rawPut(dir, key, value);
      const err = await load(dir, () => {}).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(CorruptRecordError);
      expect(err).toBeInstanceOf(StorageError);
      expect((err as CorruptRecordError).key).toBe(key);
      expect((err as Error).message.startsWith(`corrupt record at ${key}: `)).toBe(true);
      expect((err as Error).message).not.toMatch(/\n/);
    });
  }

  it('an unreadable format version is reported by its key', async () => {
    const dir = tmp();
    await writeFormat0Store(dir);
    await rawPut(dir, '/cidx/format', encode('one'));
    const err = await NodeStorage.open(dir).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CorruptRecordError);
    expect((err as CorruptRecordError).key).toBe('/cidx/format');
  });

  it('`cidx node` on a store with a corrupt record exits 1 with a one-line error naming it', async () => {
    const dir = tmp();
    const f = await writeFormat0Store(dir);
    const key = `/cidx/c/${f.held.id}`;
    await rawPut(dir, key, encode({ b: 1 }));
    const r = await runNodeExpectingFailure(nodeArgs(dir));
    expect(r.code).toBe(1);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr.trim()).toMatch(new RegExp(`^cidx: node: corrupt record at ${key}: `));
  });
});
