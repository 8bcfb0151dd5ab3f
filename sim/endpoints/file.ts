/**
 * The endpoints file of `cidx sim --endpoints <file>`: the JSON-RPC ports of nodes that run
 * elsewhere, one a line, each optionally with its token.
 *
 * ```
 * # nodes of the test swarm (comments start with #)
 * http://10.0.0.5:7070 token=3f9c0e…          # the token on the line
 * https://node2.example.org:7443 token-file=node2.token   # read from a file (relative to this one)
 * 127.0.0.1:7072                              # no token: none, or CIDX_RPC_TOKEN if set
 * ```
 *
 * A line is a URL (`http://` or `https://`; `host:port` means http) and `key=value` fields:
 * `token=<token>` or `token-file=<path>`. Every mistake is an error naming file and line.
 */
import { readFileSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { baseUrl } from '../../src/client/transport.ts';

export interface Endpoint {
  /** Line in the file (1-based). */
  line: number;
  url: string;
  token?: string;
}

export class EndpointsFileError extends Error {
  constructor(file: string, line: number | undefined, problem: string) {
    super(line === undefined ? `${file}: ${problem}` : `${file}:${line}: ${problem}`);
    this.name = 'EndpointsFileError';
  }
}

/** Largest endpoints file and token file read. */
const MAX_FILE_BYTES = 1 << 20;
const MAX_TOKEN_FILE_BYTES = 4096;
const MAX_ENDPOINTS = 10_000;
/** The node's own rule (src/settings/access.ts): at least 16 characters. */
const TOKEN = /^[\x21-\x7e]{16,1024}$/;

/** Reads and checks an endpoints file; `envToken` serves lines without a token of their own. */
export function readEndpoints(file: string, envToken?: string): Endpoint[] {
  const fail = (line: number | undefined, problem: string): never => {
    throw new EndpointsFileError(file, line, problem);
  };
  let text: string;
  try {
    if (statSync(file).size > MAX_FILE_BYTES)
      fail(undefined, `larger than ${MAX_FILE_BYTES} bytes`);
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if (err instanceof EndpointsFileError) throw err;
    return fail(undefined, `cannot read (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  const out: Endpoint[] = [];
  const seen = new Map<string, number>();
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = i + 1;
    const words = raw.replace(/#.*$/, '').trim().split(/\s+/).filter(Boolean);
    const [first, ...fields] = words;
    if (first === undefined) return;
    if (out.length === MAX_ENDPOINTS) fail(line, `more than ${MAX_ENDPOINTS} endpoints`);
    const url = parseUrl(first, (p) => fail(line, p));
    const before = seen.get(url);
    if (before !== undefined) fail(line, `${url} is already on line ${before}`);
    seen.set(url, line);
    let token: string | undefined;
    for (const f of fields) {
      const eq = f.indexOf('=');
      const key = eq < 0 ? f : f.slice(0, eq);
      const value = f.slice(eq + 1);
      if (eq < 0 || (key !== 'token' && key !== 'token-file'))
        fail(line, `unknown field "${f}" (token=<token>, token-file=<path>)`);
      if (token !== undefined) fail(line, 'one token a line');
      token =
        key === 'token' ? value : readToken(resolve(dirname(file), value), (p) => fail(line, p));
      if (!TOKEN.test(token))
        fail(line, 'a token is 16 to 1024 printable characters without spaces');
    }
    out.push({ line, url, token: token ?? envToken });
  });
  if (out.length === 0) fail(undefined, 'no endpoints (one JSON-RPC URL a line)');
  return out;
}

function parseUrl(word: string, fail: (problem: string) => never): string {
  // The origin a client keeps would drop them silently.
  if (/^([a-z][a-z0-9+.-]*:\/\/)?[^/]*@/i.test(word))
    fail("no user or password in the URL: give the node's token as token=");
  let url: string;
  try {
    url = baseUrl(word);
  } catch (err) {
    return fail((err as Error).message);
  }
  if (/[?#]/.test(word)) fail(`a node's URL has no query or fragment: ${word}`);
  return url;
}

function readToken(path: string, fail: (problem: string) => never): string {
  try {
    if (statSync(path).size > MAX_TOKEN_FILE_BYTES)
      fail(`token-file ${path}: larger than ${MAX_TOKEN_FILE_BYTES} bytes`);
    return readFileSync(path, 'utf8').trim();
  } catch (err) {
    if (err instanceof EndpointsFileError) throw err;
    return fail(
      `token-file ${path}: cannot read (${(err as NodeJS.ErrnoException).code ?? 'error'})`,
    );
  }
}
