import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SimNetwork } from '../../../sim/network/network.ts';
import {
  loadRegions,
  parseRegions,
  RegionsError,
  worldRegions,
} from '../../../sim/network/regions.ts';
import world from '../../../sim/network/world.json' with { type: 'json' };

const small = {
  regions: [
    { id: 'near', weight: 3 },
    { id: 'far', weight: 1 },
  ],
  rtt_ms: { near: { near: 10, far: 200 }, far: { far: 30 } },
};

describe('world regions', () => {
  const dir = mkdtemp(join(tmpdir(), 'cidx-regions-'));
  afterAll(async () => {
    await rm(await dir, { recursive: true, force: true });
  });

  it('the built-in table validates, names its sources and holds every pair', () => {
    const t = worldRegions();
    expect(t.regions.length).toBeGreaterThanOrEqual(8);
    expect(world.source.rtt_ms).toMatch(/WonderNetwork/);
    expect(world.source.weight).toMatch(/Internet World Stats/);
    for (let a = 0; a < t.regions.length; a++) {
      for (let b = 0; b < t.regions.length; b++) {
        expect(t.rttMs(a, b)).toBe(t.rttMs(b, a));
        expect(t.rttMs(a, b)).toBeGreaterThan(0);
      }
    }
    // Across an ocean is farther than next door.
    expect(t.rttMs(t.indexOf('europe'), t.indexOf('oceania'))).toBeGreaterThan(
      t.rttMs(t.indexOf('europe'), t.indexOf('europe')),
    );
  });

  it('assigns regions by weight, the same for the same seed and name', () => {
    const t = parseRegions(small, 'small');
    const names = Array.from({ length: 4000 }, (_, i) => `node-${i}`);
    const first = names.map((n) => t.pick(7, n));
    expect(names.map((n) => t.pick(7, n))).toEqual(first);
    expect(names.map((n) => t.pick(8, n))).not.toEqual(first);
    const near = first.filter((r) => r === t.indexOf('near')).length / names.length;
    expect(near).toBeGreaterThan(0.72);
    expect(near).toBeLessThan(0.78);
    // The network hands them out the same way, in any join order.
    const a = new SimNetwork({ seed: 7, regions: t });
    const b = new SimNetwork({ seed: 7, regions: t });
    for (const n of names.slice(0, 50)) a.join(n);
    for (const n of names.slice(0, 50).reverse()) b.join(n);
    for (const [i, n] of names.slice(0, 50).entries()) {
      expect(a.regionOf(n)).toBe(t.regions[first[i] as number]?.id);
      expect(b.regionOf(n)).toBe(a.regionOf(n));
    }
  });

  it('half the regions’ round trip is the base delay; access adds at both ends', () => {
    const net = new SimNetwork({ seed: 1, regions: parseRegions(small, 'small'), accessMs: 5 });
    net.join('x', { region: 'near' });
    net.join('y', { region: 'far' });
    net.join('z', { region: 'near' });
    expect(net.rttMs('x', 'y')).toBe(200 + 4 * 5);
    expect(net.rttMs('x', 'z')).toBe(10 + 4 * 5);
  });

  it('a user file in the same format loads; bad ones fail naming the field', async () => {
    const d = await dir;
    const file = async (name: string, value: unknown) => {
      const p = join(d, name);
      await writeFile(p, typeof value === 'string' ? value : JSON.stringify(value));
      return p;
    };
    const ok = await loadRegions(await file('ok.json', small));
    expect(ok.regions.map((r) => r.id)).toEqual(['near', 'far']);

    const bad = async (value: unknown) => {
      const p = await file('bad.json', value);
      return loadRegions(p).then(
        () => 'loaded',
        (e: Error) => {
          expect(e).toBeInstanceOf(RegionsError);
          return e.message.slice(p.length + 2);
        },
      );
    };
    expect(await bad({ ...small, regions: [{ id: 'near', weight: -1 }, small.regions[1]] })).toBe(
      'regions[0].weight: must be a positive number',
    );
    expect(await bad({ ...small, regions: [{ id: 'Near!', weight: 1 }] })).toMatch(
      /^regions\[0\]\.id: must be lower-case letters/,
    );
    expect(await bad({ ...small, rtt_ms: { near: { near: 10, far: 200 } } })).toMatch(
      /^rtt_ms\.far\.far: missing/,
    );
    expect(
      await bad({ ...small, rtt_ms: { ...small.rtt_ms, far: { far: 30, near: 150 } } }),
    ).toMatch(/^rtt_ms\.far\.near: 150 differs from rtt_ms\.near\.far = 200/);
    expect(await bad({ ...small, rtt_ms: { ...small.rtt_ms, mars: { mars: 1 } } })).toBe(
      'rtt_ms.mars: unknown region',
    );
    expect(await bad({ ...small, rtt_ms: { near: { near: 'ten', far: 200 } } })).toMatch(
      /^rtt_ms\.near\.near: /,
    );
    expect(await bad({ ...small, extra: 1 })).toMatch(/^\(the file\): .*extra/);
    expect(await bad('{ not json')).toMatch(/^not JSON/);
    await expect(loadRegions(join(d, 'absent.json'))).rejects.toThrow(/cannot read/);
  });
});
