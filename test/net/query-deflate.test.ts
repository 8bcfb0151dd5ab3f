import { randomBytes } from 'node:crypto';
import { deflateRawSync, constants as zlibConstants } from 'node:zlib';
import { lpStream } from '@libp2p/utils';
import { multiaddr } from '@multiformats/multiaddr';
import { decode, encode } from 'cborg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { attributeKey } from '../../src/keys/rehash.ts';
import { IndexClient } from '../../src/net/client.ts';
import {
  CodecError,
  decodeRequest,
  encodeMessage,
  encodeRequest,
  INDEX_PROTOCOL,
  type Request,
  WIRE_VERSION,
} from '../../src/net/codec.ts';
import { type CidxLibp2p, createHost } from '../../src/net/libp2p.ts';
import { Meter } from '../../src/net/meter.ts';
import { deflateProfile } from '../../src/net/query-deflate.ts';
import { fail, ok } from '../../src/net/server.ts';
import { profileToWire } from '../../src/net/wire-profile.ts';
import type { CidxNode } from '../../src/node/node.ts';
import { parseProfile } from '../../src/profile/parse.ts';
import { startSwarm, stopAll } from '../support/swarm.ts';

const swarm = new Uint8Array(32).fill(7);
// Stemmed words, as the profile builder makes them: what a query carries.
const WORDS =
  'mail daili dilbert plain account administr chang comic contact content error graphic internet modif option prefer provid remov servic set strip subscrib subscript support version'.split(
    ' ',
  );
const profile = parseProfile({
  weights: Object.fromEntries(WORDS.map((w, i) => [w, 1 + (i % 3)])),
});
type Query = Extract<Request, { t: 'query' }>;
const query = (sw: Uint8Array = swarm): Query => ({
  v: WIRE_VERSION,
  swarm: sw,
  t: 'query',
  key: new Uint8Array(attributeKey('mail')),
  profile: profileToWire(profile),
  k: 5,
  brief: true,
});

describe("a query's profile, deflated", () => {
  it('decodes to the request it was, in fewer bytes', () => {
    const plain = encodeMessage(query());
    const deflated = encodeRequest(query(), true);
    expect(deflated.length).toBeLessThan(plain.length * 0.8);
    expect((decode(deflated) as { profile?: unknown }).profile).toBeUndefined();
    expect(decodeRequest(deflated)).toEqual(decodeRequest(plain));
  });

  it("deflates a routed query too, and checks its profile against the limits as a query's", () => {
    const route: Request = { v: WIRE_VERSION, swarm, t: 'route', hops: 3, req: query() };
    const plain = encodeMessage(route);
    const deflated = encodeRequest(route, true);
    // The query inside saves what it saves alone.
    const saved = encodeMessage(query()).length - encodeRequest(query(), true).length;
    expect(saved).toBeGreaterThan(0);
    expect(plain.length - deflated.length).toBe(saved);
    expect((decode(deflated) as { req: { profile?: unknown } }).req.profile).toBeUndefined();
    expect(decodeRequest(deflated)).toEqual(route);
    expect(() => decodeRequest(deflated, { maxAttributes: 3 })).toThrow(/profile/);
    expect(() => decodeRequest(plain, { maxAttributes: 3 })).toThrow(/profile/);
  });

  it('deflates one profile object once, however many queries carry it', () => {
    const wire = profileToWire(profile);
    const first = deflateProfile(wire);
    expect(first).toBeDefined();
    expect(deflateProfile(wire)).toBe(first);
    // An equal profile built anew is deflated on its own, to the same bytes.
    const again = deflateProfile(profileToWire(profile));
    expect(again).not.toBe(first);
    expect(again).toEqual(first);
    const tiny = { w: [['a', 1]] } as const;
    expect(deflateProfile(tiny as never)).toBeUndefined();
    expect(deflateProfile(tiny as never)).toBeUndefined();
  });

  it('goes plain where deflating saves nothing, and for every other request', () => {
    const tiny: Query = { ...query(), profile: { w: [['a', 1]] } };
    expect(encodeRequest(tiny, true)).toEqual(encodeMessage(tiny));
    const params: Request = { v: WIRE_VERSION, swarm, t: 'params' };
    expect(encodeRequest(params, true)).toEqual(encodeMessage(params));
    expect(encodeRequest(query(), false)).toEqual(encodeMessage(query()));
  });

  it("a route's hop sends on the deflated profile it received, as it came", () => {
    const { profile: _, ...rest } = query();
    const plain = encode(profileToWire(profile));
    // Deflated otherwise than this node would (fixed Huffman codes): other bytes.
    const theirs = deflateRawSync(plain, { strategy: zlibConstants.Z_FIXED });
    expect(new Uint8Array(theirs)).not.toEqual(
      new Uint8Array(deflateProfile(profileToWire(profile)) ?? []),
    );
    const routed = (pz: Uint8Array) =>
      decodeRequest(encode({ v: WIRE_VERSION, swarm, t: 'route', hops: 2, req: { ...rest, pz } }));
    const sentOn = (req: Request) => {
      if (req.t !== 'route') throw new Error('not a route');
      const next = decode(encodeRequest({ ...req, hops: req.hops - 1 }, true)) as {
        req: { pz: Uint8Array };
      };
      return next.req.pz;
    };
    const hop = routed(theirs);
    expect(sentOn(hop)).toEqual(new Uint8Array(theirs));
    expect(decodeRequest(encodeRequest(hop, true))).toEqual(hop);
    // Bytes after the stream are not sent on, nor bytes longer than the profile's CBOR.
    const padded = new Uint8Array([...theirs, 1, 2, 3]);
    const ours = new Uint8Array(deflateProfile(profileToWire(profile)) ?? []);
    expect(sentOn(routed(padded))).toEqual(ours);
    const stored = deflateRawSync(plain, { level: 0 });
    expect(stored.length).toBeGreaterThan(plain.length);
    expect(sentOn(routed(stored))).toEqual(ours);
  });

  it('refuses a deflated profile that is not one, or inflates past the bound', () => {
    const { profile: _, ...rest } = query();
    const frame = (pz: unknown, more = {}) => encode({ ...rest, pz, ...more });
    const refused = (bytes: Uint8Array, max?: number) => {
      try {
        decodeRequest(bytes, {}, max);
      } catch (err) {
        expect(err).toBeInstanceOf(CodecError);
        return (err as Error).message;
      }
      throw new Error('accepted');
    };
    expect(refused(frame(new Uint8Array([0xff, 0xff, 0xff])))).toMatch(/not raw DEFLATE/);
    expect(refused(frame('text'))).toMatch(/pz must be a byte string/);
    expect(refused(frame(deflateRawSync(encode(profileToWire(profile))), { profile: {} }))).toMatch(
      /not both/,
    );
    // A bomb: 4 MiB of zeros deflate to a few KiB.
    const bomb = deflateRawSync(new Uint8Array(4 << 20));
    expect(bomb.length).toBeLessThan(8192);
    expect(refused(frame(bomb), 64 * 1024)).toMatch(/inflates past 65536 bytes/);
    // What it inflates to is checked as a plain profile would be.
    expect(refused(frame(deflateRawSync(encode({ w: 'heavy' }))))).toMatch(/request/);
    const many = { w: Array.from({ length: 50 }, (_, i) => [`a${i}`, 1]) };
    expect(() => decodeRequest(frame(deflateRawSync(encode(many))), { maxAttributes: 10 })).toThrow(
      /more than 10/,
    );
  });
});

