import * as nodeCrypto from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Metafile } from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';
import { buildBrowser, forbiddenInputs } from '../../src/browser/build.ts';
import * as shim from '../../src/browser/shims/crypto.ts';
import { rng } from '../support/swarm.ts';

const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
});

describe('the browser bundle', () => {
  it('holds the node on WebSockets and relays, and none of TCP, LevelDB, charts or the simulator', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'cidx-bundle-'));
    dirs.push(dir);
    const { bytes, meta } = await buildBrowser(join(dir, 'browser.js'));
    const inputs = Object.keys(meta.inputs);
    expect(forbiddenInputs(meta)).toEqual([]);
    for (const must of [
      'src/browser/node.ts',
      'src/node/node.ts',
      'src/net/platform.browser.ts',
      'src/browser/shims/crypto.ts',
    ])
      expect(inputs).toContain(must);
    for (const pkg of [
      '@libp2p/websockets',
      '@libp2p/circuit-relay-v2',
      '@libp2p/kad-dht',
      'buffer',
      'events',
    ])
      expect(inputs.some((p) => p.includes(`node_modules/${pkg}/`))).toBe(true);
    expect(
      inputs.filter((p) => /datastore-level|@libp2p\/tcp|vega|@libp2p\/autonat/.test(p)),
    ).toEqual([]);
    expect(bytes).toBeGreaterThan(0);
  });

  it('the forbidden-module check catches each kind of module that has no place in a page', () => {
    const meta = {
      inputs: Object.fromEntries(
        [
          'node_modules/@libp2p/tcp/dist/src/index.js',
          'node_modules/datastore-level/dist/src/index.js',
          'node_modules/vega-lite/build/index.js',
          'sim/runner.ts',
          'src/node/storage.ts',
          'src/net/platform.ts',
          'src/net/platform.browser.ts',
        ].map((p) => [p, { bytes: 1, imports: [] }]),
      ),
      outputs: {},
    } as unknown as Metafile;
    expect(forbiddenInputs(meta)).toEqual([
      'node_modules/@libp2p/tcp/dist/src/index.js',
      'node_modules/datastore-level/dist/src/index.js',
      'node_modules/vega-lite/build/index.js',
      'sim/runner.ts',
      'src/node/storage.ts',
      'src/net/platform.ts',
    ]);
  });
});

describe('the node:crypto shim of the browser build', () => {
  const r = rng(42);
  const randomInput = (n: number) => Uint8Array.from({ length: n }, () => Math.floor(r() * 256));

  it('hashes as node:crypto does (SHA-256 over bytes and UTF-8 text, SHAKE256 of any length)', () => {
    for (const n of [0, 1, 55, 56, 64, 1000, 70_000]) {
      const a = randomInput(n);
      const b = randomInput(n % 17);
      const text = `Verdi é ${n} 🎻`;
      const want = nodeCrypto.createHash('sha256').update(a).update(text, 'utf8').update(b);
      const got = shim.createHash('sha256').update(a).update(text, 'utf8').update(b);
      expect(got.digest('hex')).toBe(want.digest('hex'));
      expect(shim.createHash('sha256').update(a).digest('base64')).toBe(
        nodeCrypto.createHash('sha256').update(a).digest('base64'),
      );
      const xof = shim.createHash('shake256', { outputLength: 4096 }).update(a).digest();
      expect(
        Buffer.from(xof).equals(
          nodeCrypto.createHash('shake256', { outputLength: 4096 }).update(a).digest(),
        ),
      ).toBe(true);
    }
    expect(() => shim.createHash('md5')).toThrow(/not in the browser build/);
  });

  it('gives random bytes of any length', () => {
    const a = shim.randomBytes(100_000);
    expect(a.length).toBe(100_000);
    expect(a.subarray(65_536).some((x) => x !== 0)).toBe(true);
    expect(shim.randomBytes(32).equals(shim.randomBytes(32))).toBe(false);
  });
});
