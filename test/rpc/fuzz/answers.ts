/**
 * What JSON-RPC 2.0 and the contract ask a node to answer to one request object, and the check
 * of an answer against it.
 */
import { expect } from 'vitest';
import { type MethodName, paramSchemas } from '../../../src/rpc/params.ts';

/** The error codes of the public contract (CONTRACT.md, "JSON-RPC 2.0"); -32603 is not one. */
const CONTRACT_CODES = new Set([-32700, -32600, -32601, -32602, -32001, -32004, -32010]);
export const METHODS = Object.keys(paramSchemas) as MethodName[];
export const MUTATING = new Set<string>([
  'community.create',
  'community.update',
  'community.dissolve',
  'node.republish',
]);

type Id = string | number | null;
const isId = (v: unknown): v is Id => typeof v === 'string' || typeof v === 'number' || v === null;
export const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

export type Expected =
  | { answered: false }
  | { answered: true; id: Id; code?: number; mustFail: boolean };

/** The answer JSON-RPC 2.0 (and the contract) asks for one request object. */
export function expectedFor(req: unknown): Expected {
  if (!isObject(req)) return { answered: true, id: null, code: -32600, mustFail: true };
  const { id, method, jsonrpc, result, error } = req;
  if (id !== undefined && !isId(id))
    return { answered: true, id: null, code: -32600, mustFail: true };
  if (
    jsonrpc !== '2.0' ||
    typeof method !== 'string' ||
    result !== undefined ||
    error !== undefined
  )
    return { answered: true, id: id ?? null, code: -32600, mustFail: true };
  if (id === undefined) return { answered: false }; // a notification
  if (!(METHODS as string[]).includes(method))
    return { answered: true, id, code: -32601, mustFail: true };
  // every call the generators make to a method that changes state is invalid
  return { answered: true, id, mustFail: MUTATING.has(method) };
}

/** Ids as JSON carries them (1e999 parses to Infinity, which JSON writes as null). */
const idText = (id: Id) =>
  JSON.stringify(typeof id === 'number' && !Number.isFinite(id) ? null : id);

/** How often each answer was given: an error code, or "result". */
export const outcomes = new Map<string, number>();

export function checkAnswer(
  r: unknown,
  want: Extract<Expected, { answered: true }>,
  what: string,
): void {
  if (isObject(r)) {
    const key = isObject(r.error) ? String(r.error.code) : 'result';
    outcomes.set(key, (outcomes.get(key) ?? 0) + 1);
  }
  if (!isObject(r)) throw new Error(`${what}: not a response object: ${JSON.stringify(r)}`);
  expect(r.jsonrpc, what).toBe('2.0');
  expect('id' in r && isId(r.id), `${what}: id`).toBe(true);
  expect(idText(r.id as Id), `${what}: echoed id`).toBe(idText(want.id));
  const keys = Object.keys(r).sort();
  const hasError = 'error' in r;
  expect(keys, what).toEqual(hasError ? ['error', 'id', 'jsonrpc'] : ['id', 'jsonrpc', 'result']);
  if (!hasError) {
    expect(want.mustFail, `${what}: succeeded: ${JSON.stringify(r).slice(0, 300)}`).toBe(false);
    return;
  }
  const e = r.error as { code?: unknown; message?: unknown };
  expect(isObject(e), what).toBe(true);
  expect(
    Number.isInteger(e.code) && CONTRACT_CODES.has(e.code as number),
    `${what}: code ${String(e.code)} (${String(e.message)})`,
  ).toBe(true);
  expect(typeof e.message === 'string' && e.message.length > 0, `${what}: message`).toBe(true);
  if (want.code !== undefined) expect(e.code, `${what}: ${String(e.message)}`).toBe(want.code);
}
