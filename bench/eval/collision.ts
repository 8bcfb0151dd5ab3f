/**
 * npm run eval:collision — thesis §5.3.1: does the share of profile pairs with at least one
 * common LSH identifier follow 1 − (1 − s^m)^n? Each corpus user's 150-term vector is altered to
 * known Jaccard similarities s (r of its terms replaced by corpus terms it lacks, so
 * s = (N − r)/(N + r)); for every LSH family and n ∈ {15, 20}, m ∈ {1, 2, 3} the share of
 * (original, altered) pairs sharing an identifier is measured next to the theory for the pairs'
 * exact similarities.
 *
 * Usage: npm run eval:collision
 */

import { Rng } from '../../sim/random.ts';
import { lshIdentifierWords } from '../../src/keys/lsh.ts';
import { FAMILIES } from '../../src/keys/params.ts';
import { Profile } from '../../src/profile/profile.ts';
import { jaccard } from '../../src/profile/similarity.ts';
import { loadProfiles, pct, table, writeChart, writeJson, writeSection } from './publish.ts';

const LEVELS = [0.91, 0.82, 0.74, 0.67, 0.59, 0.5, 0.43, 0.33, 0.25, 0.18];
const CONFIGS = [15, 20].flatMap((n) => [1, 2, 3].map((m) => ({ n, m })));
/** Too few terms cannot be altered to every level with a sensible rounding error. */
const MIN_TERMS = 40;

const t0 = Date.now();
const users = loadProfiles('users-v150.jsonl').filter((u) => u.profile.size >= MIN_TERMS);
const vocabulary = [...new Set(users.flatMap((u) => [...u.profile.attributes()]))].sort();
const rng = new Rng(531, 'alter');

/** B from A with r terms swapped for terms A lacks: Jaccard exactly (N − r)/(N + r). */
function alter(a: Profile, s: number): Profile {
  const attrs = [...a.attributes()];
  const r = Math.round((attrs.length * (1 - s)) / (1 + s));
  const drop = new Set(rng.sample(attrs, r));
  const weights = new Map<string, number>();
  for (const x of attrs) if (!drop.has(x)) weights.set(x, a.weights.get(x) as number);
  while (weights.size < attrs.length) {
    const t = vocabulary[rng.below(vocabulary.length)] as string;
    if (!a.has(t)) weights.set(t, 1);
  }
  return Profile.fromTrusted(weights);
}

const pairs = LEVELS.flatMap((level) =>
  users.map((u) => {
    const b = alter(u.profile, level);
    return { level, a: u.profile, b, j: jaccard(u.profile, b) };
  }),
);

interface Point {
  family: string;
  n: number;
  m: number;
  level: number;
  meanJaccard: number;
  measured: number;
  theory: number;
}
const points: Point[] = [];
for (const family of FAMILIES) {
  for (const { n, m } of CONFIGS) {
    const params = { n, m, seed: 'cidx-eval-collision', family };
    for (const level of LEVELS) {
      const at = pairs.filter((p) => p.level === level);
      let shared = 0;
      let theory = 0;
      for (const { a, b, j } of at) {
        const x = lshIdentifierWords(a, params).ids;
        const y = lshIdentifierWords(b, params).ids;
        let hit = false;
        for (let i = 0; i < 2 * n && !hit; i += 2) hit = x[i] === y[i] && x[i + 1] === y[i + 1];
        if (hit) shared++;
        theory += 1 - (1 - j ** m) ** n;
      }
      points.push({
        family,
        n,
        m,
        level,
        meanJaccard: at.reduce((s, p) => s + p.j, 0) / at.length,
        measured: shared / at.length,
        theory: theory / at.length,
      });
    }
  }
  process.stderr.write(`[${((Date.now() - t0) / 1000).toFixed(0)} s] ${family}\n`);
}
writeJson('collision', { users: users.length, levels: LEVELS, points });

const sections: string[] = [];
for (const family of FAMILIES) {
  const ps = points.filter((p) => p.family === family);
  const worst = ps.reduce((w, p) => Math.max(w, Math.abs(p.measured - p.theory)), 0);
  const rmse = Math.sqrt(ps.reduce((s, p) => s + (p.measured - p.theory) ** 2, 0) / ps.length);
  sections.push(
    `**${family}** — largest |measured − theory| ${pct(worst, 1)}, RMS ${pct(rmse, 1)}.\n\n` +
      table(
        ['s', ...CONFIGS.map(({ n, m }) => `n=${n} m=${m}`)],
        LEVELS.map((level) => [
          (ps.find((p) => p.level === level)?.meanJaccard ?? level).toFixed(3),
          ...CONFIGS.map(({ n, m }) => {
            const p = ps.find((q) => q.level === level && q.n === n && q.m === m) as Point;
            return `${pct(p.measured, 1)} (${pct(p.theory, 1)})`;
          }),
        ]),
      ),
  );
}
const chart = await writeChart('collision', {
  $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
  data: {
    values: points.filter((p) => p.n === 20).map((p) => ({ ...p, config: `n=${p.n} m=${p.m}` })),
  },
  facet: { column: { field: 'family', type: 'nominal', title: null } },
  spec: {
    width: 200,
    height: 180,
    layer: [
      {
        mark: { type: 'line', strokeDash: [4, 3] },
        encoding: {
          x: { field: 'meanJaccard', type: 'quantitative', title: 'Jaccard similarity s' },
          y: { field: 'theory', type: 'quantitative', title: 'pairs sharing an identifier' },
          color: { field: 'config', type: 'nominal', title: null },
        },
      },
      {
        mark: { type: 'point', filled: true },
        encoding: {
          x: { field: 'meanJaccard', type: 'quantitative' },
          y: { field: 'measured', type: 'quantitative', axis: { format: '%' } },
          color: { field: 'config', type: 'nominal' },
        },
      },
    ],
  },
});
writeSection(
  'collision',
  `${users.length} corpus users (150-term vectors with at least ${MIN_TERMS} terms), each altered ` +
    `to ${LEVELS.length} similarity levels: ${users.length} pairs per cell. Cells: measured share ` +
    `of pairs with a common identifier (theory 1 − (1 − s^m)^n, averaged over the pairs' exact s).\n\n` +
    `${sections.join('\n\n')}\n\n![measured (points) against theory (dashed), n = 20](${chart})\n\n` +
    `Regenerate with \`npm run eval:collision\` (≈ ${Math.round((Date.now() - t0) / 1000)} s).`,
);
