/**
 * The node's local HTTP port: JSON-RPC 2.0 on POST / (batches allowed), and a server-sent-events
 * stream of notifications on GET /events (so clients need not poll `notifications.list`).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  createJSONRPCErrorResponse,
  isJSONRPCID,
  type JSONRPCRequest,
  type JSONRPCResponse,
  type JSONRPCServer,
} from 'json-rpc-2.0';
import pLimit from 'p-limit';
import type { Notification } from '../index/inbox.ts';
import type { CidxNode } from '../node/node.ts';
import { RPC_ERRORS } from './errors.ts';
import { createRpcServer, notificationJson, type RpcCounters } from './methods.ts';

export interface RpcOptions {
  host: string;
  port: number;
  /** Largest request body accepted (bytes). */
  maxBodyBytes?: number;
  /** Most event-stream clients at once. */
  maxEventClients?: number;
}

export interface RpcHandle {
  url: string;
  server: Server;
  /** Stops accepting requests, lets in-flight ones finish for up to `graceMs`, then closes. */
  close(graceMs?: number): Promise<void>;
}

export const DEFAULT_MAX_BODY_BYTES = 8 * 1024 * 1024;

export async function startRpc(node: CidxNode, o: RpcOptions): Promise<RpcHandle> {
  const counters: RpcCounters = { calls: {}, errors: {} };
  const rpc = createRpcServer(node, counters, Date.now());
  const maxBody = o.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const events = new Set<ServerResponse>();
  let closing = false;

  const server = createServer((req, res) => {
    if (closing) return send(res, 503, { error: 'shutting down' });
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    if (req.method === 'POST' && path === '/') {
      // A failure here would be an unhandled rejection, which ends the process: answer instead.
      return void handleRpc(rpc, req, res, maxBody).catch((err: unknown) => {
        if (res.headersSent) return void res.destroy();
        const msg = `internal error: ${(err as Error)?.message ?? String(err)}`;
        send(res, 200, createJSONRPCErrorResponse(null, RPC_ERRORS.internal, msg));
      });
    }
    if (req.method === 'GET' && path === '/events')
      return streamEvents(node, req, res, events, o.maxEventClients ?? 64);
    if (req.method === 'GET' && path === '/health') return send(res, 200, { ok: true });
    send(res, 404, { error: 'POST / for JSON-RPC, GET /events for notifications' });
  });
  server.requestTimeout = 120_000;
  server.headersTimeout = 10_000;
  server.keepAliveTimeout = 5_000;

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
    async close(graceMs = 10_000) {
      closing = true;
      for (const res of events) res.end();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      const timer = setTimeout(() => server.closeAllConnections(), graceMs);
      await closed;
      clearTimeout(timer);
    },
  };
}

async function handleRpc(
  rpc: JSONRPCServer,
  req: IncomingMessage,
  res: ServerResponse,
  maxBody: number,
): Promise<void> {
  const type = req.headers['content-type'] ?? '';
  if (!/^application\/json\b/i.test(type)) {
    return send(res, 415, { error: 'Content-Type must be application/json' });
  }
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > maxBody) return tooLarge(req, res, maxBody);
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of req) {
      size += (chunk as Buffer).length;
      if (size > maxBody) return tooLarge(req, res, maxBody);
      chunks.push(chunk as Buffer);
    }
  } catch {
    return; // the client went away
  }
  const body = Buffer.concat(chunks).toString('utf8');
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch (err) {
    return send(
      res,
      200,
      createJSONRPCErrorResponse(null, RPC_ERRORS.parse, `parse error: ${(err as Error).message}`),
    );
  }
  if (Array.isArray(parsed) && parsed.length === 0) {
    return send(
      res,
      200,
      createJSONRPCErrorResponse(null, RPC_ERRORS.invalidRequest, 'empty batch'),
    );
  }
  if (Array.isArray(parsed) && parsed.length > MAX_BATCH) {
    return send(
      res,
      200,
      createJSONRPCErrorResponse(
        null,
        RPC_ERRORS.invalidRequest,
        `batch of ${parsed.length} requests; at most ${MAX_BATCH}`,
      ),
    );
  }
  // A batch is answered here, request by request, so that a batch of one still gets an array;
  // its calls run a few at a time, not all at once.
  const limit = pLimit(BATCH_CONCURRENCY);
  const answer = Array.isArray(parsed)
    ? (await Promise.all(parsed.map((r) => limit(() => receiveOne(rpc, r))))).filter(
        (r) => r !== null,
      )
    : await receiveOne(rpc, parsed);
  if (answer === null || (Array.isArray(answer) && answer.length === 0)) {
    res.writeHead(204).end(); // notifications only: nothing to answer
    return;
  }
  send(res, 200, answer);
}

