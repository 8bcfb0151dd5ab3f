/**
 * Hostile signed records for `openRecord` (fast-check, `RUNS` cases a property): payloads of
 * every shape signed by their owner, valid records with a changed payload, owner or signature,
 * nesting 10^5 deep in a signed payload.
 *
 * Property: a record every rule holds for, or a RecordError with a message; never a TypeError, a
 * RangeError or a stack overflow. `openRecord(signRecord(x))` gives x back.
 */
import { generateKeyPair, publicKeyToProtobuf } from '@libp2p/crypto/keys';
import type { PrivateKey } from '@libp2p/interface';
import { peerIdFromPrivateKey } from '@libp2p/peer-id';
import { encode } from 'cborg';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import type { SignedBlob, SignedRecord } from '../../../src/index/records.ts';
import {
  checkContactAddr,
  communityId,
  MAX_ADDR_CHARS,
  MAX_CONTACTS,
  NONCE_BYTES,
  openRecord,
  type RecordContent,
  RecordError,
  signRecord,
} from '../../../src/net/records.ts';
import { type ParseOptions, parseProfile } from '../../../src/profile/parse.ts';
import { Profile } from '../../../src/profile/profile.ts';
import { attemptAsync, cases, RUNS, tally } from './check.ts';
import { checkProfile, hostileWireProfile, limitsArb } from './profiles.ts';
import {
  anyString,
  applyEdits,
  bytesOf,
  cbor,
  cborValue,
  DEEP,
  deepArrays,
  deepMaps,
  edit,
  embed,
  finite,
  hex64,
  hostileNumber,
  mutated,
  SIGNING_DOMAIN,
  withBadField,
} from './values.ts';

function checkRecord(r: SignedRecord, blob: SignedBlob, limits: ParseOptions): void {
  expect(r.id).toMatch(/^[0-9a-f]{64}$/);
  expect(r.nonce).toBeInstanceOf(Uint8Array);
  expect(r.nonce.length).toBe(NONCE_BYTES);
  expect(r.id).toBe(communityId(blob.owner, r.nonce));
  expect(Number.isSafeInteger(r.version) && r.version >= 1).toBe(true);
  expect(r.owner).toEqual(blob.owner);
  switch (r.kind) {
    case 'descriptor': {
      expect(r.profile).toBeInstanceOf(Profile);
      const json = r.profile.toJSON();
      const reparsed = parseProfile(json, limits);
      expect(reparsed.toJSON()).toEqual(json);
      break;
    }
    case 'contacts':
      expect(r.addrs.length).toBeLessThanOrEqual(MAX_CONTACTS);
      for (const a of r.addrs) {
        expect(a.length).toBeLessThanOrEqual(MAX_ADDR_CHARS);
        checkContactAddr(a);
      }
      break;
    case 'removal':
      expect(r.key.length >= 1 && r.key.length <= 64).toBe(true);
      break;
    case 'tombstone':
      break;
  }
}

