import { generateKeyPair, publicKeyToProtobuf } from '@libp2p/crypto/keys';
import { encode } from 'cborg';
import { describe, expect, it } from 'vitest';
import { communityId, openRecord, RecordError, signRecord } from '../../src/net/records.ts';
import { parseProfile } from '../../src/profile/parse.ts';
import { FIG_4_7_P1 } from '../fixtures.ts';
import { owner } from '../support/records.ts';

const ADDR = '/ip4/127.0.0.1/tcp/4001/p2p/12D3KooWP53mVYz1oD8KZ6hfeVb7Mw6RZbPGXxVVgD3S3oo2RFeR';

describe('signed records', () => {
  it('round-trip every kind, matrices included', async () => {
    const o = await owner();
    const h = { id: o.id, nonce: o.nonce, version: 3 };
    const profile = parseProfile(FIG_4_7_P1);
    const d = await openRecord(await signRecord(o.key, { kind: 'descriptor', ...h, profile }));
    expect(d.kind === 'descriptor' && d.profile.toJSON()).toEqual(profile.toJSON());
    const c = await openRecord(await signRecord(o.key, { kind: 'contacts', ...h, addrs: [ADDR] }));
    expect(c.kind === 'contacts' && c.addrs).toEqual([ADDR]);
    const r = await openRecord(
      await signRecord(o.key, { kind: 'removal', ...h, key: new Uint8Array([7]) }),
    );
    expect(r.kind === 'removal' && [...r.key]).toEqual([7]);
    const t = await openRecord(await signRecord(o.key, { kind: 'tombstone', ...h }));
    expect([t.kind, t.version, t.id]).toEqual(['tombstone', 3, o.id]);
  });

  it('refuse a changed payload, another key, an id that does not derive from the owner', async () => {
    const o = await owner();
    const h = { id: o.id, nonce: o.nonce, version: 1 };
    const blob = await signRecord(o.key, { kind: 'tombstone', ...h });
    const changed = { ...blob, payload: encode({ t: 'x', id: o.id, n: o.nonce, v: 2 }) };
    await expect(openRecord(changed)).rejects.toThrow('signature does not verify');
    const other = await generateKeyPair('Ed25519');
    await expect(
      openRecord({ ...blob, owner: publicKeyToProtobuf(other.publicKey) }),
    ).rejects.toThrow(RecordError);
    // signed correctly, but by a key the id does not derive from: someone claiming another's community
    const forged = await signRecord(other, { kind: 'tombstone', ...h });
    await expect(openRecord(forged)).rejects.toThrow('id does not derive from owner and nonce');
    expect(communityId(publicKeyToProtobuf(o.key.publicKey), o.nonce)).toBe(o.id);
  });

  it('share one parsed profile among opens of the same descriptor, and check each signature', async () => {
    const o = await owner();
    const h = { id: o.id, nonce: o.nonce, version: 1 };
    const blob = await signRecord(o.key, {
      kind: 'descriptor',
      ...h,
      profile: parseProfile(FIG_4_7_P1),
    });
    // A copy of the bytes, as another node would receive them.
    const copy = { payload: Uint8Array.from(blob.payload), owner: blob.owner, sig: blob.sig };
    const a = await openRecord(blob);
    const b = await openRecord(copy);
    expect(a.kind === 'descriptor' && b.kind === 'descriptor' && a.profile === b.profile).toBe(
      true,
    );
    expect(b.blob.payload).toBe(a.blob.payload);
    // Other limits parse again (and may refuse).
    await expect(openRecord(copy, { maxRelations: 1 })).rejects.toThrow(RecordError);
    // The shared parse never stands in for a signature check.
    const bad = { ...copy, sig: Uint8Array.from(copy.sig).fill(0, 0, 8) };
    await expect(openRecord(bad)).rejects.toThrow('signature does not verify');
    const other = await generateKeyPair('Ed25519');
    // The same payload validly signed by another key: its id does not derive from that key.
    const otherSig = await other.sign(
      Buffer.concat([Buffer.from('cidx/record/v1\0'), copy.payload]),
    );
    await expect(
      openRecord({ ...copy, owner: publicKeyToProtobuf(other.publicKey), sig: otherSig }),
    ).rejects.toThrow('id does not derive from owner and nonce');
  });

  it('refuse invalid contents even when signed', async () => {
    const o = await owner();
    const h = { id: o.id, nonce: o.nonce, version: 1 };
    await expect(
      openRecord(
        await signRecord(o.key, { kind: 'contacts', ...h, addrs: ['/ip4/127.0.0.1/tcp/1'] }),
      ),
    ).rejects.toThrow('must end in /p2p/');
    await expect(
      openRecord(await signRecord(o.key, { kind: 'contacts', ...h, addrs: ['not an address'] })),
    ).rejects.toThrow('is not a multiaddr');
    const big = parseProfile({
      weights: Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`t${i}`, 1])),
    });
    const blob = await signRecord(o.key, { kind: 'descriptor', ...h, profile: big });
    await expect(openRecord(blob, { maxAttributes: 10 })).rejects.toThrow(
      'profile: weights: holds 50 attributes',
    );
  });
});
