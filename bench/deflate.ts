/**
 * npm run bench:deflate — what deflating a profile saves on the wire (src/net/query-deflate.ts):
 * for the corpus's query and community profiles (`npm run data` first), the bytes of each
 * profile's CBOR, as a query sends it (deflated where that is shorter), and with brotli for comparison; and the CPU µs
 * to encode and deflate one, and to inflate one (the mean over every profile, in the least
 * of 7 passes after a warm-up).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { brotliCompressSync, constants, inflateRawSync } from 'node:zlib';
import { encode } from 'cborg';
import { deflateProfile } from '../src/net/query-deflate.ts';
import { profileToWire, type WireProfile } from '../src/net/wire-profile.ts';
import { parseProfile } from '../src/profile/parse.ts';
import { benchArgs, wholeNumber } from './args.ts';
import { DATA_DIR } from './eval/publish.ts';

const { values } = benchArgs('bench:deflate', {
  options: {
    profiles: { type: 'string', default: '200' },
    files: {
      type: 'string',
      default: 'queries-v150,communities-v150,communities-v300,queries-interests',
    },
  },
});
const LIMIT = wholeNumber('profiles', values.profiles, 1);

/** CPU µs of one call of `f`: the least of 7 timed passes after a warm-up (the GC's pauses
 * and the JIT land in some passes, not in what one call costs). */
const cpuUs = (f: () => void): number => {
  f();
  let best = Number.POSITIVE_INFINITY;
  for (let i = 0; i < 7; i++) {
    const t0 = process.cpuUsage();
    f();
    const t = process.cpuUsage(t0);
    best = Math.min(best, t.user + t.system);
  }
  return best;
};

console.log(`# bench:deflate — ${new Date().toISOString()}\n`);
console.log('| profiles | count | CBOR bytes | deflated | brotli q5 | deflate µs | inflate µs |');
console.log('|---|---|---|---|---|---|---|');
for (const file of values.files.split(',')) {
  const lines = readFileSync(join(DATA_DIR, `${file}.jsonl`), 'utf8')
    .trim()
    .split('\n');
  const wires: WireProfile[] = lines
    .slice(0, LIMIT)
    .map((l) => profileToWire(parseProfile(JSON.parse(l))));
  const plain = wires.map((w) => encode(w));
  // As sent: deflated where that is shorter, else plain.
  const maybe = wires.map((w) => deflateProfile(w));
  const sent = maybe.map((z, i) => z ?? (plain[i] as Uint8Array));
  const deflated = maybe.flatMap((z) => z ?? []);
  const brotli = plain.map((b) =>
    brotliCompressSync(b, { params: { [constants.BROTLI_PARAM_QUALITY]: 5 } }),
  );
  const mean = (xs: Uint8Array[]) => xs.reduce((s, x) => s + x.length, 0) / xs.length;
  const n = wires.length;
  const deflateUs =
    cpuUs(() => {
      for (const w of wires) deflateProfile(w);
    }) / n;
  const inflateUs =
    cpuUs(() => {
      for (const z of deflated) inflateRawSync(z, { maxOutputLength: 2 << 20 });
    }) / n;
  console.log(
    `| ${file} | ${n} | ${mean(plain).toFixed(0)} | ${mean(sent).toFixed(0)} | ${mean(brotli).toFixed(0)} | ${deflateUs.toFixed(1)} | ${inflateUs.toFixed(1)} |`,
  );
}
