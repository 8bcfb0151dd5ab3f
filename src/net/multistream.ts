/**
 * multistream-select's lines as a dialer sends them and reads them back: the shared part of
 * sending a protocol's name without waiting for its echo (optimistic-select.ts for streams,
 * lazy-upgrade.ts for a connection's encryption and muxer).
 */
import { UnsupportedProtocolError } from '@libp2p/interface';
import * as varint from 'uint8-varint';
import { Uint8ArrayList } from 'uint8arraylist';

export const PROTOCOL_ID = '/multistream/1.0.0';
/** multistream-select's own bound on a protocol line. */
export const MAX_LINE_BYTES = 1024;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** `line` as multistream-select writes it: a varint length, the text, a newline. */
export function encodeLine(line: string): Uint8Array {
  const text = encoder.encode(`${line}\n`);
  const out = new Uint8Array(varint.encodingLength(text.byteLength) + text.byteLength);
  varint.encode(text.byteLength, out);
  out.set(text, out.byteLength - text.byteLength);
  return out;
}

export const HEADER = encodeLine(PROTOCOL_ID);
/** Each protocol's encoded name, made once: every stream of it sends the same bytes. */
const names = new Map<string, Uint8Array>();
export function nameOf(protocol: string): Uint8Array {
  let name = names.get(protocol);
  if (name === undefined) {
    name = encodeLine(protocol);
    names.set(protocol, name);
  }
  return name;
}

export type Bytes = Uint8Array | Uint8ArrayList;

/**
 * Reads the responder's echo — the multistream header, then the protocol or "na" — from the
 * front of `buf`. `undefined`: not all of it has arrived; otherwise how many bytes it took, or
 * the problem.
 */
export function readEcho(
  buf: Uint8ArrayList,
  protocol: string,
): undefined | { used: number } | { error: Error } {
  const lines: string[] = [];
  let at = 0;
  while (lines.length < 2) {
    if (at >= buf.byteLength) return undefined;
    let length: number;
    try {
      length = varint.decode(buf.subarray(at, Math.min(buf.byteLength, at + 2)));
    } catch {
      // Not enough bytes for the varint yet, or not a varint at all.
      if (buf.byteLength - at >= 2) return { error: new Error('malformed protocol echo') };
      return undefined;
    }
    if (length > MAX_LINE_BYTES) return { error: new Error('protocol echo too long') };
    const start = at + varint.encodingLength(length);
    if (buf.byteLength < start + length) return undefined;
    lines.push(decoder.decode(buf.subarray(start, start + length)));
    at = start + length;
  }
  if (lines[0] !== `${PROTOCOL_ID}\n`) return { error: new Error('no multistream-select header') };
  if (lines[1] !== `${protocol}\n`) {
    return {
      error: new UnsupportedProtocolError(`the peer does not speak ${protocol}`),
    };
  }
  return { used: at };
}

/**
 * `readEcho` over what has arrived so far, bounded: more than two lines' worth that is still not
 * a whole echo is refused.
 */
function echoSoFar(
  buf: Uint8ArrayList,
  protocol: string,
): undefined | { used: number } | { error: Error } {
  const read = readEcho(buf, protocol);
  if (read === undefined && buf.byteLength > 2 * (MAX_LINE_BYTES + 2)) {
    return { error: new Error('protocol echo too long') };
  }
  return read;
}

/** What receives a stream's or a connection's bytes (js-libp2p 3.x's AbstractMessageStream). */
export interface Receiver {
  onData(data: Bytes): void;
}

/**
 * Takes the echo of `protocol` off the front of what `conn` receives next: `conn.onData` is
 * replaced until the echo is whole, then put back (nothing is added per chunk after it) and
 * handed what came behind the echo. A wrong or over-long echo goes to `onError` instead, and
 * `onDone` runs once it is decided either way.
 */
export function takeEcho(
  conn: Receiver,
  protocol: string,
  onError: (err: Error) => void,
  onDone?: () => void,
): void {
  const prev = conn.onData;
  const onData = prev.bind(conn);
  const buf = new Uint8ArrayList();
  conn.onData = (data) => {
    buf.append(data);
    const read = echoSoFar(buf, protocol);
    if (read === undefined) return;
    // Put back, not deleted: see negotiateLazily (lazy-upgrade.ts).
    conn.onData = prev;
    onDone?.();
    if ('error' in read) {
      onError(read.error);
      return;
    }
    const rest = buf.sublist(read.used);
    if (rest.byteLength > 0) onData(rest);
  };
}
