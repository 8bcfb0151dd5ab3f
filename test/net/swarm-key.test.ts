import { afterEach, describe, expect, it } from 'vitest';
import { newSwarmKey, parseSwarmKey, SwarmKeyError } from '../../src/net/swarm-key.ts';
import { CidxNode } from '../../src/node/node.ts';

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.allSettled(cleanup.splice(0).map((f) => f()));
});

const text = (b: Uint8Array) => new TextDecoder().decode(b);
const bytes = (s: string) => new TextEncoder().encode(s);
const HEX = 'ab'.repeat(32);

describe('swarm key files', () => {
  it('a new key is in the pre-shared key format, and every key is another', () => {
    const a = newSwarmKey();
    expect(text(a)).toMatch(/^\/key\/swarm\/psk\/1\.0\.0\/\n\/base16\/\n[0-9a-f]{64}$/);
    expect(parseSwarmKey(a)).toEqual(a);
    expect(text(newSwarmKey())).not.toBe(text(a));
  });

  it('accepts a trailing newline, CRLF line ends and upper-case hex', () => {
    const canonical = `/key/swarm/psk/1.0.0/\n/base16/\n${HEX}`;
    expect(text(parseSwarmKey(bytes(`${canonical}\n`)))).toBe(canonical);
    expect(
      text(parseSwarmKey(bytes(`/key/swarm/psk/1.0.0/\r\n/base16/\r\n${HEX.toUpperCase()}\r\n`))),
    ).toBe(canonical);
  });

  it('refuses anything else with a one-line reason', () => {
    const cases: [string | Uint8Array, RegExp][] = [
      ['', /has 1 line\(s\); expected 3/],
      [`/key/swarm/psk/1.0.0/\n/base16/`, /has 2 line\(s\)/],
      [`/key/swarm/psk/2.0.0/\n/base16/\n${HEX}`, /line 1 must be \/key\/swarm\/psk\/1\.0\.0\//],
      [`/key/swarm/psk/1.0.0/\n/base64/\n${HEX}`, /line 2 must be \/base16\//],
      [`/key/swarm/psk/1.0.0/\n/base16/\n${HEX.slice(2)}`, /line 3 must be 64 hex digits/],
      [`/key/swarm/psk/1.0.0/\n/base16/\n${'zz'.repeat(32)}`, /line 3 must be 64 hex digits/],
      [`/key/swarm/psk/1.0.0/\n/base16/\n${HEX}\nmore`, /has 4 line\(s\)/],
      [new Uint8Array([0xff, 0xfe, 0x00]), /not text/],
      [new Uint8Array(2048), /larger than 1024 bytes/],
    ];
    for (const [input, why] of cases) {
      const b = typeof input === 'string' ? bytes(input) : input;
      expect(() => parseSwarmKey(b)).toThrow(SwarmKeyError);
      expect(() => parseSwarmKey(b)).toThrow(why);
      try {
        parseSwarmKey(b);
      } catch (err) {
        expect((err as Error).message).not.toContain('\n');
      }
    }
  });
});

async function tcpNode(swarmKey: Uint8Array | undefined, bootstrap: string[]): Promise<CidxNode> {
  const n = await CidxNode.create({
    transport: 'tcp',
    listen: ['/ip4/127.0.0.1/tcp/0'],
    reachability: 'public',
    bootstrap,
    swarmKey,
    timing: { requestTimeoutMs: 3_000, lookupTimeoutMs: 6_000 },
  });
  cleanup.push(() => n.stop());
  await n.start();
  return n;
}

describe('a private swarm (pre-shared key)', () => {
  it('admits a node with the key and no node without it', async () => {
    const key = newSwarmKey();
    const a = await tcpNode(key, []);
    const b = await tcpNode(key, a.addrs);
    const profile = { weights: { canto: 1.4, Verdi: 0.9, Rigoletto: 0.62 } };
    const { id } = await a.create(profile);
    expect((await b.search(profile))[0]?.id).toBe(id);
    expect(b.libp2p.getConnections(a.peerId).length).toBeGreaterThan(0);

    for (const other of [newSwarmKey(), undefined]) {
      const warnings: string[] = [];
      const c = await CidxNode.create({
        transport: 'tcp',
        listen: ['/ip4/127.0.0.1/tcp/0'],
        reachability: 'public',
        bootstrap: a.addrs,
        swarmKey: other,
        timing: { requestTimeoutMs: 3_000, lookupTimeoutMs: 6_000 },
      });
      cleanup.push(() => c.stop());
      c.on('warning', (w) => warnings.push(w));
      await c.start();
      expect(warnings.some((w) => w.startsWith('no bootstrap peer reachable'))).toBe(true);
      await expect(
        c.libp2p.dial(a.libp2p.getMultiaddrs()[0] as never, { signal: AbortSignal.timeout(5_000) }),
      ).rejects.toThrow();
      expect(c.libp2p.getConnections()).toHaveLength(0);
      expect(a.libp2p.getConnections(c.peerId)).toHaveLength(0);
      // Nobody answers it: it finds only what it holds itself, which is nothing.
      expect(await c.search(profile)).toEqual([]);
      // And it cannot reach in either: the swarm's nodes cannot connect to it.
      await expect(
        a.libp2p.dial(c.libp2p.getMultiaddrs()[0] as never, { signal: AbortSignal.timeout(5_000) }),
      ).rejects.toThrow();
    }
  });

  it('a key file with a typo stops the node from being built, with the reason', async () => {
    const bad = bytes(`/key/swarm/psk/1.0.0/\n/base16/\n${HEX.slice(1)}`);
    await expect(tcpNode(bad, [])).rejects.toThrow(/line 3 must be 64 hex digits/);
  });
});
