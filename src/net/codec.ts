/**
 * The cidx wire protocol: one request and one response per stream, each a length-prefixed CBOR
 * message. Every message carries the wire version; every request carries the digest of the
 * swarm's parameters, so a node with other parameters is told so instead of mixing results.
 * Decoding validates every field (zod) and refuses what CBOR allows but a message never holds.
 */
import { decode, encode } from 'cborg';
import { z } from 'zod';
import type { SignedBlob } from '../index/records.ts';
import { MAX_SEEN_BYTES, MAX_SEEN_HASHES } from '../index/seen-filter.ts';
import type { ParseOptions } from '../profile/parse.ts';
import { MAX_ROUTE_HOPS } from '../settings/limits.ts';
import { MAX_K } from '../settings/table.ts';
import { deflateProfile, inflateProfile, keepDeflated } from './query-deflate.ts';
import { STRICT_CBOR } from './records.ts';
import { checkWireCounts, wireProfileSchema } from './wire-profile.ts';

export const INDEX_PROTOCOL = '/cidx/index/1.0.0';
export const WIRE_VERSION = 1;
/** The wire's bound on results asked or returned: the settings table's bound on k, l and s. */
export { MAX_K };

/** A CBOR byte string. */
export const bytes = z.custom<Uint8Array>((v) => v instanceof Uint8Array, 'must be a byte string');
/** A signed record's byte strings, on the wire and on disk: payload, owner key, signature. */
export const signedFields = { p: bytes, o: bytes, s: bytes };
const signedSchema = z.object(signedFields);
export type WireSigned = z.infer<typeof signedSchema>;
const dhtKey = bytes.refine((b) => b.length > 0 && b.length <= 64, 'must be 1 to 64 bytes');
const count = z.number().int().min(0).max(MAX_K);
const base = {
  v: z.literal(WIRE_VERSION),
  swarm: bytes.refine((b) => b.length === 32, 'must be 32 bytes'),
};

const querySchema = z.object({
  ...base,
  t: z.literal('query'),
  key: dhtKey,
  profile: wireProfileSchema,
  k: count,
  // Brief: answer with (id, version, similarity) summaries instead of the signed records.
  brief: z.literal(true).optional(),
  // The requester's filter of (id, version) pairs it already holds: leave them out.
  seen: z
    .object({
      k: z.number().int().min(1).max(MAX_SEEN_HASHES),
      b: bytes.refine((b) => b.length > 0 && b.length <= MAX_SEEN_BYTES, 'must be 1 to 8192 bytes'),
    })
    .optional(),
});

const contactsGetSchema = z.object({
  ...base,
  t: z.literal('contacts-get'),
  id: z.string().regex(/^[0-9a-f]{64}$/),
  // Brief: the versions held instead of the contacts and descriptor (a tombstone in full).
  brief: z.literal(true).optional(),
});

export const requestSchema = z.discriminatedUnion('t', [
  querySchema,
  // Does this node hold anything under the key? (A search's cheap second ask after an empty answer.)
  z.object({ ...base, t: z.literal('probe'), key: dhtKey }),
  // brief: the s most similar others as summaries (as for a brief query).
  z.object({
    ...base,
    t: z.literal('store'),
    key: dhtKey,
    rec: signedSchema,
    s: count,
    brief: z.literal(true).optional(),
  }),
  z.object({
    ...base,
    t: z.literal('update'),
    key: dhtKey,
    rec: signedSchema,
    s: count,
    brief: z.literal(true).optional(),
  }),
  z.object({ ...base, t: z.literal('remove'), rec: signedSchema }),
  z.object({
    ...base,
    t: z.literal('contacts-put'),
    rec: signedSchema,
    desc: signedSchema.optional(),
  }),
  contactsGetSchema,
  z.object({
    ...base,
    t: z.literal('notify'),
    kind: z.enum(['created', 'updated']),
    rec: signedSchema,
    sim: z.number().min(0).max(1e9),
    for: z.string().regex(/^[0-9a-f]{64}$/),
  }),
  // A read handed on over open connections towards its key's replicas (route.ts): `hops` is how
  // many more times it may be forwarded; the replica that ends it answers `req`.
  z.object({
    ...base,
    t: z.literal('route'),
    hops: z.number().int().min(0).max(MAX_ROUTE_HOPS),
    req: z.discriminatedUnion('t', [querySchema, contactsGetSchema]),
  }),
  z.object({ ...base, t: z.literal('params') }),
]);
export type Request = z.infer<typeof requestSchema>;
export type RequestType = Request['t'];
export type RouteRequest = Extract<Request, { t: 'route' }>;
/** What a route may carry: the reads a replica answers. */
export type RoutedRequest = RouteRequest['req'];