describe('signed records under hostile blobs', () => {
  let key: PrivateKey;
  let other: PrivateKey;
  let owner: Uint8Array;
  let nonce: Uint8Array;
  let id: string;
  let peer: string;

  beforeAll(async () => {
    key = await generateKeyPair('Ed25519');
    other = await generateKeyPair('secp256k1');
    owner = publicKeyToProtobuf(key.publicKey);
    nonce = new Uint8Array(NONCE_BYTES).fill(9);
    id = communityId(owner, nonce);
    peer = peerIdFromPrivateKey(key).toString();
  });

  async function signPayload(payload: Uint8Array, by: PrivateKey = key): Promise<SignedBlob> {
    const sig = await by.sign(Buffer.concat([SIGNING_DOMAIN, payload]));
    return { payload, owner: publicKeyToProtobuf(by.publicKey), sig };
  }

  const addr = (peerId: string) =>
    fc.oneof(
      { weight: 3, arbitrary: fc.ipV4().map((ip) => `/ip4/${ip}/tcp/4001/p2p/${peerId}`) },
      fc.constantFrom(
        `/p2p/${peerId}`,
        `/ip6/::1/tcp/1/p2p/${peerId}`,
        `/dns4/example.org/tcp/1/p2p/${peerId}`,
        '/ip4/1.2.3.4/tcp/1',
        `/p2p/${peerId}/ip4/1.2.3.4`,
        `/ip4/1.2.3.4/tcp/1/p2p/${peerId}/`,
        `/ip4/1.2.3.4/tcp/99999/p2p/${peerId}`,
        `/ip4/1.2.3.4/tcp/1/p2p/${peerId.slice(0, -1)}`,
        `/unix/${'x'.repeat(600)}/p2p/${peerId}`,
        '',
        '/',
        '//',
      ),
      anyString.map((s) => `/${s}/p2p/${peerId}`),
      anyString,
    );

  /** Payload objects: right in shape, wrong in a field, or anything at all. */
  const payloadObject = (ctx: { id: string; nonce: Uint8Array; peer: string }) => {
    const head = {
      id: fc.oneof({ weight: 5, arbitrary: fc.constant(ctx.id) }, hex64, anyString),
      n: fc.oneof({ weight: 5, arbitrary: fc.constant(ctx.nonce) }, bytesOf(0, 20)),
      v: fc.oneof(
        { weight: 3, arbitrary: fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }) },
        hostileNumber,
      ),
    };
    const shaped = fc.oneof(
      hostileWireProfile.map((w) => ({ t: 'd', ...w })),
      fc
        .oneof(
          fc.array(addr(ctx.peer), { maxLength: 4 }),
          fc.array(addr(ctx.peer), { minLength: MAX_CONTACTS - 1, maxLength: MAX_CONTACTS + 2 }),
        )
        .map((a) => ({ t: 'c', a })),
      bytesOf(0, 70).map((k) => ({ t: 'r', k })),
      fc.constant({ t: 'x' }),
    );
    const full = fc
      .tuple(fc.record(head, { noNullPrototype: true }), shaped)
      .map(([h, s]) => ({ ...h, ...s }));
    return fc.oneof({ weight: 4, arbitrary: full }, withBadField(full), cborValue);
  };

  it(`openRecord: a valid record or a RecordError, for ${cases(RUNS)} hostile payloads signed by their owner`, async () => {
    const payloads = fc.oneof(
      { weight: 6, arbitrary: payloadObject({ id, nonce, peer }).map(cbor) },
      mutated(payloadObject({ id, nonce, peer }).map(cbor)),
      fc.uint8Array({ maxLength: 200 }),
    );
    const seen = tally();
    const kinds = new Set<string>();
    await fc.assert(
      fc.asyncProperty(payloads, limitsArb, fc.boolean(), async (payload, limits, verified) => {
        const blob = await signPayload(payload);
        const r = await attemptAsync(() => openRecord(blob, limits, { verified }), RecordError);
        seen.note(r !== null);
        if (r !== null) {
          kinds.add(r.kind);
          checkRecord(r, blob, limits);
        }
      }),
      {
        numRuns: RUNS,
        examples: [
          [
            encode({
              t: 'd',
              id,
              n: nonce,
              v: 1,
              w: [
                ['a', 1],
                ['a', 2],
              ],
            }),
            {},
            false,
          ],
          [encode({ t: 'd', id, n: nonce, v: 1, w: [['__proto__', 1]], r: [] }), {}, false],
          [encode({ t: 'c', id, n: nonce, v: 1, a: ['/ip4/1.2.3.4/tcp/1'] }), {}, true],
          [encode({ t: 'x', id, n: nonce, v: { toString: 0 } }), {}, true],
        ],
      },
    );
    seen.expectBoth();
    expect([...kinds].sort()).toEqual(['contacts', 'descriptor', 'removal', 'tombstone']);
  });

  it(`openRecord: a RecordError for ${cases(RUNS)} valid records with a changed payload, owner or signature`, async () => {
    const contents = await Promise.all(
      [1, 2, 3].map(async (v) => [
        await signRecord(key, {
          kind: 'descriptor',
          id,
          nonce,
          version: v,
          profile: parseProfile({ weights: { a: 1, b: 2 }, relations: [['a', 'b', 0.5]] }),
        }),
        await signRecord(key, {
          kind: 'contacts',
          id,
          nonce,
          version: v,
          addrs: [`/ip4/1.2.3.4/tcp/1/p2p/${peer}`],
        }),
        await signRecord(key, { kind: 'removal', id, nonce, version: v, key: new Uint8Array([v]) }),
        await signRecord(key, { kind: 'tombstone', id, nonce, version: v }),
      ]),
    );
    const blobs = contents.flat();
    const otherOwner = publicKeyToProtobuf(other.publicKey);
    const part = fc.constantFrom('payload', 'owner', 'sig');
    const changed = fc
      .tuple(
        fc.constantFrom(...blobs),
        fc.oneof(
          fc.tuple(part, fc.array(edit, { minLength: 1, maxLength: 3 })),
          fc.tuple(part, fc.uint8Array({ maxLength: 120 })),
          fc.tuple(part, fc.constantFrom(...blobs)),
          fc.tuple(fc.constant('owner'), fc.constant(otherOwner)),
        ),
      )
      .map(([blob, [which, how]]) => {
        const b = { ...blob };
        b[which] =
          how instanceof Uint8Array
            ? how
            : Array.isArray(how)
              ? applyEdits(blob[which as 'payload'], how)
              : how[which as 'payload'];
        return b;
      });
    await fc.assert(
      fc.asyncProperty(changed, async (blob) => {
        const r = await attemptAsync(() => openRecord(blob), RecordError);
        if (r !== null) {
          // only a change that changed nothing (the same bytes as a signed blob) may open
          const same = (x: Uint8Array, y: Uint8Array) => Buffer.from(x).equals(y);
          expect(
            blobs.some(
              (b) =>
                same(b.payload, blob.payload) && same(b.owner, blob.owner) && same(b.sig, blob.sig),
            ),
          ).toBe(true);
          checkRecord(r, blob, {});
        }
      }),
      { numRuns: RUNS },
    );
  });

  it(`openRecord(signRecord(x)) gives x back, for ${cases(RUNS)} valid records`, async () => {
    const name = fc.oneof(
      fc.constantFrom('a', 'b', 'c', 'd', 'e', '0', '1', '__proto__', 'toString'),
      fc.string({ unit: 'grapheme', minLength: 1, maxLength: 8 }),
    );
    const profile = fc
      .tuple(
        fc.uniqueArray(name, { minLength: 1, maxLength: 6 }),
        fc.array(fc.double({ min: Number.MIN_VALUE, max: 1e300, noNaN: true }), {
          minLength: 6,
          maxLength: 6,
        }),
        fc.option(fc.array(fc.tuple(fc.nat(), fc.nat(), finite.map(Math.abs)), { maxLength: 6 })),
      )
      .map(([names, ws, rels]) => {
        const weights = Object.fromEntries(names.map((n, i) => [n, ws[i] as number]));
        if (rels === null) return parseProfile({ weights });
        const seen = new Set<string>();
        const relations: [string, string, number][] = [];
        for (const [i, j, r] of rels) {
          const a = names[i % names.length] as string;
          const b = names[j % names.length] as string;
          const pair = JSON.stringify([a, b].sort());
          if (a === b || seen.has(pair)) continue;
          seen.add(pair);
          relations.push([a, b, r]);
        }
        return parseProfile({ weights, relations });
      });
    const head = {
      id: fc.constant(id),
      nonce: fc.constant(nonce),
      version: fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }),
    };
    const content: fc.Arbitrary<RecordContent> = fc.oneof(
      fc.record({ kind: fc.constant('descriptor' as const), ...head, profile }),
      fc.record({
        kind: fc.constant('contacts' as const),
        ...head,
        addrs: fc.array(
          fc.ipV4().map((ip) => `/ip4/${ip}/tcp/4001/p2p/${peer}`),
          { maxLength: MAX_CONTACTS },
        ),
      }),
      fc.record({ kind: fc.constant('removal' as const), ...head, key: bytesOf(1, 64) }),
      fc.record({ kind: fc.constant('tombstone' as const), ...head }),
    );
    await fc.assert(
      fc.asyncProperty(content, async (c) => {
        const blob = await signRecord(key, c);
        const r = await openRecord(blob);
        expect(r.kind).toBe(c.kind);
        expect([r.id, r.version, [...r.nonce]]).toEqual([c.id, c.version, [...c.nonce]]);
        checkRecord(r, blob, {});
        if (r.kind === 'descriptor' && c.kind === 'descriptor') {
          checkProfile(
            r.profile,
            [...c.profile.weights],
            c.profile.isMatrix ? c.profile.relations : undefined,
          );
        }
        if (r.kind === 'contacts' && c.kind === 'contacts') expect(r.addrs).toEqual(c.addrs);
        if (r.kind === 'removal' && c.kind === 'removal') expect([...r.key]).toEqual([...c.key]);
      }),
      { numRuns: RUNS },
    );
  });

  it('openRecord refuses 10^5-deep nesting in a signed payload', async () => {
    const base = { t: 'd', id, n: nonce, v: 1, w: [['a', 1]] };
    for (const deep of [deepArrays(DEEP), deepMaps(DEEP)]) {
      for (const payload of [deep, embed(base, 'w', deep), embed(base, 'v', deep)]) {
        const blob = await signPayload(payload);
        expect(await attemptAsync(() => openRecord(blob), RecordError)).toBeNull();
      }
    }
  });
});
