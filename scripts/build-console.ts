/**
 * Builds the web console (src/console) into dist/console with esbuild: one minified ES module,
 * its stylesheet and the page. Run by `npm run build`; `--out <dir>` writes elsewhere.
 */
import { copyFileSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { build, type Plugin } from 'esbuild';

const root = join(import.meta.dirname, '..');
const src = join(root, 'src', 'console');
const outIndex = process.argv.indexOf('--out');
const out =
  outIndex === -1 ? join(root, 'dist', 'console') : (process.argv[outIndex + 1] as string);

/**
 * stopwords-iso is one JSON object of every language's list; the profile builder reads only the
 * English one, so the bundle carries that list alone.
 */
const englishStopwords: Plugin = {
  name: 'english-stopwords',
  setup(b) {
    b.onResolve({ filter: /^stopwords-iso$/ }, () => ({
      path: 'stopwords-iso-en',
      namespace: 'stopwords',
    }));
    b.onLoad({ filter: /.*/, namespace: 'stopwords' }, () => {
      const all = JSON.parse(
        readFileSync(join(root, 'node_modules', 'stopwords-iso', 'stopwords-iso.json'), 'utf8'),
      ) as Record<string, string[]>;
      return { contents: JSON.stringify({ en: all.en }), loader: 'json' };
    });
  },
};

mkdirSync(out, { recursive: true });
const result = await build({
  entryPoints: [join(src, 'main.ts')],
  outfile: join(out, 'console.js'),
  bundle: true,
  format: 'esm',
  platform: 'browser',
  target: ['es2022', 'chrome110', 'firefox115', 'safari16'],
  minify: true,
  legalComments: 'none',
  plugins: [englishStopwords],
  logLevel: 'warning',
  metafile: true,
});
copyFileSync(join(src, 'index.html'), join(out, 'index.html'));
copyFileSync(join(src, 'console.css'), join(out, 'console.css'));

// A browser bundle must not pull in Node built-ins (a server module imported by mistake).
const nodeImports = Object.keys(result.metafile.inputs).filter((p) => p.startsWith('node:'));
if (nodeImports.length > 0) throw new Error(`console bundle imports ${nodeImports.join(', ')}`);

if (process.argv.includes('--sizes')) {
  for (const f of ['console.js', 'console.css', 'index.html']) {
    const bytes = readFileSync(join(out, f));
    console.log(`${f}\t${statSync(join(out, f)).size}\t${gzipSync(bytes, { level: 9 }).length}`);
  }
}
