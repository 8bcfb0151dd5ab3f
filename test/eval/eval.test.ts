import { describe, expect, it } from 'vitest';
import { mailText } from '../../bench/eval/corpus.ts';
import { kMedoids } from '../../bench/eval/kmedoids.ts';
import { runModel, signCommunities, summarise } from '../../bench/eval/swarm-model.ts';
import { Rng } from '../../sim/random.ts';
import { Profile } from '../../src/profile/profile.ts';

describe('k-medoids over a distance (level-1 stand-in)', () => {
  it('separates well-apart groups and picks a member of each as its medoid', () => {
    // Three groups on a line around 0, 100 and 200.
    const xs = [0, 1, 2, 3, 100, 101, 103, 200, 202, 204, 205];
    const rng = new Rng(1, 'kmedoids-test');
    const { medoids, assignment } = kMedoids(
      xs.length,
      3,
      (i, j) => Math.abs((xs[i] as number) - (xs[j] as number)),
      () => rng.next(),
    );
    const groups = new Set(assignment.map((c, i) => `${c}:${Math.floor((xs[i] as number) / 50)}`));
    expect(groups.size).toBe(3);
    // The medoid minimises the total distance within its group: 1 or 2, 101, 202.
    const centres = medoids.map((m) => xs[m]).sort((a, b) => (a as number) - (b as number));
    expect([1, 2]).toContain(centres[0]);
    expect(centres.slice(1)).toEqual([101, 202]);
  });

  it('refuses a k the items cannot fill', () => {
    expect(() => kMedoids(2, 3, () => 1, Math.random)).toThrow(RangeError);
  });
});

describe('mail text of the corpus', () => {
  it("keeps the writer's own lines: no quotes, attributions, signatures or list footers", () => {
    const body = [
      'I tried the new kernel.',
      'On Mon, Bob wrote:',
      '> the old one crashed',
      'It boots fine. See http://example.org/x',
      '-- ',
      'Alice, sig line',
    ].join('\n');
    expect(mailText(body)).toBe('I tried the new kernel.\nIt boots fine. See');
    expect(mailText('Hello\n_______________________________________________\nList footer')).toBe(
      'Hello',
    );
  });
});

describe('the loss-free swarm model', () => {
  const vocab = Array.from({ length: 400 }, (_, i) => `w${i}`);
  const rng = new Rng(7, 'model-test');
  const profile = () => {
    const w = new Map<string, number>();
    while (w.size < 30) w.set(vocab[rng.below(vocab.length)] as string, 0.1 + rng.next());
    return Profile.fromTrusted(w);
  };
  const communities = Array.from({ length: 40 }, (_, i) => ({ id: `c${i}`, profile: profile() }));
  const queries = Array.from({ length: 30 }, (_, i) => ({ id: `q${i}`, profile: profile() }));

  it('per-attribute indexing returns the exact answer; LSH costs fewer keys and bytes', async () => {
    const signed = await signCommunities(communities);
    const exact = summarise(
      (await runModel({ mode: 'attribute' }, signed, queries, { k: 5, s: 5 })).scores,
    );
    expect(exact.answerable).toBeGreaterThan(20);
    expect(exact.top1).toBe(1);
    expect(exact.precision).toBe(1);
    const attr = await runModel({ mode: 'attribute' }, signed, queries, { k: 5, s: 5 });
    const lsh = await runModel({ mode: 'lsh', n: 10, m: 1, seed: 't' }, signed, queries, {
      k: 5,
      s: 5,
    });
    expect(attr.entries).toBe(40 * 30);
    expect(lsh.entries).toBeLessThanOrEqual(40 * 10);
    expect(lsh.search.keys).toBe(30 * 10);
    expect(lsh.search.requestBytes).toBeLessThan(attr.search.requestBytes);
    // Low similarities: LSH misses some best answers, and the score must show it.
    expect(summarise(lsh.scores).top1).toBeLessThan(1);
  });

  it('finds a stored community from its own profile under every LSH setting', async () => {
    const signed = await signCommunities(communities.slice(0, 10));
    for (const m of [1, 2, 3]) {
      const run = await runModel(
        { mode: 'lsh', n: 5, m, seed: 't' },
        signed,
        communities.slice(0, 10),
        {
          k: 1,
          s: 1,
        },
      );
      expect(summarise(run.scores).top1).toBe(1);
    }
  });
});