describe('deflated queries between nodes', () => {
  let nodes: CidxNode[];
  /** A node as it was before deflated profiles: its codec drops `pz`, as it drops any unknown field. */
  let older: CidxLibp2p;
  const frames: { pz: boolean }[] = [];

  beforeAll(async () => {
    nodes = await startSwarm(2, { swarm: { index: { mode: 'attribute' } } });
    older = await createHost({
      transport: 'memory',
      listen: [`/memory/older-${randomBytes(4).toString('hex')}`],
      encryption: 'plaintext',
    });
    await older.handle(INDEX_PROTOCOL, async (stream) => {
      const lp = lpStream(stream);
      const raw = decode((await lp.read()).subarray()) as Record<string, unknown>;
      // The node's swarm check asks a newly met peer for its parameters too: queries only.
      if (raw.t === 'query') frames.push({ pz: 'pz' in raw });
      delete raw.pz;
      let res: ReturnType<typeof ok>;
      try {
        decodeRequest(encode(raw));
        res = ok({ outcome: 'none' });
      } catch (err) {
        res = fail('bad-request', (err as Error).message);
      }
      await lp.write(encodeMessage(res));
      await stream.close();
    });
    await older.start();
  });
  afterAll(async () => {
    await older?.stop();
    await stopAll(nodes);
  });

  const node = (i: number) => nodes[i] as CidxNode;

  it('a node answers a deflated query as it answers a plain one', async () => {
    const [a, b] = [node(0), node(1)];
    const req = query(b.swarm.digest);
    const meter = new Meter();
    const client = new IndexClient(a.libp2p, { timeoutMs: 30_000, maxFrameBytes: 1 << 20 }, meter);
    const deflated = await client.request(b.peerId, req);
    const plainMeter = new Meter();
    const plain = await new IndexClient(
      a.libp2p,
      { timeoutMs: 30_000, maxFrameBytes: 1 << 20, deflate: false },
      plainMeter,
    ).request(b.peerId, req);
    expect(deflated).toEqual(plain);
    const sent = (m: Meter) => m.snapshot()['out:query']?.bytes ?? Number.NaN;
    expect(sent(meter)).toBe(encodeRequest(req, true).length);
    expect(sent(plainMeter)).toBe(encodeMessage(req).length);
    expect(sent(meter)).toBeLessThan(sent(plainMeter));
  });

  it('a node that predates them is asked again plain, and from then on only plain', async () => {
    const client = new IndexClient(
      node(0).libp2p,
      { timeoutMs: 30_000, maxFrameBytes: 1 << 20 },
      new Meter(),
    );
    const to = multiaddr(`${older.getMultiaddrs()[0]}`);
    frames.length = 0;
    expect(await client.request(to, query())).toMatchObject({ ok: true, outcome: 'none' });
    expect(frames).toEqual([{ pz: true }, { pz: false }]);
    expect(await client.request(to, query())).toMatchObject({ ok: true });
    expect(frames).toEqual([{ pz: true }, { pz: false }, { pz: false }]);
  });
});
