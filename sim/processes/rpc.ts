/**
 * The little JSON-RPC the process harness needs to drive a node: one call per HTTP POST, with
 * a timeout and a response size limit. Behind the RpcCaller interface, so a full typed client
 * can take its place without touching the harness's users.
 */

export interface RpcCaller {
  /** Calls `method`; resolves with its result, rejects with RpcCallError or a transport error. */
  call<T = unknown>(method: string, params?: unknown, opts?: { timeoutMs?: number }): Promise<T>;
}

/** The node answered with a JSON-RPC error. */
export class RpcCallError extends Error {
  override name = 'RpcCallError';
  readonly method: string;
  readonly code: number;

  constructor(method: string, code: number, message: string) {
    super(`${method}: ${code} ${message}`);
    this.method = method;
    this.code = code;
  }
}

/** The node did not answer in time, or answered with something that is not JSON-RPC. */
export class RpcTransportError extends Error {
  override name = 'RpcTransportError';
}

export interface HttpRpcOptions {
  /** Per call, unless the call names its own (default 60 s: a search on a busy swarm). */
  timeoutMs?: number;
  /** Largest response body accepted (default 16 MiB). */
  maxBytes?: number;
  /** Sent as `Authorization: Bearer <token>` when set. */
  token?: string;
}

async function readLimited(res: Response, maxBytes: number, what: string): Promise<string> {
  if (!res.body) return '';
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel();
      throw new RpcTransportError(`${what}: response larger than ${maxBytes} bytes`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

export class HttpRpc implements RpcCaller {
  #next = 1;
  readonly #timeoutMs: number;
  readonly #maxBytes: number;

  readonly url: string;
  readonly #token: string | undefined;

  constructor(url: string, opts: HttpRpcOptions = {}) {
    this.url = url;
    this.#token = opts.token;
    this.#timeoutMs = opts.timeoutMs ?? 60_000;
    this.#maxBytes = opts.maxBytes ?? 16 << 20;
  }

  async call<T = unknown>(
    method: string,
    params?: unknown,
    opts: { timeoutMs?: number } = {},
  ): Promise<T> {
    const id = this.#next++;
    const timeoutMs = opts.timeoutMs ?? this.#timeoutMs;
    const what = `${method} at ${this.url}`;
    let text: string;
    try {
      const res = await fetch(this.url, {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          ...(this.#token ? { Authorization: `Bearer ${this.#token}` } : {}),
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id,
          method,
          ...(params === undefined ? {} : { params }),
        }),
        signal: AbortSignal.timeout(timeoutMs),
      });
      text = await readLimited(res, this.#maxBytes, what);
    } catch (err) {
      if (err instanceof RpcTransportError) throw err;
      const e = err as Error;
      const reason = e.name === 'TimeoutError' ? `no answer within ${timeoutMs} ms` : e.message;
      throw new RpcTransportError(`${what}: ${reason}`, { cause: err });
    }
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw new RpcTransportError(`${what}: answer is not JSON: ${text.slice(0, 120)}`);
    }
    const r = body as { jsonrpc?: unknown; id?: unknown; result?: unknown; error?: unknown };
    if (typeof body !== 'object' || body === null || r.jsonrpc !== '2.0' || r.id !== id)
      throw new RpcTransportError(`${what}: not a JSON-RPC 2.0 answer to request ${id}`);
    if (r.error !== undefined) {
      const e = r.error as { code?: unknown; message?: unknown };
      if (typeof e?.code !== 'number' || typeof e.message !== 'string')
        throw new RpcTransportError(`${what}: malformed error object`);
      throw new RpcCallError(method, e.code, e.message);
    }
    if (!('result' in r))
      throw new RpcTransportError(`${what}: answer has neither result nor error`);
    return r.result as T;
  }
}
