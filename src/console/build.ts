/**
 * Builds the web console (src/console) into dist/console with esbuild: two minified ES modules (the
 * console, and the profile builder it loads on demand), its stylesheet and the page. Run by `npm run build`; `--out <dir>` writes elsewhere.
 */
import { copyFileSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { type BuildOptions, build } from 'esbuild';

const root = join(import.meta.dirname, '..', '..');
const src = join(root, 'src', 'console');
const outIndex = process.argv.indexOf('--out');
const out = outIndex === -1 ? join(root, 'dist', 'console') : process.argv[outIndex + 1];
if (out === undefined) throw new Error('--out: a directory is needed');

mkdirSync(out, { recursive: true });
const options: BuildOptions = {
  bundle: true,
  format: 'esm',
  platform: 'browser',
  target: ['es2022', 'chrome110', 'firefox115', 'safari16'],
  minify: true,
  legalComments: 'none',
  logLevel: 'warning',
  metafile: true,
};
// Two files: the console, and the profile builder it imports the first time text is turned into
// a profile (language detection and every language's stop words and stemmers).
const results = await Promise.all([
  build({ ...options, entryPoints: [join(src, 'main.ts')], outfile: join(out, 'console.js') }),
  build({ ...options, entryPoints: [join(src, 'builder.ts')], outfile: join(out, 'builder.js') }),
]);
copyFileSync(join(src, 'index.html'), join(out, 'index.html'));
copyFileSync(join(src, 'console.css'), join(out, 'console.css'));

// A browser bundle must not pull in Node built-ins (a server module imported by mistake).
const nodeImports = results
  .flatMap((r) => Object.keys(r.metafile?.inputs ?? {}))
  .filter((p) => p.startsWith('node:'));
if (nodeImports.length > 0) throw new Error(`console bundle imports ${nodeImports.join(', ')}`);

if (process.argv.includes('--sizes')) {
  for (const f of ['console.js', 'builder.js', 'console.css', 'index.html']) {
    const bytes = readFileSync(join(out, f));
    console.log(`${f}\t${statSync(join(out, f)).size}\t${gzipSync(bytes, { level: 9 }).length}`);
  }
}
