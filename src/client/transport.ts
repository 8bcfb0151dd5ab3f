/**
 * HTTP for the client, over the platform's fetch (Node ≥ 18 and browsers alike): every request
 * has a timeout, every body a size limit.
 */

/** A JSON-RPC error answered by the node; `code` is one of the contract's codes. */
export class CidxRpcError extends Error {
  readonly code: number;
  readonly data: unknown;
  constructor(code: number, message: string, data?: unknown) {
    super(message);
    this.name = 'CidxRpcError';
    this.code = code;
    this.data = data;
  }
}

/**
 * The node could not be asked: refused (`status` 401 without the right token, 403 for a foreign
 * Host or Origin, 503 while starting or stopping), unreachable, too slow or too large an answer.
 */
export class CidxHttpError extends Error {
  readonly status: number | undefined;
  constructor(message: string, status?: number) {
    super(message);
    this.name = 'CidxHttpError';
    this.status = status;
  }
}

export interface TransportOptions {
  token?: string;
  /** Bound on one request, answer included (ms). */
  timeoutMs: number;
  /** Largest answer body read (bytes). */
  maxResponseBytes: number;
  fetch: typeof fetch;
}

/** The base URL of a node: `http://127.0.0.1:7070`, also from `127.0.0.1:7070`. */
export function baseUrl(url: string | URL): string {
  const s = String(url).trim();
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(s) ? s : `http://${s}`;
  let u: URL;
  try {
    u = new URL(withScheme);
  } catch {
    throw new TypeError(`not a node URL: ${s}`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:')
    throw new TypeError(`not an http(s) URL: ${s}`);
  return `${u.origin}${u.pathname.replace(/\/+$/, '')}`;
}

export function authHeaders(token: string | undefined): Record<string, string> {
  return token === undefined ? {} : { Authorization: `Bearer ${token}` };
}

/** One request; the answer's body as text (at most maxResponseBytes), with its status. */
export async function request(
  o: TransportOptions,
  url: string,
  init: { method: string; headers?: Record<string, string>; body?: string; signal?: AbortSignal },
): Promise<{ status: number; text: string; contentType: string }> {
  const timeout = AbortSignal.timeout(o.timeoutMs);
  const signal = init.signal ? AbortSignal.any([init.signal, timeout]) : timeout;
  try {
    const res = await o.fetch(url, {
      method: init.method,
      headers: { ...authHeaders(o.token), ...init.headers },
      body: init.body,
      signal,
    });
    const text = await readLimited(res, o.maxResponseBytes);
    return { status: res.status, text, contentType: res.headers.get('content-type') ?? '' };
  } catch (err) {
    throw asHttpError(err, timeout.aborted, o.timeoutMs, url);
  }
}

/** Reads a body, refusing one larger than `max` bytes (checked while it arrives). */
export async function readLimited(res: Response, max: number): Promise<string> {
  const declared = Number(res.headers.get('content-length') ?? Number.NaN);
  if (declared > max) {
    await res.body?.cancel();
    throw new CidxHttpError(`answer of ${declared} bytes; at most ${max}`, res.status);
  }
  if (res.body === null) return '';
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel();
      throw new CidxHttpError(`answer larger than ${max} bytes`, res.status);
    }
    chunks.push(value);
  }
  const all = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    all.set(c, at);
    at += c.byteLength;
  }
  return new TextDecoder().decode(all);
}

/** A fetch failure as a CidxHttpError (`timedOut`: the request's own time limit ran out). */
export function asHttpError(
  err: unknown,
  timedOut: boolean,
  timeoutMs: number,
  url: string,
): Error {
  if (err instanceof CidxHttpError || err instanceof CidxRpcError) return err;
  if (timedOut) return new CidxHttpError(`${url}: no answer within ${timeoutMs} ms`);
  if ((err as Error)?.name === 'AbortError') return err as Error;
  const cause = (err as { cause?: { code?: string; message?: string } })?.cause;
  const why = cause?.code ?? cause?.message ?? (err as Error)?.message ?? String(err);
  return new CidxHttpError(`${url}: ${why}`);
}

/** The `error` of a JSON error body (the node's refusals), else the status line. */
export function refusalMessage(status: number, text: string): string {
  try {
    const j = JSON.parse(text) as { error?: unknown };
    if (typeof j.error === 'string') return `HTTP ${status}: ${j.error}`;
  } catch {
    // not JSON: fall through
  }
  return `HTTP ${status}`;
}
