/**
 * Who may use the RPC port. Three checks, in order:
 * - Host: only names of the addresses the server listens on (plus `localhost` on loopback and the
 *   operator's `vhosts`), so a web page whose name was re-bound to 127.0.0.1 (DNS rebinding)
 *   is refused — its requests carry its own name.
 * - Origin: a browser's request from another origin is refused; only the console, served from
 *   this very origin, may call. Requests without Origin (curl, scripts, the client) pass.
 * - Token: with one set, `Authorization: Bearer <token>`, compared in constant time.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';
import { networkInterfaces } from 'node:os';
import { MIN_TOKEN_LENGTH } from '../settings/table.ts';

export interface GuardOptions {
  /** The address the server listens on (as given to listen()). */
  host: string;
  /** Bearer token required on every data request (none: no token). */
  token?: string;
  /** More names accepted in Host; `*` accepts any. */
  vhosts?: string[];
}

export type Refusal = { status: 401 | 403; reason: 'token' | 'host' | 'origin'; message: string };

/** Loopback: 127.0.0.0/8, ::1 (also IPv4-mapped) and the name localhost. */
export function isLoopback(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (h === 'localhost' || h === '::1') return true;
  const v4 = h.startsWith('::ffff:') ? h.slice(7) : h;
  return isIP(v4) === 4 && v4.startsWith('127.');
}

const UNSPECIFIED = new Set(['0.0.0.0', '::', '']);
/** How often the interface addresses may be re-read when an unknown IP shows up in Host. */
const INTERFACE_REFRESH_MS = 5_000;

/** Why a token cannot be used, or undefined when it can. */
function tokenProblem(token: string): string | undefined {
  if (token.length < MIN_TOKEN_LENGTH) return `must be at least ${MIN_TOKEN_LENGTH} characters`;
  if (!/^[\x21-\x7e]+$/.test(token)) return 'must be printable ASCII without spaces';
  return undefined;
}

export class AccessGuard {
  readonly #token: Buffer | undefined;
  readonly #anyHost: boolean;
  readonly #names = new Set<string>();
  readonly #unspecified: boolean;
  #interfaces = new Set<string>();
  #interfacesAt = 0;

  constructor(o: GuardOptions) {
    const bare = normalise(o.host);
    if (o.token !== undefined) {
      const problem = tokenProblem(o.token);
      if (problem !== undefined) throw new Error(`rpc token ${problem}`);
      this.#token = digest(o.token);
    } else if (!isLoopback(bare)) {
      throw new Error(`an RPC port on ${o.host} (not loopback) needs a token`);
    }
    this.#anyHost = (o.vhosts ?? []).includes('*');
    this.#unspecified = UNSPECIFIED.has(bare);
    this.#names.add(bare);
    if (isLoopback(bare) || this.#unspecified) this.#names.add('localhost');
    // A name given with a port (node1.lan:7070) names the host all the same.
    for (const v of o.vhosts ?? [])
      this.#names.add(isIP(v.trim()) === 0 ? hostName(v) : normalise(v));
  }

  get tokenRequired(): boolean {
    return this.#token !== undefined;
  }

  /** Host and Origin: the checks every request passes, the console page included. */
  checkSite(req: IncomingMessage): Refusal | undefined {
    const host = req.headers.host;
    if (host === undefined || !this.#hostAllowed(hostName(host))) {
      return { status: 403, reason: 'host', message: `Host ${JSON.stringify(host ?? '')} refused` };
    }
    const origin = req.headers.origin;
    if (origin !== undefined && !sameOrigin(origin, host)) {
      return { status: 403, reason: 'origin', message: `cross-origin request from ${origin}` };
    }
    return undefined;
  }

  /** The token, when one is set: POST, the event stream, /metrics. */
  checkToken(req: IncomingMessage): Refusal | undefined {
    if (this.#token === undefined) return undefined;
    const m = /^Bearer ([\x21-\x7e]+)$/.exec(req.headers.authorization ?? '');
    // Both sides are hashed to 32 bytes first: timingSafeEqual needs equal lengths, and the
    // comparison then reveals nothing about the token's length either.
    if (m?.[1] !== undefined && timingSafeEqual(digest(m[1]), this.#token)) return undefined;
    return { status: 401, reason: 'token', message: 'Authorization: Bearer <token> required' };
  }

  #hostAllowed(name: string): boolean {
    if (this.#anyHost || this.#names.has(name)) return true;
    if (!this.#unspecified || isIP(name) === 0) return false;
    // Listening on every interface: any of this machine's addresses names the server.
    const now = Date.now();
    if (now - this.#interfacesAt > INTERFACE_REFRESH_MS) {
      this.#interfaces = interfaceAddresses();
      this.#interfacesAt = now;
    }
    return this.#interfaces.has(name);
  }
}

function digest(s: string): Buffer {
  return createHash('sha256').update(s, 'utf8').digest();
}

function normalise(host: string): string {
  return host
    .trim()
    .replace(/^\[|\]$/g, '')
    .toLowerCase();
}

/** The host name of a Host header value: `[::1]:7070` → `::1`, `Node.Example:80` → `node.example`. */
function hostName(host: string): string {
  const h = host.trim().toLowerCase();
  if (h.startsWith('[')) return h.slice(1, h.indexOf(']') === -1 ? undefined : h.indexOf(']'));
  const colon = h.indexOf(':');
  return colon === -1 ? h : h.slice(0, colon);
}

/** The console's own origin: http(s) and exactly the Host the request was sent to. */
function sameOrigin(origin: string, host: string): boolean {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false; // `null` (sandboxed frames, file: pages) and garbage
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return false;
  if (url.pathname !== '/' || url.search !== '' || url.username !== '') return false;
  try {
    return url.host === new URL(`${url.protocol}//${host}`).host;
  } catch {
    return false;
  }
}

function interfaceAddresses(): Set<string> {
  const out = new Set<string>();
  for (const list of Object.values(networkInterfaces()))
    for (const a of list ?? []) out.add(normalise(a.address.split('%')[0] ?? a.address));
  return out;
}