/**
 * One request object. The library takes it on trust: null made it throw (an unanswered request,
 * an unhandled rejection), and an id that is an object or an array was echoed — a 10^5-deep one
 * overflowed the stack while writing the answer — with the method run. JSON-RPC 2.0 calls such a
 * request invalid; so is a method that is not a string.
 */
function receiveOne(rpc: JSONRPCServer, req: unknown): PromiseLike<JSONRPCResponse | null> {
  if (typeof req !== 'object' || req === null || Array.isArray(req)) return invalid(null);
  const { id, jsonrpc, method } = req as Record<string, unknown>;
  if (id !== undefined && !isJSONRPCID(id)) return invalid(null);
  if (jsonrpc !== '2.0' || typeof method !== 'string') return invalid(id ?? null);
  return rpc.receive(req as JSONRPCRequest);
}

function invalid(id: string | number | null): Promise<JSONRPCResponse> {
  return Promise.resolve(
    createJSONRPCErrorResponse(id, RPC_ERRORS.invalidRequest, 'Invalid Request'),
  );
}

/** Requests in one batch, and how many of them run at once. */
const MAX_BATCH = 100;
const BATCH_CONCURRENCY = 8;

function tooLarge(req: IncomingMessage, res: ServerResponse, maxBody: number): void {
  send(
    res,
    413,
    createJSONRPCErrorResponse(
      null,
      RPC_ERRORS.invalidRequest,
      `request body larger than ${maxBody} bytes`,
    ),
  );
  req.destroy();
}

/**
 * GET /events[?since=<seq>]: notifications as server-sent events (`id: <seq>`, `event:
 * notification`, `data: <JSON>`). A reconnecting client's Last-Event-ID (or `since`) replays
 * what it missed from the inbox first.
 */
function streamEvents(
  node: CidxNode,
  req: IncomingMessage,
  res: ServerResponse,
  clients: Set<ServerResponse>,
  max: number,
): void {
  if (clients.size >= max) {
    send(res, 503, { error: 'too many event streams' });
    return;
  }
  const q = new URL(req.url ?? '/', 'http://localhost').searchParams.get('since');
  const since = Number(req.headers['last-event-id'] ?? q ?? 0);
  res.writeHead(200, {
    'Content-Type': 'text/event-stream',
    'Cache-Control': 'no-cache',
    Connection: 'keep-alive',
  });
  res.write(': connected\n\n'); // sends the headers now, through any buffering proxy
  const write = (n: Notification) =>
    res.write(
      `id: ${n.seq}\nevent: notification\ndata: ${JSON.stringify(notificationJson(n))}\n\n`,
    );
  for (const n of node.notifications(Number.isSafeInteger(since) && since > 0 ? since : 0))
    write(n);
  const onNote = (n: Notification) => write(n);
  node.on('notification', onNote);
  const ping = setInterval(() => res.write(': keep-alive\n\n'), 15_000);
  clients.add(res);
  const done = () => {
    clearInterval(ping);
    node.off('notification', onNote);
    clients.delete(res);
  };
  res.on('close', done);
}

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'Content-Type': 'application/json',
    'Content-Length': Buffer.byteLength(text),
  });
  res.end(text);
}
