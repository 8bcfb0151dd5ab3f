/**
 * `import { CidxClient } from 'cidx/client'` — the built package's subpath export — loads no
 * libp2p and no server code: a fresh process records every module it loads.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');

const SCRIPT = `
import { registerHooks } from 'node:module';
const loaded = [];
registerHooks({ load(url, context, next) { loaded.push(url); return next(url, context); } });
const m = await import('cidx/client');
const c = new m.CidxClient('127.0.0.1:7070');
console.log(JSON.stringify({ loaded, exports: Object.keys(m).sort(), url: c.url }));
`;

describe('cidx/client', () => {
  it('resolves to dist and imports no libp2p, server or Node-only module', () => {
    const entry = join(root, 'dist', 'src', 'client', 'index.js');
    if (!existsSync(entry)) throw new Error(`${entry} is missing: run npm run build first`);
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', SCRIPT], {
      cwd: root,
      encoding: 'utf8',
      timeout: 30_000,
    });
    const { loaded, exports, url } = JSON.parse(out) as {
      loaded: string[];
      exports: string[];
      url: string;
    };
    expect(exports).toEqual(['CidxClient', 'CidxHttpError', 'CidxRpcError']);
    expect(url).toBe('http://127.0.0.1:7070');
    const ours = loaded.filter((u) => u.startsWith('file:') && !u.includes('/node_modules/'));
    expect(ours.length).toBeGreaterThan(0);
    for (const u of ours) expect(u).toMatch(/\/dist\/src\/client\/[a-z-]+\.js$/);
    const packages = loaded.filter((u) => u.includes('/node_modules/'));
    expect(packages.every((u) => u.includes('/node_modules/eventsource-parser/'))).toBe(true);
    expect(loaded.filter((u) => /libp2p|@chainsafe|zod|prom-client/.test(u))).toEqual([]);
    // Nothing Node-only either: the same modules run in the web console.
    expect(loaded.filter((u) => u.startsWith('node:'))).toEqual([]);
  });
});
