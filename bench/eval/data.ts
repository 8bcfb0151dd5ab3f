/**
 * npm run data — builds the evaluation data set from the SpamAssassin ham corpus with the
 * project's own profile builder, deterministically (same bytes on every run; manifest.json lists
 * each file's SHA-256). Output in data/ (not committed):
 *
 *   users-v150.jsonl, users-v300.jsonl   weighted vectors of the top 150 / 300 terms
 *   users-m150.jsonl                     adjacency matrices over the top 150 terms
 *   interests.jsonl                      connected components (minFreq 0.25, minSize 20)
 *   communities-*.jsonl, queries-*.jsonl the §5.4 split: 300 users stored as communities, the rest
 *                                        query (interests follow their user)
 *   medoids.jsonl, clusters.json         the level-1 stand-in: k-medoids over Jaccard (k = 7)
 *   manifest.json                        corpus, integrity, parameters, counts, file digests
 *
 * Usage: npm run data [-- --out data]
 */
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { Rng } from '../../sim/random.ts';
import { buildProfile } from '../../src/profile/build.ts';
import { interests } from '../../src/profile/interests.ts';
import type { Profile } from '../../src/profile/profile.ts';
import { jaccard, similarity } from '../../src/profile/similarity.ts';
import { CORPUS, fetchCorpus, readUsers } from './corpus.ts';
import { kMedoids } from './kmedoids.ts';

/** Parameters of the data set; changing one changes every downstream number. */
export const DATA_PARAMS = {
  seed: 2009,
  /** Users with fewer distinct terms are left out: too little text to describe an interest. */
  minTerms: 20,
  communities: 300,
  clusters: 7,
  interests: { minFreq: 0.25, minSize: 20 },
} as const;

const { values } = parseArgs({ options: { out: { type: 'string', default: 'data' } } });
const out = resolve(values.out);
mkdirSync(out, { recursive: true });

const t0 = Date.now();
const log = (s: string) =>
  process.stderr.write(`[${((Date.now() - t0) / 1000).toFixed(1)} s] ${s}\n`);

log(`fetching ${CORPUS.name}@${CORPUS.version}`);
const dataDir = fetchCorpus(join(out, '.cache'));
const allUsers = await readUsers(dataDir);
log(`${allUsers.length} senders, ${allUsers.reduce((s, u) => s + u.docs.length, 0)} messages`);

interface Built {
  id: string;
  docs: number;
  lists: string[];
  v150: Profile;
  v300: Profile;
  m150: Profile;
}
const users: Built[] = [];
// English analysis for every message, as the thesis did (§5.2): language detection would take
// some messages (quoted code, signatures, the odd foreign mail) for another language and change
// the data set every published number rests on.
for (const u of allUsers) {
  const b150 = buildProfile(u.docs, { top: 150, lang: 'en' });
  if (b150.distinctTerms < DATA_PARAMS.minTerms) continue;
  const b300 = buildProfile(u.docs, { top: 300, lang: 'en' });
  users.push({
    id: `user-${String(users.length).padStart(4, '0')}`,
    docs: u.docs.length,
    lists: [...new Set(u.lists)].sort(),
    v150: b150.vector,
    v300: b300.vector,
    m150: b150.matrix,
  });
}
log(`${users.length} users with at least ${DATA_PARAMS.minTerms} terms`);

const files: Record<string, string> = {};
function write(name: string, text: string): void {
  writeFileSync(join(out, name), text);
  files[name] = createHash('sha256').update(text).digest('hex');
}
const lines = (rows: { id: string; p: Profile }[]) =>
  `${rows.map(({ id, p }) => JSON.stringify({ id, ...p.toJSON() })).join('\n')}\n`;

for (const kind of ['v150', 'v300', 'm150'] as const) {
  write(`users-${kind}.jsonl`, lines(users.map((u) => ({ id: u.id, p: u[kind] }))));
}
const interestRows = users.flatMap((u) =>
  interests(u.m150, DATA_PARAMS.interests).map((p, i) => ({ id: `${u.id}/i${i}`, p })),
);
write('interests.jsonl', lines(interestRows));
log(`${interestRows.length} interests`);

