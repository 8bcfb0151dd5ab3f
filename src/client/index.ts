/**
 * A typed client of a cidx node's RPC port, for Node.js and browsers: `import { CidxClient } from
 * 'cidx/client'`. It loads no libp2p and no server code: parameter and result types come from
 * the schemas the node validates with (src/rpc/api.ts, imported for types only).
 *
 * ```ts
 * const node = new CidxClient('http://127.0.0.1:7070', { token: process.env.CIDX_RPC_TOKEN });
 * const { id } = await node.communityCreate({ profile: { weights: { Verdi: 1, opera: 0.8 } } });
 * for await (const n of node.notifications({ since: 0 })) console.log(n.community.id, n.for);
 * ```
 */
import type {
  MethodName,
  MethodParams,
  MethodResult,
  NotificationJSON,
  RPC_ERRORS,
} from '../rpc/api.ts';
import { type NotificationsOptions, notifications } from './events.ts';
import {
  baseUrl,
  CidxHttpError,
  CidxRpcError,
  refusalMessage,
  request,
  type TransportOptions,
} from './transport.ts';

export type {
  ChangeResult,
  CommunityMatch,
  MethodName,
  MethodParams,
  MethodResult,
  NodeCountersJSON,
  NodeInfoResult,
  NodePeersResult,
  NotificationJSON,
  ProfileJSON,
  RepublishResult,
  StatsResult,
  WireTraffic,
} from '../rpc/api.ts';
export type { NotificationsOptions } from './events.ts';
export { CidxHttpError, CidxRpcError } from './transport.ts';

/** The JSON-RPC error codes of the contract, by name (the values of `CidxRpcError.code`). */
export type RpcErrorCode = (typeof RPC_ERRORS)[keyof typeof RPC_ERRORS];

export interface ClientOptions {
  /** Sent as `Authorization: Bearer <token>`. */
  token?: string;
  /** Bound on each call, answer included (ms, default 120 000: a search may take a while). */
  timeoutMs?: number;
  /** Largest answer read (bytes, default 16 MiB). */
  maxResponseBytes?: number;
  /** The fetch to use (default: the platform's). */
  fetch?: typeof fetch;
}

export class CidxClient {
  /** The node's base URL, e.g. `http://127.0.0.1:7070`. */
  readonly url: string;
  readonly #t: TransportOptions;
  #nextId = 1;

  constructor(url: string | URL, opts: ClientOptions = {}) {
    this.url = baseUrl(url);
    this.#t = {
      timeoutMs: opts.timeoutMs ?? 120_000,
      maxResponseBytes: opts.maxResponseBytes ?? 16 * 1024 * 1024,
      fetch: opts.fetch ?? globalThis.fetch.bind(globalThis),
      token: opts.token,
    };
  }

  /**
   * Calls a method; resolves with its result, rejects with CidxRpcError (the node answered an
   * error) or CidxHttpError (refused, unreachable, too slow, too large).
   */
  async call<M extends MethodName>(
    method: M,
    params?: MethodParams<M>,
    opts: { signal?: AbortSignal } = {},
  ): Promise<MethodResult<M>> {
    const id = this.#nextId++;
    // JSON leaves an undefined `params` out.
    const body = JSON.stringify({ jsonrpc: '2.0', id, method, params });
    const { status, text } = await request(this.#t, `${this.url}/`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
      body,
      ...(opts.signal ? { signal: opts.signal } : {}),
    });
    let answer: {
      id?: unknown;
      result?: unknown;
      error?: { code: number; message: string; data?: unknown };
    };
    try {
      answer = JSON.parse(text);
    } catch {
      throw new CidxHttpError(refusalMessage(status, text), status);
    }
    if (answer.error !== undefined && typeof answer.error?.code === 'number')
      throw new CidxRpcError(answer.error.code, answer.error.message, answer.error.data);
    if (status !== 200 || answer.id !== id || !('result' in answer))
      throw new CidxHttpError(refusalMessage(status, text), status);
    return answer.result as MethodResult<M>;
  }

  nodeInfo() {
    return this.call('node.info');
  }
  nodePeers() {
    return this.call('node.peers');
  }
  communityCreate(params: MethodParams<'community.create'>) {
    return this.call('community.create', params);
  }
  communityUpdate(params: MethodParams<'community.update'>) {
    return this.call('community.update', params);
  }
  communityDissolve(params: MethodParams<'community.dissolve'>) {
    return this.call('community.dissolve', params);
  }
  communityGet(params: MethodParams<'community.get'>) {
    return this.call('community.get', params);
  }
  communityList() {
    return this.call('community.list');
  }
  communitySearch(params: MethodParams<'community.search'>) {
    return this.call('community.search', params);
  }
  communityJoin(params: MethodParams<'community.join'>) {
    return this.call('community.join', params);
  }
  notificationsList(params: MethodParams<'notifications.list'> = {}) {
    return this.call('notifications.list', params);
  }
  stats() {
    return this.call('stats');
  }
  nodeRepublish() {
    return this.call('node.republish');
  }

  /**
   * Notifications as they arrive (GET /events), first those after `since` that the node kept.
   * Reconnects after a lost or silent stream and resumes with Last-Event-ID; ends when
   * `signal` aborts or the loop breaks; throws CidxHttpError when refused (401, 403, …).
   */
  notifications(
    opts: NotificationsOptions = {},
  ): AsyncGenerator<NotificationJSON, void, undefined> {
    return notifications(this.#t, this.url, opts);
  }

  /** GET /healthz: `serving` (200), or `starting` / `stopping` (503). */
  async health(): Promise<{ status: string; peerId?: string }> {
    const { status, text } = await request(this.#t, `${this.url}/healthz`, { method: 'GET' });
    try {
      return JSON.parse(text) as { status: string; peerId?: string };
    } catch {
      throw new CidxHttpError(refusalMessage(status, text), status);
    }
  }

  /** GET /metrics: the Prometheus text exposition. */
  async metrics(): Promise<string> {
    const { status, text } = await request(this.#t, `${this.url}/metrics`, { method: 'GET' });
    if (status !== 200) throw new CidxHttpError(refusalMessage(status, text), status);
    return text;
  }
}
