/**
 * npm run bench:lsh — cost and quality of every LSH family, in one run on the same profiles.
 *
 *  1. µs per profile (|P| ∈ {150, 300}, n = 20, m ∈ {1, 5}) for the bit-by-bit reference of
 *     algorithms 4.2–4.4, every family, and bloom-filters' MinHash with n·m hash functions.
 *  2. Each family's collision table (thesis figs 5.6–5.11): rate of ≥ 1 shared band key for
 *     pairs of 150-attribute sets of known Jaccard s, against 1 − (1 − s^m)^n.
 *  3. The same with raw small integers as inputs (no robust hash): where linearity shows.
 *  4. RMSE of each family's Jaccard estimate (fraction of equal minima, n·m = 100).
 *
 * Options: --quick (fewer pairs and shorter timings, for a smoke run); --only <section>, one of
 * timings, collisions, raw, rmse. Run with --expose-gc (the npm script does) so that every timed
 * task starts from a collected heap.
 */
import { cpus } from 'node:os';
import bloomFilters from 'bloom-filters';
import { Bench } from 'tinybench';
import { indexKeys } from '../src/index.ts';
import { hashAttributes } from '../src/keys/attribute-hash.ts';
import { bandIdentifiers, estimateJaccard, lshFamily } from '../src/keys/lsh.ts';
import { FAMILIES, lshParamsDigest, resolveLshParams } from '../src/keys/params.ts';
import { SeededStream } from '../src/keys/random.ts';
import { generateSchemes } from '../src/keys/thesis.ts';
import { hex } from '../src/util/bytes.ts';
import { computeIdentifiers } from '../test/reference/thesis-reference.ts';
import { bandCollisionProbability, type JaccardPair, jaccardPairs } from '../test/support/pairs.ts';
import { benchArgs } from './args.ts';

const { MinHashFactory } = bloomFilters;
const SECTIONS = ['timings', 'collisions', 'raw', 'rmse'];
const { values: flags } = benchArgs(
  'bench:lsh',
  { options: { quick: { type: 'boolean', default: false }, only: { type: 'string' } } },
  `  --only: one section of ${SECTIONS.join(', ')}`,
);
const quick = flags.quick;
const only = flags.only;
if (only !== undefined && !SECTIONS.includes(only)) {
  console.error(`--only: one of ${SECTIONS.join(', ')}, not "${only}"`);
  process.exit(2);
}
const gc = (globalThis as { gc?: () => void }).gc;
const SEED = 'bench-lsh';
const PAIRS = quick ? 200 : 1000;
const TIME_MS = quick ? 150 : 800;

function header(): void {
  console.log(`# bench:lsh — ${new Date().toISOString()}`);
  console.log(
    `node ${process.version}, ${cpus()[0]?.model ?? 'unknown CPU'} × ${cpus().length}, ` +
      `${quick ? 'quick' : 'full'} run, ${PAIRS} pairs per point\n`,
  );
}

/** Random attribute lists: 16-hex-digit strings from a seeded stream. */
function attributeLists(count: number, size: number, label: string): string[][] {
  const rng = new SeededStream('bench/attrs', `${label}/${size}`);
  const hex = () => rng.nextUint32().toString(16).padStart(8, '0') + rng.nextUint32().toString(16);
  return Array.from({ length: count }, () => Array.from({ length: size }, hex));
}

