import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/**
 * One HTTP request with exactly the headers given (fetch would not let a test forge Host). For
 * an event stream, the answer ends after the headers and the first chunk.
 */
export function raw(
  url: string,
  o: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<RawAnswer> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: u.hostname,
        port: u.port,
        path: `${u.pathname}${u.search}`,
        method: o.method ?? 'GET',
        headers: { ...o.headers },
        timeout: 10_000,
        setHost: o.headers?.Host === undefined,
      },
      (res) => {
        let body = '';
        const done = () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body });
        res.setEncoding('utf8');
        res.on('data', (d: string) => {
          body += d;
          if (res.headers['content-type'] === 'text/event-stream') {
            res.destroy();
            done();
          }
        });
        res.on('end', done);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`${url}: no answer within 10 s`)));
    req.on('error', reject);
    req.end(o.body);
  });
}

/** A JSON-RPC request body. */
export const rpcBody = (method: string, params?: unknown) =>
  JSON.stringify({ jsonrpc: '2.0', id: 1, method, ...(params ? { params } : {}) });

/** Builds the web console into a fresh directory (the same build as `npm run build`). */
export function buildConsole(): string {
  const out = mkdtempSync(join(tmpdir(), 'cidx-console-'));
  execFileSync(
    process.execPath,
    [join(import.meta.dirname, '..', '..', 'src', 'console', 'build.ts'), '--out', out],
    { stdio: 'pipe', timeout: 60_000 },
  );
  return out;
}
