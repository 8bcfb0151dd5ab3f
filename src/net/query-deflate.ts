/**
 * A query's profile, deflated. A query carries the searcher's whole profile, and its attribute
 * names are words, which DEFLATE halves (docs/BENCHMARKS.md, "Query profiles deflated"); the
 * rest of a query is a key and a digest, which do not compress. The query then carries `pz`,
 * the raw DEFLATE of the profile's CBOR, in place of `profile`. A node that predates `pz`
 * answers bad-request, and the client sends the query again as it was (client.ts). Node's zlib
 * is used: it bounds what an inflate may produce (`maxOutputLength`), which a bomb needs.
 */
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { decode, encode } from 'cborg';
import { STRICT_CBOR } from './records.ts';
import type { WireProfile } from './wire-profile.ts';

// A search hands the one wire profile it built to the query of each of its keys, and a query
// may be sent again (to another replica, plain after a refusal): deflated once per profile,
// not once per message. A route's hop sends on the bytes it received (`keepDeflated`). Wire
// profiles are never changed once built; null: not shorter.
const deflated = new WeakMap<WireProfile, Uint8Array | null>();

/**
 * A received `pz` kept as the deflate of the profile decoded from it, so that a hop sending
 * the query on sends it as it came instead of deflating it again; only for a `pz` that
 * `inflateProfile` found `whole`, otherwise the hop deflates afresh.
 */
export function keepDeflated(profile: WireProfile, pz: Uint8Array): void {
  deflated.set(profile, pz);
}

/** The profile's deflated CBOR, or none where that is not shorter (or zlib is missing). */
export function deflateProfile(profile: WireProfile): Uint8Array | undefined {
  const known = deflated.get(profile);
  if (known !== undefined) return known ?? undefined;
  const z = deflateOnce(profile);
  deflated.set(profile, z ?? null);
  return z;
}

function deflateOnce(profile: WireProfile): Uint8Array | undefined {
  const plain = encode(profile);
  try {
    // A profile is a few KiB at most: a 1 KiB window finds its repeats, and costs a few KiB of
    // memory a call instead of zlib's default 256 KiB. Any inflater reads it.
    const z = deflateRawSync(plain, { windowBits: 10, memLevel: 5 });
    return z.length < plain.length ? z : undefined;
  } catch {
    return undefined; // a page's bundle has no zlib (src/browser/shims/zlib.ts): plain then
  }
}

/**
 * The profile `pz` holds, as CBOR decoded (the schema checks it next), and whether `pz` is
 * `whole`: one DEFLATE stream with nothing after it, shorter than the CBOR it inflates to (what
 * this node would send); throws with the reason when it is not DEFLATE or inflates past `maxBytes`, as
 * large as a frame may be.
 */
export function inflateProfile(
  pz: Uint8Array,
  maxBytes: number,
): { profile: unknown; whole: boolean } {
  let plain: Uint8Array;
  let read: number;
  try {
    // zlib stops at the stream's end and ignores what follows; the engine tells how far it read.
    const out = inflateRawSync(pz, { maxOutputLength: maxBytes, info: true }) as unknown as {
      buffer: Uint8Array;
      engine: { bytesWritten: number };
    };
    plain = out.buffer;
    read = out.engine.bytesWritten;
  } catch (err) {
    const code = (err as { code?: string }).code;
    throw new Error(
      code === 'ERR_BUFFER_TOO_LARGE'
        ? `pz: the deflated profile inflates past ${maxBytes} bytes`
        : `pz: the deflated profile is not raw DEFLATE (${(err as Error).message})`,
    );
  }
  const profile: unknown = decode(plain, STRICT_CBOR);
  return { profile, whole: read === pz.length && pz.length < plain.length };
}
