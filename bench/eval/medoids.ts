/**
 * npm run eval:medoids — thesis §5.3.2: the level-1 stand-in. k-medoids over Jaccard (k = 7,
 * built by npm run data) gives each user a medoid, i.e. the community the user belongs to; a
 * search "succeeds" when the user shares at least one LSH identifier with it (tables 5.1, 5.2).
 * Also, as §5.3.2.3–4: random profiles of the same sizes (how often they hit a medoid by chance)
 * and medoids altered progressively (how long the original is still found).
 *
 * Usage: npm run eval:medoids
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Rng } from '../../sim/random.ts';
import { lshIdentifierWords } from '../../src/keys/lsh.ts';
import { Profile } from '../../src/profile/profile.ts';
import { jaccard } from '../../src/profile/similarity.ts';
import {
  DATA_DIR,
  loadProfiles,
  pct,
  table,
  writeChart,
  writeJson,
  writeSection,
} from './publish.ts';

const FAMILIES = ['oph', 'thesis'] as const;
const CONFIGS = [15, 20].flatMap((n) => [1, 2, 3].map((m) => ({ n, m })));
const KEEP = [0.9, 0.7, 0.5, 0.3, 0.2, 0.1];
const ALTERED_PER_MEDOID = 100;
/** Thesis tables 5.1 / 5.2: success rate finding one's own medoid. */
const THESIS: Record<string, number> = {
  'n=15 m=1': 0.9955,
  'n=15 m=2': 0.6187,
  'n=15 m=3': 0.4526,
  'n=20 m=1': 0.9877,
  'n=20 m=2': 0.7954,
  'n=20 m=3': 0.4726,
};

const t0 = Date.now();
const users = loadProfiles('users-v150.jsonl');
const byId = new Map(users.map((u) => [u.id, u.profile]));
const clusters = JSON.parse(readFileSync(join(DATA_DIR, 'clusters.json'), 'utf8')) as {
  k: number;
  meanUserMedoidJaccard: number;
  clusters: { medoid: string; size: number }[];
  assignment: Record<string, number>;
};
const medoidIds = clusters.clusters.map((c) => c.medoid);
const medoidSet = new Set(medoidIds);
const members = users.filter((u) => !medoidSet.has(u.id));
const medoidOf = (id: string) =>
  byId.get(medoidIds[clusters.assignment[id] as number] as string) as Profile;
const vocabulary = [...new Set(users.flatMap((u) => [...u.profile.attributes()]))].sort();
const rng = new Rng(532, 'medoids');

function randomProfile(size: number): Profile {
  const w = new Map<string, number>();
  while (w.size < size) w.set(vocabulary[rng.below(vocabulary.length)] as string, 1);
  return Profile.fromTrusted(w);
}
function altered(p: Profile, keep: number): Profile {
  const attrs = [...p.attributes()];
  const kept = new Set(rng.sample(attrs, Math.round(keep * attrs.length)));
  const w = new Map<string, number>();
  for (const a of kept) w.set(a, 1);
  while (w.size < attrs.length) {
    const t = vocabulary[rng.below(vocabulary.length)] as string;
    if (!p.has(t)) w.set(t, 1);
  }
  return Profile.fromTrusted(w);
}

const randoms = members.map((u) => ({ id: u.id, profile: randomProfile(u.profile.size) }));
const alteredSets = KEEP.map((keep) => ({
  keep,
  pairs: medoidIds.flatMap((id) => {
    const m = byId.get(id) as Profile;
    return Array.from({ length: ALTERED_PER_MEDOID }, () => ({
      medoid: m,
      probe: altered(m, keep),
    }));
  }),
}));

function shares(
  a: Profile,
  b: Profile,
  params: { n: number; m: number; seed: string; family: string },
): boolean {
  const x = lshIdentifierWords(a, params).ids;
  const y = lshIdentifierWords(b, params).ids;
  for (let i = 0; i < 2 * params.n; i += 2) if (x[i] === y[i] && x[i + 1] === y[i + 1]) return true;
  return false;
}
const theory = (js: number[], n: number, m: number) =>
  js.reduce((s, j) => s + 1 - (1 - j ** m) ** n, 0) / js.length;

