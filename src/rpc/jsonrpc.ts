/** JSON-RPC 2.0 over HTTP POST: body limit, Content-Type check, batches run a few at a time. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  createJSONRPCErrorResponse,
  isJSONRPCID,
  type JSONRPCRequest,
  type JSONRPCResponse,
  type JSONRPCServer,
} from 'json-rpc-2.0';
import pLimit from 'p-limit';
import { RPC_ERRORS } from './api.ts';

export async function handleRpc(
  rpc: JSONRPCServer,
  req: IncomingMessage,
  res: ServerResponse,
  maxBody: number,
  refused: (reason: 'content-type' | 'body-size') => void = () => {},
): Promise<void> {
  const type = req.headers['content-type'] ?? '';
  if (!/^application\/json\b/i.test(type)) {
    refused('content-type');
    return send(res, 415, { error: 'Content-Type must be application/json' });
  }
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > maxBody) {
    refused('body-size');
    return tooLarge(req, res, maxBody);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of req) {
      size += (chunk as Buffer).length;
      if (size > maxBody) {
        refused('body-size');
        return tooLarge(req, res, maxBody);
      }
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

/** A JSON answer; never cached, never sniffed as something else. */
export function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'Content-Type': 'application/json',
    'Content-Length': Buffer.byteLength(text),
    'Cache-Control': 'no-store',
    'X-Content-Type-Options': 'nosniff',
  });
  res.end(text);
}