export const ERROR_CODES = [
  'swarm-mismatch',
  'bad-request',
  'bad-record',
  'too-large',
  'busy',
  'internal',
  // A store, update or contacts-put to a node whose DHT runs in client mode: it holds nothing.
  'not-serving',
] as const;
export const responseSchema = z.discriminatedUnion('ok', [
  z.object({
    v: z.literal(WIRE_VERSION),
    ok: z.literal(true),
    outcome: z.string().max(32).optional(),
    recs: z.array(signedSchema).max(MAX_K).optional(),
    /** A brief query's answer: its top k as summaries, best first. */
    sums: z
      .array(
        z.object({
          id: bytes.refine((b) => b.length === 32, 'must be 32 bytes'),
          v: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER),
          sim: z.number().min(0).max(1e9),
        }),
      )
      .max(MAX_K)
      .optional(),
    /** A probe's answer: live descriptors held under the key. */
    held: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).optional(),
    /** Records of a query's top k left out because the requester's `seen` filter holds them. */
    omitted: count.optional(),
    rec: signedSchema.optional(),
    desc: signedSchema.optional(),
    tomb: signedSchema.optional(),
    /** A brief contacts-get's answer: the versions of the contacts and descriptor held. */
    recV: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER).optional(),
    descV: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER).optional(),
    params: z.unknown().optional(),
    /** A routed request's answer: the peer (its id) that answered it. */
    by: z.string().min(1).max(128).optional(),
  }),
  z.object({
    v: z.literal(WIRE_VERSION),
    ok: z.literal(false),
    code: z.enum(ERROR_CODES),
    msg: z.string().max(4096),
    params: z.unknown().optional(),
  }),
]);
export type Response = z.infer<typeof responseSchema>;
export type OkResponse = Extract<Response, { ok: true }>;

/** A message that cannot be decoded or does not match its schema. */
export class CodecError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CodecError';
  }
}

export function encodeMessage(message: Request | Response): Uint8Array {
  return encode(message);
}

/**
 * A request's frame; with `deflate`, a query's profile deflated into `pz` where that is
 * shorter (query-deflate.ts).
 */
export function encodeRequest(req: Request, deflate: boolean): Uint8Array {
  return (deflate ? deflatedQuery(req) : undefined) ?? encode(req);
}

/** A query's frame with its profile deflated into `pz`; none for another request, or where
 * the profile does not deflate shorter. */
export function deflatedQuery(req: Request): Uint8Array | undefined {
  if (req.t === 'route') {
    const inner = req.req.t === 'query' ? deflatedFields(req.req) : undefined;
    return inner === undefined ? undefined : encode({ ...req, req: inner });
  }
  if (req.t !== 'query') return undefined;
  const fields = deflatedFields(req);
  return fields === undefined ? undefined : encode(fields);
}

function deflatedFields(q: Extract<Request, { t: 'query' }>): object | undefined {
  const pz = deflateProfile(q.profile);
  if (pz === undefined) return undefined;
  const { profile: _, ...rest } = q;
  return { ...rest, pz };
}

/** The bound on what a query's `pz` may inflate to when the caller gives none. */
export const MAX_INFLATED_PROFILE_BYTES = 1 << 20;

/**
 * `limits`: a query's profile is counted against them before the schema walks it, so a frame
 * full of tiny attributes costs a length check, not a full validation.
 */
