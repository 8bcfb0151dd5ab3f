import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SwarmParams } from '../../src/index/swarm.ts';
import { indexKeys } from '../../src/keys/index-keys.ts';
import type { ChangeResult } from '../../src/node/create.ts';
import { UnknownCommunityError } from '../../src/node/errors.ts';
import type { CidxNode } from '../../src/node/node.ts';
import { parseProfile } from '../../src/profile/parse.ts';
import type { Profile } from '../../src/profile/profile.ts';
import { hex } from '../../src/util/bytes.ts';
import { startSwarm, stopAll, variedProfiles } from './swarm.ts';

/** A profile of its own vocabulary (`prefix-…`), sharing no attribute with any other. */
function isolated(size: number, seed: number, prefix: string): { weights: Record<string, number> } {
  const { weights } = variedProfiles(1, size, seed, 1)[0];
  return {
    weights: Object.fromEntries(Object.entries(weights).map(([a, w]) => [`${prefix}-${a}`, w])),
  };
}

/**
 * The end-to-end behaviour of a swarm, for one index mode: 20 real nodes, 30 communities
 * created from varied profiles, then search, join, notifications, update and dissolve. Each
 * test stands alone: the update and dissolve tests make communities of their own, in a
 * vocabulary no other community shares, so that they change nothing another test looks at.
 */
export function swarmScenario(
  name: string,
  swarm: Partial<SwarmParams>,
  profileSize: number,
): void {
  describe(`a 20-node swarm, ${name}`, () => {
    let nodes: CidxNode[];
    const profiles = variedProfiles(30, profileSize, 42);
    const created: { owner: number; result: ChangeResult }[] = [];

    beforeAll(async () => {
      nodes = await startSwarm(20, { swarm });
      // Created one after another, so that each create sees the ones before it.
      for (const [i, p] of profiles.entries()) {
        created.push({
          owner: i % nodes.length,
          result: await (nodes[i % nodes.length] as CidxNode).create(p),
        });
      }
    });

    afterAll(async () => {
      await stopAll(nodes);
    });

    const keysOf = (p: Profile) => indexKeys(p, (nodes[0] as CidxNode).swarm.params.index).map(hex);

    it('finds every community first, with similarity 1 and its contacts, from another node', async () => {
      for (const [i, { owner, result }] of created.entries()) {
        const asker = nodes[(owner + 7) % nodes.length] as CidxNode;
        const [best] = await asker.search(profiles[i]);
        expect(best?.id).toBe(result.id);
        expect(best?.similarity).toBe(1);
        expect(best?.contacts).toEqual((nodes[owner] as CidxNode).addrs);
      }
    });

    it('notified the contacts of the l most similar communities, each exactly once', () => {
      const ownerOf = new Map(created.map(({ owner, result }) => [result.id, owner]));
      const expected = new Set<string>();
      for (const { result } of created) {
        expect(result.similar.length).toBeLessThanOrEqual(3);
        for (const s of result.similar) expected.add(`${result.id}>${s.id}`);
      }
      expect(expected.size).toBeGreaterThan(20); // the profiles overlap: there is something to notify
      const seen = new Map<string, number>();
      nodes.forEach((node, i) => {
        for (const n of node.notifications()) {
          if (n.kind !== 'created' || !ownerOf.has(n.record.id)) continue;
          const k = `${n.record.id}>${n.for}`;
          seen.set(k, (seen.get(k) ?? 0) + 1);
          expect(ownerOf.get(n.for)).toBe(i); // it reached a contact of the community it names
        }
      });
      expect([...seen.keys()].sort()).toEqual([...expected].sort());
      expect([...seen.values()].every((c) => c === 1)).toBe(true);
    });

    it('joins one community per interest of a matrix profile', async () => {
      const a = profiles[0]?.weights;
      const b = profiles[1]?.weights;
      const related = (ws: Record<string, number>) => {
        const keys = Object.keys(ws);
        return keys.slice(1).map((k, i) => [keys[i], k, 0.9] as [string, string, number]);
      };
      const user = parseProfile({
        weights: { ...a, ...b },
        relations: [...related(a), ...related(b)],
      });
      const { interests } = await (nodes[5] as CidxNode).join(user, { minFreq: 0.5, minSize: 5 });
      expect(interests).toHaveLength(2);
      expect(interests.map((x) => x.community?.id)).toEqual([
        created[0]?.result.id,
        created[1]?.result.id,
      ]);
      expect(interests[0]?.community?.contacts.length).toBeGreaterThan(0);
    });

    it('after an update, searches return the new version and old-only keys no longer hold it', async () => {
      const owner = nodes[2] as CidxNode;
      const old = isolated(profileSize, 999, 'upd');
      // The new profile renames a third of the attributes: some keys stay, some go, some come.
      const renamed = Object.entries(old.weights).map(([a, w], i) =>
        i < profileSize / 3 ? [`${a}-new`, w] : [a, w],
      );
      const before = parseProfile(old);
      const after = parseProfile({ weights: Object.fromEntries(renamed) });
      const { id } = await owner.create(before);
      const res = await owner.update(id, after);
      expect(res.version).toBe(2);
      const [best] = await (nodes[11] as CidxNode).search(after);
      expect(best?.id).toBe(id);
      expect(best?.version).toBe(2);
      expect(best?.similarity).toBe(1);
      // The old profile still finds it through the keys both share — at the new version.
      const newKeys = new Set(keysOf(after));
      const oldKeys = keysOf(before);
      expect(oldKeys.filter((k) => newKeys.has(k)).length).toBeGreaterThan(0);
      const oldResults = await (nodes[12] as CidxNode).search(before, { k: 30 });
      expect(oldResults.find((r) => r.id === id)?.version).toBe(2);
      const oldOnly = oldKeys.filter((k) => !newKeys.has(k));
      expect(oldOnly.length).toBeGreaterThan(0);
      for (const node of nodes) {
        for (const k of oldOnly) {
          const ids = [...node.table.descriptors(k, Date.now())].map((d) => d.id);
          expect(ids).not.toContain(id);
        }
      }
    });

    it('after a dissolve, no node finds or gets the community', async () => {
      const owner = nodes[3] as CidxNode;
      const profile = isolated(profileSize, 998, 'gone');
      const { id } = await owner.create(profile);
      expect((await (nodes[9] as CidxNode).search(profile))[0]?.id).toBe(id);
      await owner.dissolve(id);
      for (const node of nodes) {
        const results = await node.search(profile, { k: 10 });
        expect(results.map((r) => r.id)).not.toContain(id);
      }
      await expect((nodes[0] as CidxNode).get(id)).rejects.toThrow(UnknownCommunityError);
      await expect(owner.update(id, profile)).rejects.toThrow(UnknownCommunityError);
    });
  });
}
