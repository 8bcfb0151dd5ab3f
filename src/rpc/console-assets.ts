/**
 * The web console's files (built by `npm run build` into dist/console), served from memory with a
 * strict Content-Security-Policy: scripts, styles and connections from this origin only, no
 * inline code, no frames, no forms posting elsewhere.
 */
import { existsSync, readFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { join } from 'node:path';

export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "img-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const TYPES: Record<string, string> = {
  '/': 'text/html; charset=utf-8',
  '/console.js': 'text/javascript; charset=utf-8',
  '/builder.js': 'text/javascript; charset=utf-8',
  '/console.css': 'text/css; charset=utf-8',
};
const FILES: Record<string, string> = {
  '/': 'index.html',
  '/console.js': 'console.js',
  '/builder.js': 'builder.js',
  '/console.css': 'console.css',
};

/** Where the built console is: next to the compiled server, or dist/ when run from source. */
function consoleDir(): string | undefined {
  const candidates = [
    join(import.meta.dirname, '..', '..', 'console'), // dist/src/rpc → dist/console
    join(import.meta.dirname, '..', '..', 'dist', 'console'), // src/rpc → dist/console
  ];
  return candidates.find((d) => existsSync(join(d, 'index.html')));
}

export class ConsoleAssets {
  readonly #files = new Map<string, Buffer>();

  constructor(dir = consoleDir()) {
    if (dir === undefined) return;
    for (const [path, file] of Object.entries(FILES)) {
      const p = join(dir, file);
      if (existsSync(p)) this.#files.set(path, readFileSync(p));
    }
  }

  static isAsset(path: string): boolean {
    return path in FILES;
  }

  /** Answers GET for one of the console's paths. */
  serve(path: string, res: ServerResponse): void {
    const body = this.#files.get(path);
    if (body === undefined) {
      const text = 'the web console is not built: run npm run build\n';
      res.writeHead(503, { 'Content-Type': 'text/plain; charset=utf-8' });
      res.end(text);
      return;
    }
    res.writeHead(200, {
      'Content-Type': TYPES[path] ?? 'application/octet-stream',
      'Content-Length': body.length,
      'Content-Security-Policy': CONSOLE_CSP,
      'Cache-Control': 'no-cache',
      'Referrer-Policy': 'no-referrer',
      'X-Frame-Options': 'DENY',
      'Cross-Origin-Opener-Policy': 'same-origin',
      'Cross-Origin-Resource-Policy': 'same-origin',
    });
    res.end(body);
  }
}
