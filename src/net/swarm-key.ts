/**
 * Pre-shared keys of private swarms, in the format libp2p's pnet (and go-libp2p, IPFS) reads:
 *
 *   /key/swarm/psk/1.0.0/
 *   /base16/
 *   <64 hex digits: 32 random bytes>
 *
 * Every connection of a node with a key is wrapped in XSalsa20 under that key before Noise
 * starts: a peer without the same key cannot complete a connection.
 */
import { generateKey } from '@libp2p/pnet';

const HEADER = '/key/swarm/psk/1.0.0/';
const ENCODING = '/base16/';
/** The largest key file read (a valid one is 95 bytes; anything far larger is not a key). */
export const MAX_SWARM_KEY_BYTES = 1024;

/** A swarm key that cannot be used; the message says what is wrong, on one line. */
export class SwarmKeyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SwarmKeyError';
  }
}

/** A new random key, as the file's bytes. */
export function newSwarmKey(): Uint8Array {
  const out = new Uint8Array(HEADER.length + ENCODING.length + 2 + 64);
  generateKey(out);
  return out;
}

/**
 * Checks a key file's bytes and returns them in the canonical form pnet reads (no trailing
 * whitespace, `\n` line ends). pnet itself only checks the length of the hex line, and a key
 * with a typo in its header would start a swarm of its own without a word.
 */
export function parseSwarmKey(bytes: Uint8Array): Uint8Array {
  if (bytes.length > MAX_SWARM_KEY_BYTES)
    throw new SwarmKeyError(`larger than ${MAX_SWARM_KEY_BYTES} bytes: not a swarm key`);
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new SwarmKeyError('not text: a swarm key file has three lines of text');
  }
  const lines = text.trim().split(/\r?\n/);
  if (lines.length !== 3)
    throw new SwarmKeyError(
      `has ${lines.length} line(s); expected 3 (${HEADER}, ${ENCODING}, 64 hex digits)`,
    );
  const [header, encoding, hex] = lines.map((l) => l.trim()) as [string, string, string];
  if (header !== HEADER) throw new SwarmKeyError(`line 1 must be ${HEADER}`);
  if (encoding !== ENCODING) throw new SwarmKeyError(`line 2 must be ${ENCODING}`);
  if (!/^[0-9a-fA-F]{64}$/.test(hex))
    throw new SwarmKeyError('line 3 must be 64 hex digits (a 32-byte key)');
  return new TextEncoder().encode(`${HEADER}\n${ENCODING}\n${hex.toLowerCase()}`);
}