// §5.4 split: a seeded sample of users are the stored communities, every other user queries.
const rng = new Rng(DATA_PARAMS.seed, 'split');
const communityIdx = new Set(
  rng.sample(
    users.map((_, i) => i),
    DATA_PARAMS.communities,
  ),
);
for (const kind of ['v150', 'v300', 'm150'] as const) {
  const pick = (inside: boolean) =>
    users.filter((_, i) => communityIdx.has(i) === inside).map((u) => ({ id: u.id, p: u[kind] }));
  write(`communities-${kind}.jsonl`, lines(pick(true)));
  write(`queries-${kind}.jsonl`, lines(pick(false)));
}
// Interests follow their user: stored when the user is one of the communities, else searched.
const storedUsers = new Set(users.filter((_, i) => communityIdx.has(i)).map((u) => u.id));
const ownerOf = (id: string) => id.slice(0, id.indexOf('/'));
write(
  'communities-interests.jsonl',
  lines(interestRows.filter((r) => storedUsers.has(ownerOf(r.id)))),
);
write(
  'queries-interests.jsonl',
  lines(interestRows.filter((r) => !storedUsers.has(ownerOf(r.id)))),
);

// Level-1 stand-in: k-medoids over Jaccard distance on the 150-term vectors.
const n = users.length;
const d = new Float64Array(n * n);
for (let i = 0; i < n; i++) {
  for (let j = i + 1; j < n; j++) {
    const v = 1 - jaccard(users[i]?.v150 as Profile, users[j]?.v150 as Profile);
    d[i * n + j] = v;
    d[j * n + i] = v;
  }
}
const crng = new Rng(DATA_PARAMS.seed, 'kmedoids');
const clustering = kMedoids(
  n,
  DATA_PARAMS.clusters,
  (i, j) => d[i * n + j] as number,
  () => crng.next(),
);
const medoidOf = (i: number) =>
  users[clustering.medoids[clustering.assignment[i] as number] as number] as Built;
let jSum = 0;
let sSum = 0;
users.forEach((u, i) => {
  jSum += jaccard(u.v150, medoidOf(i).v150);
  sSum += similarity(u.v150, medoidOf(i).v150);
});
const clusters = clustering.medoids.map((m, c) => {
  const members = users.filter((_, i) => clustering.assignment[i] === c);
  const lists = new Map<string, number>();
  for (const u of members) for (const l of u.lists) lists.set(l, (lists.get(l) ?? 0) + 1);
  return {
    medoid: users[m]?.id,
    size: members.length,
    topTerms: [...(users[m]?.v150.weights.keys() ?? [])].slice(0, 8),
    lists: [...lists]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 3)
      .map(([l, c]) => `${l} (${c})`),
  };
});
write(
  'medoids.jsonl',
  lines(
    clustering.medoids.map((m) => ({ id: users[m]?.id as string, p: users[m]?.v150 as Profile })),
  ),
);
write(
  'clusters.json',
  `${JSON.stringify(
    {
      k: DATA_PARAMS.clusters,
      iterations: clustering.iterations,
      meanUserMedoidJaccard: jSum / n,
      meanUserMedoidSimilarity: sSum / n,
      clusters,
      assignment: Object.fromEntries(users.map((u, i) => [u.id, clustering.assignment[i]])),
    },
    null,
    1,
  )}\n`,
);
log(
  `k-medoids: ${clustering.iterations} iterations, mean user–medoid Jaccard ${(jSum / n).toFixed(3)}`,
);

const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
const manifest = {
  corpus: {
    ...CORPUS,
    senders: allUsers.length,
    messages: allUsers.reduce((s, u) => s + u.docs.length, 0),
  },
  params: DATA_PARAMS,
  users: users.length,
  interests: interestRows.length,
  meanTerms: {
    v150: mean(users.map((u) => u.v150.size)),
    v300: mean(users.map((u) => u.v300.size)),
    m150Relations: mean(users.map((u) => u.m150.relations.length)),
  },
  files,
};
writeFileSync(join(out, 'manifest.json'), `${JSON.stringify(manifest, null, 1)}\n`);
log(`wrote ${Object.keys(files).length} files to ${out}`);
