/**
 * A profile of a million attributes, on the wire, as JSON and signed in a record: refused from
 * its counts, before a single entry is read (checked by counting the reads, not by timing them).
 *
 * Found and fixed: profileFromWire built the object of a million attributes (~2 s) before
 * refusing it, and openRecord validated each of them (~1 s more) before the limits were applied.
 */
import { generateKeyPair, publicKeyToProtobuf } from '@libp2p/crypto/keys';
import { encode } from 'cborg';
import { beforeAll, describe, expect, it } from 'vitest';
import { decodeRequest, encodeMessage } from '../../../src/net/codec.ts';
import { communityId, NONCE_BYTES, openRecord, RecordError } from '../../../src/net/records.ts';
import { profileFromWire } from '../../../src/net/wire-profile.ts';
import { FieldError, ProfileError } from '../../../src/profile/errors.ts';
import { parseProfile } from '../../../src/profile/parse.ts';
import { checkThrown } from './check.ts';
import { SIGNING_DOMAIN, SWARM } from './values.ts';

describe('a profile of a million attributes', () => {
  const MILLION = 1_000_000;
  let w: [string, number][] = [];
  beforeAll(() => {
    w = Array.from({ length: MILLION }, (_, i) => [`a${i}`, 1]);
  });
  const refused = /holds 1000000 attributes, more than 4096/;

  function thrownBy(fn: () => unknown): unknown {
    try {
      fn();
    } catch (err) {
      return err;
    }
    return undefined;
  }

  /** `target` behind a proxy that counts reads of its entries (a list's length is not one). */
  function counted<T extends object>(target: T): { value: T; reads: () => number } {
    let reads = 0;
    const value = new Proxy(target, {
      get(t, prop, receiver) {
        if (prop !== 'length' && typeof prop === 'string') reads++;
        return Reflect.get(t, prop, receiver);
      },
    });
    return { value, reads: () => reads };
  }

  it('profileFromWire refuses it from the count alone, reading no attribute', () => {
    const attrs = counted(w);
    const thrown = thrownBy(() => profileFromWire({ w: attrs.value }));
    expect(checkThrown(thrown, FieldError).message).toMatch(refused);
    expect(attrs.reads()).toBe(0);
    const rels = counted(
      Array.from({ length: 200_000 }, (): [string, string, number] => ['a', 'b', 1]),
    );
    const rel = thrownBy(() => profileFromWire({ w: [['a', 1]], r: rels.value }));
    expect(checkThrown(rel, FieldError).message).toMatch(/holds 200000 relations/);
    expect(rels.reads()).toBe(0);
  });

  it('parseProfile refuses it after counting the keys (no attribute is read)', () => {
    const weights = counted(Object.fromEntries(w));
    const thrown = thrownBy(() => parseProfile({ weights: weights.value }));
    expect(checkThrown(thrown, ProfileError).message).toMatch(refused);
    expect(weights.reads()).toBe(0);
  });

  it('openRecord refuses it signed by its owner, before validating every entry', async () => {
    const key = await generateKeyPair('Ed25519');
    const owner = publicKeyToProtobuf(key.publicKey);
    const nonce = new Uint8Array(NONCE_BYTES);
    // The last entry is malformed: validated first, it would be the error; counted first, the
    // count is.
    const entries = [...w.slice(0, -1), ['last', 'heavy']];
    const payload = encode({ t: 'd', id: communityId(owner, nonce), n: nonce, v: 1, w: entries });
    const sig = await key.sign(Buffer.concat([SIGNING_DOMAIN, payload]));
    let thrown: unknown;
    try {
      await openRecord({ payload, owner, sig });
    } catch (err) {
      thrown = err;
    }
    expect(checkThrown(thrown, RecordError).message).toMatch(refused);
  });

  it('decodeRequest takes it (the codec knows no limits; the frame limit bounds it)', () => {
    const frame = encodeMessage({
      v: 1,
      swarm: SWARM,
      t: 'query',
      key: SWARM,
      profile: { w },
      k: 5,
    });
    const req = decodeRequest(frame);
    expect(req.t === 'query' && req.profile.w.length).toBe(MILLION);
    // …and the query handler's profileFromWire refuses it from the count alone
    if (req.t !== 'query') throw new Error('not a query');
    const attrs = counted(req.profile.w);
    const thrown = thrownBy(() => profileFromWire({ w: attrs.value }, { maxAttributes: 4096 }));
    expect(checkThrown(thrown, FieldError).message).toMatch(refused);
    expect(attrs.reads()).toBe(0);
  });
});