export function decodeRequest(
  bytes: Uint8Array,
  limits?: ParseOptions,
  maxInflated = MAX_INFLATED_PROFILE_BYTES,
): Request {
  let received: Uint8Array | undefined;
  const req = decodeWith(requestSchema, bytes, 'request', (raw) => {
    if (typeof raw !== 'object' || raw === null) return;
    const outer = raw as { t?: unknown; req?: unknown };
    // A routed query's profile is checked and inflated as a query's own.
    const inner = outer.t === 'route' ? outer.req : raw;
    if (typeof inner !== 'object' || inner === null) return;
    const q = inner as { t?: unknown; profile?: unknown; pz?: unknown };
    if (q.t === 'query' && 'pz' in q) {
      if (!(q.pz instanceof Uint8Array)) throw new CodecError('request: pz must be a byte string');
      if ('profile' in q) throw new CodecError('request: a query holds profile or pz, not both');
      try {
        const { profile, whole } = inflateProfile(q.pz, maxInflated);
        q.profile = profile;
        if (whole) received = q.pz;
      } catch (err) {
        throw new CodecError(`request: ${(err as Error).message}`);
      }
      delete q.pz;
    }
    if (limits === undefined) return;
    const profile = q.profile;
    if (typeof profile !== 'object' || profile === null) return;
    try {
      checkWireCounts(profile, limits);
    } catch (err) {
      throw new CodecError(`request: profile ${(err as Error).message}`);
    }
  });
  if (received !== undefined) {
    const query = req.t === 'route' ? req.req : req;
    if (query.t === 'query') keepDeflated(query.profile, received);
  }
  return req;
}

export function decodeResponse(bytes: Uint8Array): Response {
  return decodeWith(responseSchema, bytes, 'response');
}

function decodeWith<T>(
  schema: z.ZodType<T>,
  bytes: Uint8Array,
  what: string,
  precheck?: (raw: unknown) => void,
): T {
  let raw: unknown;
  try {
    raw = decode(bytes, STRICT_CBOR);
  } catch (err) {
    throw new CodecError(`${what} is not valid CBOR (${(err as Error).message})`);
  }
  if (typeof raw === 'object' && raw !== null && 'v' in raw && raw.v !== WIRE_VERSION) {
    // Not String(raw.v): a map such as {toString: 0} cannot be printed, and would throw a TypeError.
    const v = typeof raw.v === 'number' ? String(raw.v) : `of CBOR type ${cborType(raw.v)}`;
    throw new CodecError(`${what} has wire version ${v}; this node speaks ${WIRE_VERSION}`);
  }
  precheck?.(raw);
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    throw new CodecError(`${what}: ${z.prettifyError(parsed.error).replaceAll('\n', ' ')}`);
  }
  return parsed.data;
}

function cborType(v: unknown): string {
  if (v === null) return 'null';
  if (v instanceof Uint8Array) return 'bytes';
  if (Array.isArray(v)) return 'array';
  return typeof v === 'object' ? 'map' : typeof v;
}

/** A signed record as the wire (and the store) carries it. */
export function blobToWire(b: SignedBlob): WireSigned {
  return { p: b.payload, o: b.owner, s: b.sig };
}

export function blobFromWire(w: WireSigned): SignedBlob {
  return { payload: w.p, owner: w.o, sig: w.s };
}

/** CBOR overhead of one signed record beyond its three byte strings (generous). */
const RECORD_OVERHEAD = 16;

/** Keeps the longest prefix of `recs` whose encoding fits in `budget` bytes. */
export function fitToFrame(recs: WireSigned[], budget: number): WireSigned[] {
  let used = 0;
  for (const [i, r] of recs.entries()) {
    used += r.p.length + r.o.length + r.s.length + RECORD_OVERHEAD;
    if (used > budget) return recs.slice(0, i);
  }
  return recs;
}

/**
 * An answer that holds something: records, summaries, a probe's count of them, or a
 * community's entry (its contacts or tombstone).
 */
export function holdsSomething(res: OkResponse): boolean {
  return (
    (res.recs?.length ?? 0) + (res.sums?.length ?? 0) + (res.held ?? 0) > 0 ||
    res.rec !== undefined ||
    res.tomb !== undefined
  );
}
