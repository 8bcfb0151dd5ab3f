/**
 * npm run bench:profile — what the profile builder makes of non-English documents, and what it
 * costs.
 *
 *  1. The top 15 terms of a profile built from the Italian test paragraphs (one document each).
 *  2. The time to build one profile from ~1 MB of mixed text: documents of three paragraphs of
 *     one language each, the five test languages in turn, drawn from a seeded stream. Median of
 *     --runs builds (default 5) after one warm-up, wall and CPU time (CPU time is steadier on a
 *     shared machine), for automatic language detection and with the
 *     language given (`lang: 'en'` for every document: no detection, English analysis).
 *  3. Language detection on the test paragraphs and on 3-, 5- and 8-word pieces of them: how
 *     often eld's answer is right, and what detectLanguage (eld, at least 5 words, reliable
 *     answers only) makes of them: right, undetected (the fallback applies) or wrong.
 *
 * First, what loading the builder costs: the time to import it and the heap it holds after a
 * collection (run with --expose-gc, as the npm script does; otherwise the heap is not shown).
 *
 * Options: --runs N.
 */
import { cpus } from 'node:os';
import { performance } from 'node:perf_hooks';
import { SeededStream } from '../src/keys/random.ts';
import type { BuildOptions } from '../src/profile/build.ts';
import type { UserDocument } from '../src/profile/documents.ts';
import { PARAGRAPHS } from '../test/profile/fixtures/paragraphs.ts';
import { benchArgs, wholeNumber } from './args.ts';

const gc = (globalThis as { gc?: () => void }).gc;
gc?.();
const heap0 = process.memoryUsage().heapUsed;
const load0 = performance.now();
const { buildProfile } = await import('../src/profile/build.ts');
const loadMs = performance.now() - load0;
gc?.();
const heapMb = (process.memoryUsage().heapUsed - heap0) / 1e6;
const { detectLanguage } = await import('../src/profile/detect.ts');
const { eld } = await import('eld/extrasmall');

const { values: flags } = benchArgs('bench:profile', {
  options: { runs: { type: 'string', default: '5' } },
});
const RUNS = wholeNumber('runs', flags.runs, 1);
const TARGET_BYTES = 1_000_000;

function mixedDocuments(): { docs: UserDocument[]; bytes: number } {
  const rng = new SeededStream('bench/profile', 'mixed');
  const langs = Object.keys(PARAGRAPHS) as (keyof typeof PARAGRAPHS)[];
  const encoder = new TextEncoder();
  const docs: UserDocument[] = [];
  let bytes = 0;
  while (bytes < TARGET_BYTES) {
    const pool = PARAGRAPHS[langs[docs.length % langs.length] as keyof typeof PARAGRAPHS];
    const text = Array.from({ length: 3 }, () => pool[rng.below(pool.length)]).join(' ');
    docs.push({ text });
    bytes += encoder.encode(text).length;
  }
  return { docs, bytes };
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] as number;
}

/** Median wall and CPU (user + system) milliseconds of RUNS builds, after one warm-up. */
function timeBuild(
  docs: UserDocument[],
  opts: BuildOptions,
): { wall: number; cpu: number; terms: number } {
  buildProfile(docs, opts);
  const wall: number[] = [];
  const cpu: number[] = [];
  let terms = 0;
  for (let i = 0; i < RUNS; i++) {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    terms = buildProfile(docs, opts).distinctTerms;
    wall.push(performance.now() - t0);
    const c = process.cpuUsage(c0);
    cpu.push((c.user + c.system) / 1000);
  }
  return { wall: median(wall), cpu: median(cpu), terms };
}

console.log(`# bench:profile — ${new Date().toISOString()}`);
console.log(`node ${process.version}, ${cpus()[0]?.model ?? 'unknown CPU'} × ${cpus().length}\n`);

console.log(
  `Loading the builder: ${loadMs.toFixed(0)} ms` +
    (gc === undefined ? '' : `, heap +${heapMb.toFixed(1)} MB`) +
    '\n',
);

const italian = buildProfile(PARAGRAPHS.it.map((text) => ({ text })));
console.log(`## Top 15 terms, ${PARAGRAPHS.it.length} Italian paragraphs (default options)\n`);
console.log(
  [...italian.vector.weights]
    .slice(0, 15)
    .map(([t, w]) => `${t} ${w}`)
    .join(', '),
);

const { docs, bytes } = mixedDocuments();
console.log(
  `\n## Build time, ${docs.length} documents, ${(bytes / 1e6).toFixed(2)} MB of mixed text ` +
    `(it, de, es, fr, en), median of ${RUNS}\n`,
);
console.log('| options | wall ms | CPU ms | distinct terms |\n|---|---:|---:|---:|');
for (const [label, opts] of [
  ['default', {}],
  ["lang: 'en'", { lang: 'en' }],
] as [string, BuildOptions][]) {
  const r = timeBuild(docs, opts);
  console.log(`| ${label} | ${r.wall.toFixed(0)} | ${r.cpu.toFixed(0)} | ${r.terms} |`);
}

console.log('\n## Language detection on the test paragraphs and pieces of them\n');
console.log('| text | cases | eld right | detectLanguage right | undetected | wrong |');
console.log('|---|---:|---:|---:|---:|---:|');
for (const words of [3, 5, 8, 0]) {
  const cases: [string, string][] = [];
  for (const [lang, paragraphs] of Object.entries(PARAGRAPHS)) {
    for (const p of paragraphs) {
      if (words === 0) {
        cases.push([lang, p]);
        continue;
      }
      const ws = p.split(' ');
      for (let i = 0; i + words <= ws.length; i += words) {
        cases.push([lang, ws.slice(i, i + words).join(' ')]);
      }
    }
  }
  let raw = 0;
  let right = 0;
  let undetected = 0;
  for (const [lang, text] of cases) {
    if (eld.detect(text).language === lang) raw++;
    const got = detectLanguage(text);
    if (got === lang) right++;
    else if (got === undefined) undetected++;
  }
  const pct = (n: number) => `${n} (${((100 * n) / cases.length).toFixed(0)} %)`;
  console.log(
    `| ${words === 0 ? 'paragraphs' : `${words}-word pieces`} | ${cases.length} | ${pct(raw)} | ` +
      `${pct(right)} | ${pct(undetected)} | ${pct(cases.length - right - undetected)} |`,
  );
}