async function timings(): Promise<void> {
  console.log('## µs per profile (median of timed calls; n = 20)\n');
  console.log(
    'Each row computes the n identifiers of one profile from its attribute strings (robust hash ' +
      'included) unless it says otherwise. bloom-filters gets numbers (it cannot hash strings).\n',
  );
  const rows: string[][] = [];
  for (const size of [150, 300]) {
    const lists = attributeLists(64, size, 'time');
    const hashed = lists.map((l) => hashAttributes(l, l.length));
    for (const m of [1, 5]) {
      const n = 20;
      // Medians, not means: a GC pause inside one call says little about the hashing scheme.
      const bench = new Bench({
        time: TIME_MS,
        warmup: true,
        warmupTime: 200,
        setup: () => gc?.(),
      });
      let i = 0;
      const next = () => i++ % lists.length;
      bench.add('robust hash only (xxHash64)', () => {
        const l = lists[next()] as string[];
        hashAttributes(l, l.length);
      });
      for (const family of FAMILIES) {
        const { family: f } = lshFamily({ n, m, seed: SEED, family });
        const out = new Uint32Array(2 * n * m);
        bench.add(`${family}${family === 'thesis' ? ' (compiled)' : ''}`, () => {
          const l = lists[next()] as string[];
          f.minima(hashAttributes(l, l.length), l.length, out);
          bandIdentifiers(out, n, m);
        });
        bench.add(`${family}, hashes precomputed`, () => {
          const k = next();
          f.minima(hashed[k] as Uint32Array, size, out);
          bandIdentifiers(out, n, m);
        });
      }
      // bloom-filters' MinHash: linear hashes (a·x + b) mod c on numbers < maxValue. 2^26 keeps
      // a·x below 2^53 (exact in doubles); its coefficients come from Math.random.
      const factory = new MinHashFactory(n * m, 2 ** 26);
      const numbers = hashed.map((h) =>
        Array.from({ length: size }, (_, k) => (h[2 * k + 1] as number) % 2 ** 26),
      );
      bench.add('bloom-filters MinHash, numbers precomputed', () => {
        factory.create().bulkLoad(numbers[next()] as number[]);
      });
      // The bit-by-bit reference is ~10^4× slower: a few profiles suffice.
      const params = resolveLshParams({ n, m, seed: SEED, family: 'thesis' });
      const hex = Buffer.from(lshParamsDigest(params)).toString('hex');
      const schemes = generateSchemes(n, m, 64, new SeededStream('cidx/lsh/thesis', hex));
      const bigHashes = hashed.map((h) =>
        Array.from(
          { length: size },
          (_, k) => (BigInt(h[2 * k] as number) << 32n) | BigInt(h[2 * k + 1] as number),
        ),
      );
      const ref = new Bench({ time: 0, iterations: quick ? 2 : 6, warmup: false });
      ref.add('thesis, bit-by-bit reference (algs 4.2–4.4), hashes precomputed', () => {
        computeIdentifiers(bigHashes[next()] as bigint[], schemes, 64);
      });
      await bench.run();
      await ref.run();
      for (const t of [...bench.tasks, ...ref.tasks]) {
        const r = t.result;
        const done = r.state === 'completed';
        const median = done ? r.latency.p50 * 1000 : Number.NaN;
        const mean = done ? r.latency.mean * 1000 : Number.NaN;
        rows.push([String(size), String(m), String(n * m), t.name, fmt(median), fmt(mean)]);
      }
    }
  }
  table(['\\|P\\|', 'm', 'n·m', 'implementation', 'median µs', 'mean µs'], rows);
}

function collisionTables(): void {
  console.log('## Collision tables: rate of ≥ 1 shared band key, measured (theory)\n');
  console.log(
    `150 hashed string attributes per set; ${PAIRS} pairs per cell; theory 1 − (1 − s^m)^n.\n`,
  );
  const levels = [0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2];
  const combos = [15, 20].flatMap((n) => [1, 2, 3].map((m) => ({ n, m })));
  for (const family of FAMILIES) {
    const { rows, worst } = collisionRows(family, 150, levels, combos);
    console.log(`### ${family} — largest |measured − theory| = ${worst.toFixed(3)}\n`);
    table(['J', ...combos.map(({ n, m }) => `n=${n} m=${m}`)], rows);
  }
  console.log('## Small sets: 20 attributes per set (interests of minSize 20), n = 20\n');
  console.log(
    'With n·m bins and only ~20–40 attributes, most oph bins are filled by densification.\n',
  );
  const small = [1, 2, 3, 5].map((m) => ({ n: 20, m }));
  for (const family of FAMILIES) {
    const { rows, worst } = collisionRows(family, 20, [0.8, 0.6, 0.4, 0.2], small);
    console.log(`### ${family}, |P| = 20 — largest |measured − theory| = ${worst.toFixed(3)}\n`);
    table(['J', ...small.map(({ n, m }) => `n=${n} m=${m}`)], rows);
  }
}

function collisionRows(
  family: string,
  size: number,
  levels: number[],
  combos: { n: number; m: number }[],
): { rows: string[][]; worst: number } {
  const rows: string[][] = [];
  let worst = 0;
  for (const s of levels) {
    const pairs = jaccardPairs('hashed', size, s, PAIRS, 'bench-collision');
    const j = (pairs[0] as JaccardPair).jaccard;
    const row = [j.toFixed(3)];
    for (const { n, m } of combos) {
      const params = { mode: 'lsh' as const, n, m, seed: SEED, family };
      let hit = 0;
      for (const { a, b } of pairs) {
        const ka = new Set(indexKeys(a, params).map(hex));
        if (indexKeys(b, params).some((k) => ka.has(hex(k)))) hit++;
      }
      const rate = hit / pairs.length;
      const theory = bandCollisionProbability(j, n, m);
      worst = Math.max(worst, Math.abs(rate - theory));
      row.push(`${rate.toFixed(3)} (${theory.toFixed(3)})`);
    }
    rows.push(row);
  }
  return { rows, worst };
}