interface Cell {
  family: string;
  config: string;
  n: number;
  m: number;
  own: number;
  ownTheory: number;
  random: number;
  randomMeanJaccard: number;
  altered: { keep: number; meanJaccard: number; found: number; theory: number }[];
}
const cells: Cell[] = [];
const ownJ = members.map((u) => jaccard(u.profile, medoidOf(u.id)));
const randJ = randoms.map((r) => jaccard(r.profile, medoidOf(r.id)));
for (const family of FAMILIES) {
  for (const { n, m } of CONFIGS) {
    const params = { n, m, seed: 'cidx-eval-medoids', family };
    const own = members.filter((u) => shares(u.profile, medoidOf(u.id), params)).length;
    const random = randoms.filter((r) => shares(r.profile, medoidOf(r.id), params)).length;
    cells.push({
      family,
      config: `n=${n} m=${m}`,
      n,
      m,
      own: own / members.length,
      ownTheory: theory(ownJ, n, m),
      random: random / randoms.length,
      randomMeanJaccard: randJ.reduce((s, x) => s + x, 0) / randJ.length,
      altered: alteredSets.map(({ keep, pairs }) => {
        const js = pairs.map((p) => jaccard(p.medoid, p.probe));
        return {
          keep,
          meanJaccard: js.reduce((s, x) => s + x, 0) / js.length,
          found: pairs.filter((p) => shares(p.probe, p.medoid, params)).length / pairs.length,
          theory: theory(js, n, m),
        };
      }),
    });
  }
  process.stderr.write(`[${((Date.now() - t0) / 1000).toFixed(0)} s] ${family}\n`);
}
writeJson('medoids', { k: clusters.k, members: members.length, cells });

const meanOwnJ = ownJ.reduce((s, x) => s + x, 0) / ownJ.length;
const parts: string[] = [];
parts.push(
  `${members.length} users, ${clusters.k} clusters (sizes ${clusters.clusters.map((c) => c.size).join(', ')}); ` +
    `mean user–medoid Jaccard ${meanOwnJ.toFixed(3)} (thesis: 0.324 on PubMed). Success = the user ` +
    `shares at least one identifier with its own medoid; theory = mean of 1 − (1 − J^m)^n over the users.\n\n` +
    table(
      [
        'n, m',
        ...FAMILIES.map((f) => `${f}`),
        'theory',
        'thesis (PubMed)',
        'random profiles (oph)',
      ],
      CONFIGS.map(({ n, m }) => {
        const c = (f: string) =>
          cells.find((x) => x.family === f && x.n === n && x.m === m) as Cell;
        return [
          `n=${n} m=${m}`,
          ...FAMILIES.map((f) => pct(c(f).own)),
          pct(c('oph').ownTheory),
          pct(THESIS[`n=${n} m=${m}`] as number),
          pct(c('oph').random),
        ];
      }),
    ),
);
const oph = cells.filter((c) => c.family === 'oph');
parts.push(
  `Random profiles have mean Jaccard ${(oph[0] as Cell).randomMeanJaccard.toFixed(4)} with the medoids. ` +
    `Altered medoids (${ALTERED_PER_MEDOID} per medoid and level, oph): share still finding the original.\n\n` +
    table(
      ['kept terms', 'Jaccard', ...CONFIGS.map(({ n, m }) => `n=${n} m=${m}`)],
      KEEP.map((keep, i) => [
        pct(keep, 0),
        ((oph[0] as Cell).altered[i]?.meanJaccard ?? 0).toFixed(3),
        ...oph.map((c) => {
          const a = c.altered[i] as Cell['altered'][number];
          return `${pct(a.found, 1)} (${pct(a.theory, 1)})`;
        }),
      ]),
    ),
);
const chart = await writeChart('medoids', {
  $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
  data: {
    values: CONFIGS.flatMap(({ n, m }) => {
      const config = `n=${n} m=${m}`;
      const rows = FAMILIES.map((f) => ({
        config,
        source: `cidx ${f}`,
        rate: (cells.find((c) => c.family === f && c.config === config) as Cell).own,
      }));
      return [...rows, { config, source: 'thesis (PubMed)', rate: THESIS[config] as number }];
    }),
  },
  width: 360,
  height: 200,
  mark: 'bar',
  encoding: {
    x: { field: 'config', type: 'nominal', title: null },
    xOffset: { field: 'source' },
    y: {
      field: 'rate',
      type: 'quantitative',
      title: 'finds its own medoid',
      axis: { format: '%' },
    },
    color: { field: 'source', type: 'nominal', title: null },
  },
});
parts.push(`![own-medoid success by n, m](${chart})`);
parts.push(
  `Regenerate with \`npm run eval:medoids\` (≈ ${Math.round((Date.now() - t0) / 1000)} s).`,
);
writeSection('medoids', parts.join('\n\n'));
