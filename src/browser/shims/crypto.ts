/**
 * `node:crypto` in the browser build: what cidx's source calls — `createHash` for SHA-256 and
 * SHAKE256 (the seeded generator of src/keys/random.ts), and `randomBytes` — over @noble/hashes (already in libp2p's tree) and
 * the page's `crypto.getRandomValues`. Node keeps its native node:crypto (OpenSSL's SHA-256 is
 * several times faster on the simulator's hot paths); this file only replaces it in the bundle.
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { shake256 } from '@noble/hashes/sha3.js';
import { Buffer } from 'buffer';

type Data = string | Uint8Array;

interface Hasher {
  update(data: Uint8Array): unknown;
  digest(): Uint8Array;
}

class Hash {
  readonly #h: Hasher;

  constructor(h: Hasher) {
    this.#h = h;
  }

  update(data: Data, encoding?: 'utf8' | 'utf-8'): this {
    if (typeof data === 'string') {
      if (encoding !== undefined && encoding !== 'utf8' && encoding !== 'utf-8')
        throw new Error(`createHash: unsupported input encoding ${encoding}`);
      this.#h.update(new TextEncoder().encode(data));
    } else this.#h.update(data);
    return this;
  }

  digest(): Buffer;
  digest(encoding: 'hex' | 'base64'): string;
  digest(encoding?: 'hex' | 'base64'): Buffer | string {
    const out = Buffer.from(this.#h.digest());
    return encoding === undefined ? out : out.toString(encoding);
  }
}

export function createHash(algorithm: string, options?: { outputLength?: number }): Hash {
  if (algorithm === 'sha256') return new Hash(sha256.create());
  if (algorithm === 'shake256')
    return new Hash(shake256.create(options?.outputLength ? { dkLen: options.outputLength } : {}));
  throw new Error(`createHash: ${algorithm} is not in the browser build (sha256, shake256)`);
}

export function randomBytes(n: number): Buffer {
  const out = new Uint8Array(n);
  // getRandomValues fills at most 65536 bytes a call.
  for (let i = 0; i < n; i += 65536) crypto.getRandomValues(out.subarray(i, i + 65536));
  return Buffer.from(out.buffer, out.byteOffset, out.byteLength);
}

export default { createHash, randomBytes };