function rawIntegerTable(): void {
  console.log('## Raw consecutive integers as inputs (no robust hash), n = 20\n');
  console.log(
    'Sets are windows of consecutive integers fed to the families unhashed. Bit permutations keep ' +
      'the number of set bits, so the minimum favours low-popcount integers whatever the permutation: ' +
      'this shows why algorithm 4.2 hashes every attribute first.\n',
  );
  const levels = [0.8, 0.6, 0.4, 0.2];
  const rows: string[][] = [];
  const rng = new SeededStream('bench/raw', SEED);
  for (const family of FAMILIES) {
    for (const m of [1, 2, 3]) {
      const { family: f } = lshFamily({ n: 20, m, seed: SEED, family });
      const row = [family, String(m)];
      for (const s of levels) {
        const r = Math.round((150 * (1 - s)) / (1 + s));
        const j = (150 - r) / (150 + r);
        let hit = 0;
        for (let p = 0; p < PAIRS; p++) {
          const off = rng.below(1_000_000);
          const ids = [0, r].map((shift) => {
            const h = new Uint32Array(300);
            for (let k = 0; k < 150; k++) h[2 * k + 1] = off + shift + k + 1;
            const out = new Uint32Array(2 * 20 * m);
            f.minima(h, 150, out);
            return bandIdentifiers(out, 20, m);
          }) as [Uint32Array, Uint32Array];
          let shared = false;
          for (let i = 0; i < 40; i += 2) {
            if (ids[0][i] === ids[1][i] && ids[0][i + 1] === ids[1][i + 1]) shared = true;
          }
          if (shared) hit++;
        }
        row.push(`${(hit / PAIRS).toFixed(3)} (${bandCollisionProbability(j, 20, m).toFixed(3)})`);
      }
      rows.push(row);
    }
  }
  table(['family', 'm', ...levels.map((s) => `s≈${s}`)], rows);
}

function rmseTable(): void {
  console.log('## Jaccard estimate: RMSE with n·m = 100 functions (n = 20, m = 5)\n');
  console.log('Estimate = fraction of equal minima; independent min-hash gives √(J(1 − J)/100).\n');
  const levels = [0.8, 0.6, 0.4, 0.2];
  const rows: string[][] = [];
  const bf = new MinHashFactory(100, 2 ** 26);
  const pairsAt = levels.map((s) => jaccardPairs('hashed', 150, s, PAIRS / 2, 'bench-rmse'));
  for (const family of [...FAMILIES, 'bloom-filters']) {
    const row = [family];
    const errs: number[] = [];
    for (const pairs of pairsAt) {
      let se = 0;
      for (const { a, b, jaccard } of pairs) {
        let est: number;
        if (family === 'bloom-filters') {
          const [sa, sb] = [a, b].map((p) => {
            const mh = bf.create();
            const h = hashAttributes(p.attributes(), p.size);
            mh.bulkLoad(
              Array.from({ length: p.size }, (_, k) => (h[2 * k + 1] as number) % 2 ** 26),
            );
            return mh;
          }) as [ReturnType<typeof bf.create>, ReturnType<typeof bf.create>];
          est = sa.compareWith(sb);
        } else {
          const { family: f } = lshFamily({ n: 20, m: 5, seed: SEED, family });
          const [sa, sb] = [a, b].map((p) => {
            const out = new Uint32Array(200);
            f.minima(hashAttributes(p.attributes(), p.size), p.size, out);
            return out;
          }) as [Uint32Array, Uint32Array];
          est = estimateJaccard(sa, sb);
        }
        se += (est - jaccard) ** 2;
        errs.push((est - jaccard) ** 2);
      }
      row.push(Math.sqrt(se / pairs.length).toFixed(4));
    }
    row.push(Math.sqrt(errs.reduce((s, e) => s + e, 0) / errs.length).toFixed(4));
    rows.push(row);
  }
  const theory = pairsAt.map((pairs) => {
    const j = (pairs[0] as JaccardPair).jaccard;
    return Math.sqrt((j * (1 - j)) / 100).toFixed(4);
  });
  rows.push(['independent min-hash (theory)', ...theory, '']);
  table(['family', ...levels.map((s) => `J≈${s}`), 'all'], rows);
}

function table(head: string[], rows: string[][]): void {
  console.log(`| ${head.join(' | ')} |`);
  console.log(`|${head.map(() => '---').join('|')}|`);
  for (const r of rows) console.log(`| ${r.join(' | ')} |`);
  console.log('');
}

function fmt(us: number): string {
  return us.toFixed(us < 100 ? 1 : 0);
}

header();
if (only === undefined || only === 'timings') await timings();
if (only === undefined || only === 'collisions') collisionTables();
if (only === undefined || only === 'raw') rawIntegerTable();
if (only === undefined || only === 'rmse') rmseTable();
