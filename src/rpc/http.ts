/**
 * The node's HTTP port: JSON-RPC 2.0 on POST / (batches allowed), server-sent events of
 * notifications on GET /events, Prometheus text on GET /metrics, health on GET /healthz and the
 * web console on GET /. Every request passes the Host and Origin checks; all but the console's
 * static files and /healthz need the token when one is set (./guard.ts).
 */
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createJSONRPCErrorResponse } from 'json-rpc-2.0';
import type { CidxNode } from '../node/node.ts';
import { RPC_ERRORS } from './api.ts';
import { ConsoleAssets } from './console-assets.ts';
import { streamEvents } from './events.ts';
import { AccessGuard, type Refusal } from './guard.ts';
import { handleRpc, send } from './jsonrpc.ts';
import { createRpcServer, type RpcCounters } from './methods.ts';
import type { NodeMetrics } from './metrics.ts';
import type { NodeCounters } from './node-counters.ts';

export interface RpcOptions {
  host: string;
  port: number;
  /** Largest request body accepted (bytes). */
  maxBodyBytes?: number;
  /** Most event-stream clients at once. */
  maxEventClients?: number;
  /** Required as `Authorization: Bearer <token>`; mandatory when `host` is not loopback. */
  token?: string;
  /** Names accepted in the Host header besides the listening address (`*`: any). */
  vhosts?: string[];
  /** The node's series, for GET /metrics (absent: metrics are off, 404). */
  metrics?: NodeMetrics;
  /** Wire traffic per protocol, lookups, searches, notifications, for `stats`. */
  counters?: NodeCounters;
  /** Bind now but answer 503 (and /healthz 503) until `serving()` is called. */
  starting?: boolean;
  /** Where the built console is (default: dist/console). */
  consoleDir?: string;
}

type RpcState = 'starting' | 'serving' | 'stopping';

export interface RpcHandle {
  url: string;
  server: Server;
  readonly state: RpcState;
  /** The node is up: answer requests, /healthz 200. */
  serving(): void;
  /** The node is going down: /healthz and new requests get 503. */
  stopping(): void;
  /** Stops accepting requests, lets in-flight ones finish for up to `graceMs`, then closes. */
  close(graceMs?: number): Promise<void>;
}

const DEFAULT_MAX_BODY_BYTES = 8 * 1024 * 1024;

export async function startRpc(node: CidxNode, o: RpcOptions): Promise<RpcHandle> {
  const guard = new AccessGuard({ host: o.host, token: o.token, vhosts: o.vhosts });
  const counters: RpcCounters = { calls: {}, errors: {} };
  const metrics = o.metrics;
  const rpc = createRpcServer(node, counters, Date.now(), metrics, o.counters);
  const assets = new ConsoleAssets(o.consoleDir);
  const maxBody = o.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const maxEvents = o.maxEventClients ?? 64;
  const events = new Set<ServerResponse>();
  let state: RpcState = o.starting ? 'starting' : 'serving';
  const refuse = (res: ServerResponse, r: Refusal) => {
    metrics?.refused(r.reason);
    if (r.status === 401) res.setHeader('WWW-Authenticate', 'Bearer realm="cidx"');
    send(res, r.status, { error: r.message });
  };

  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    const site = guard.checkSite(req);
    if (site !== undefined) return refuse(res, site);
    if (
      (req.method === 'GET' || req.method === 'HEAD') &&
      (path === '/healthz' || path === '/health')
    ) {
      if (state !== 'serving') return send(res, 503, { status: state });
      return send(res, 200, { status: state, peerId: node.peerId.toString() });
    }
    if (state !== 'serving') {
      metrics?.refused('not-serving');
      return send(res, 503, { error: state === 'starting' ? 'starting' : 'shutting down' });
    }
    if (req.method === 'GET' && ConsoleAssets.isAsset(path)) return assets.serve(path, res);
    const token = guard.checkToken(req);
    if (token !== undefined) return refuse(res, token);
    if (req.method === 'POST' && path === '/') {
      // A failure here would be an unhandled rejection, which ends the process: answer instead.
      return void handleRpc(rpc, req, res, maxBody, (r) => metrics?.refused(r)).catch(
        (err: unknown) => {
          if (res.headersSent) return void res.destroy();
          const msg = `internal error: ${(err as Error)?.message ?? String(err)}`;
          send(res, 200, createJSONRPCErrorResponse(null, RPC_ERRORS.internal, msg));
        },
      );
    }
    if (req.method === 'GET' && path === '/events') {
      if (events.size >= maxEvents) {
        metrics?.refused('event-clients');
        return send(res, 503, { error: 'too many event streams' });
      }
      return streamEvents(node, req, res, events);
    }
    if (req.method === 'GET' && path === '/metrics') {
      if (metrics === undefined) return send(res, 404, { error: 'metrics are off' });
      return void metrics.scrape().then(
        ({ contentType, text }) => {
          res.writeHead(200, {
            'Content-Type': contentType,
            'Content-Length': Buffer.byteLength(text),
            'Cache-Control': 'no-store',
          });
          res.end(text);
        },
        (err: unknown) => send(res, 500, { error: `metrics: ${(err as Error).message}` }),
      );
    }
    send(res, 404, {
      error: 'POST / for JSON-RPC, GET /events, /metrics, /healthz, or / for the console',
    });
  });
  server.requestTimeout = 120_000;
  server.headersTimeout = 10_000;
  server.keepAliveTimeout = 5_000;
  server.maxHeadersCount = 100;

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port, o.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const addr = server.address() as AddressInfo;
  const host = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
  return {
    url: `http://${host}:${addr.port}`,
    server,
    get state() {
      return state;
    },
    serving() {
      if (state === 'starting') state = 'serving';
    },
    stopping() {
      state = 'stopping';
    },
    async close(graceMs = 10_000) {
      state = 'stopping';
      for (const res of events) res.end();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      const timer = setTimeout(() => server.closeAllConnections(), graceMs);
      await closed;
      clearTimeout(timer);
    },
  };
}
