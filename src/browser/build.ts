/**
 * Builds dist/browser.js (`cidx/browser`): src/browser/node.ts and everything it imports, for web
 * pages, with esbuild. The source is the one Node runs; three things differ in the bundle:
 * - src/net/platform.ts → platform.browser.ts (WebSockets and relays; no TCP, no AutoNAT, no
 *   relay server), as libp2p's own packages swap files through their `browser` fields;
 * - `node:crypto` → src/browser/shims/crypto.ts, `node:zlib` → shims/zlib.ts (none: queries go
 *   plain), `node:events` → the `events` package, the global
 *   `Buffer` → the `buffer` package: small shims instead of edits to the source, which keeps
 *   Node's native crypto on the hot paths of the simulator;
 * - packages resolve with the `browser` condition (libp2p's browser gater, user agent, …), and
 *   zod's messages are English only (src/browser/shims/zod-locales.ts).
 * The build fails when a module that has no place in a page ends up in the bundle.
 *
 * `node src/browser/build.ts [--meta <file>]` writes dist/browser.js and prints its size.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { type BuildOptions, build, type Metafile, type Plugin } from 'esbuild';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Inputs that must never reach a page: disk storage, TCP, charts, the simulator, ws servers. */
export const FORBIDDEN = [
  /node_modules\/(datastore-level|classic-level|level|abstract-level)\//,
  /node_modules\/@libp2p\/tcp\//,
  /node_modules\/vega[^/]*\//,
  /node_modules\/ws\//,
  /node_modules\/pino/,
  /^sim\//,
  /^src\/(cli|rpc)\//,
  /^src\/node\/storage\.ts$/,
  /^src\/net\/platform\.ts$/,
];

const platformSwap: Plugin = {
  name: 'cidx-platform',
  setup(b) {
    b.onResolve({ filter: /\/platform\.ts$/ }, (args) =>
      args.importer.endsWith(join('src', 'net', 'libp2p.ts'))
        ? { path: join(dirname(args.importer), 'platform.browser.ts') }
        : undefined,
    );
  },
};

const englishOnly: Plugin = {
  name: 'cidx-zod-english',
  setup(b) {
    b.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
      /node_modules\/zod\/v4\//.test(args.importer)
        ? { path: join(ROOT, 'src', 'browser', 'shims', 'zod-locales.ts') }
        : undefined,
    );
  },
};

export function browserBuildOptions(outfile: string): BuildOptions {
  return {
    absWorkingDir: ROOT,
    entryPoints: [join(ROOT, 'src', 'browser', 'node.ts')],
    outfile,
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    minify: true,
    sourcemap: 'linked',
    // Maps name the source files; their text would make the map five times the bundle.
    sourcesContent: false,
    metafile: true,
    legalComments: 'none',
    alias: {
      'node:crypto': join(ROOT, 'src', 'browser', 'shims', 'crypto.ts'),
      'node:events': 'events',
      'node:zlib': join(ROOT, 'src', 'browser', 'shims', 'zlib.ts'),
    },
    inject: [join(ROOT, 'src', 'browser', 'shims', 'buffer.ts')],
    plugins: [platformSwap, englishOnly],
    logLevel: 'warning',
  };
}

/** The forbidden inputs a build took in (paths relative to the project root). */
export function forbiddenInputs(meta: Metafile): string[] {
  return Object.keys(meta.inputs)
    .map((p) => relative(ROOT, join(ROOT, p)))
    .filter((p) => FORBIDDEN.some((re) => re.test(p)));
}

export async function buildBrowser(
  outfile = join(ROOT, 'dist', 'browser.js'),
): Promise<{ bytes: number; gzip: number; meta: Metafile }> {
  const result = await build(browserBuildOptions(outfile));
  const meta = result.metafile as Metafile;
  const bad = forbiddenInputs(meta);
  if (bad.length > 0)
    throw new Error(`the browser bundle took in modules it must not: ${bad.join(', ')}`);
  const code = await readFile(outfile);
  return { bytes: code.length, gzip: gzipSync(code).length, meta };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { bytes, gzip, meta } = await buildBrowser();
  // --meta <file>: esbuild's account of what went in, for size analyses (esbuild.github.io/analyze).
  const at = process.argv.indexOf('--meta');
  const metaFile = at > 0 ? process.argv[at + 1] : undefined;
  if (metaFile) await writeFile(metaFile, JSON.stringify(meta));
  const kib = (n: number) => `${(n / 1024).toFixed(0)} KiB`;
  process.stdout.write(`dist/browser.js: ${kib(bytes)} (${kib(gzip)} gzipped)\n`);
}
