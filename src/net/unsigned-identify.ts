/**
 * Identify without the signed peer record. Every identify message (the answer a new connection
 * asks of each end, and every push) carries, besides the addresses it lists itself, the same
 * addresses again in an envelope signed by the sender: about 190 of its 410 bytes in a
 * simulated swarm, both ways on every connection, and a signature check at every receiver. The
 * signature proves what the connection has proved already — identify arrives on a connection
 * encrypted and authenticated to the sender's key — and is worth its bytes only where records
 * travel on through third parties, which cidx does not do (its own contact records are
 * signed). go-libp2p offers this as identify's `DisableSignedPeerRecord`; @libp2p/identify has
 * no such option, so the node's identify and identify-push streams leave the field out of each
 * frame they send (libp2p's stream middleware). A receiver then takes the listed addresses,
 * as it does from a peer that sends no record. Only with `--no-peer-records`: in a swarm whose
 * nodes send no records a joining node's self-lookup asks more peers, and the join costs more
 * CPU (docs/BENCHMARKS.md).
 */
import type { Stream, StreamMiddleware } from '@libp2p/interface';
import type { Libp2p } from 'libp2p';
import * as varint from 'uint8-varint';
import { IDENTIFY_PROTOCOL, IDENTIFY_PUSH_PROTOCOL } from './protocols.ts';

/** identify's `signedPeerRecord`: field 8, length-delimited. */
const SIGNED_PEER_RECORD = 8;

/** The varint at `at` and the offset after it; undefined if cut short. */
function readVarint(b: Uint8Array, at: number): [number, number] | undefined {
  if (at >= b.length) return undefined;
  try {
    const value = varint.decode(b, at);
    const end = at + varint.encodingLength(value);
    return end > b.length ? undefined : [value, end];
  } catch {
    return undefined;
  }
}

/**
 * One length-prefixed identify frame without its signed peer record; undefined when it has none
 * or is not exactly one well-formed frame (then it is sent as it is).
 */
export function withoutSignedRecord(frame: Uint8Array): Uint8Array | undefined {
  const head = readVarint(frame, 0);
  if (head === undefined || head[1] + head[0] !== frame.length) return undefined;
  const kept: Uint8Array[] = [];
  let dropped = false;
  let at = head[1];
  while (at < frame.length) {
    const start = at;
    const tag = readVarint(frame, at);
    if (tag === undefined) return undefined;
    at = tag[1];
    const wireType = tag[0] % 8;
    if (wireType === 0) {
      const v = readVarint(frame, at);
      if (v === undefined) return undefined;
      at = v[1];
    } else if (wireType === 2) {
      const len = readVarint(frame, at);
      if (len === undefined || len[1] + len[0] > frame.length) return undefined;
      at = len[1] + len[0];
    } else if (wireType === 1) at += 8;
    else if (wireType === 5) at += 4;
    else return undefined;
    if (at > frame.length) return undefined;
    if (Math.floor(tag[0] / 8) === SIGNED_PEER_RECORD && wireType === 2) dropped = true;
    else kept.push(frame.subarray(start, at));
  }
  if (!dropped) return undefined;
  const length = kept.reduce((s, k) => s + k.length, 0);
  const prefix = varint.encode(length);
  const out = new Uint8Array(prefix.length + length);
  out.set(prefix, 0);
  let o = prefix.length;
  for (const k of kept) {
    out.set(k, o);
    o += k.length;
  }
  return out;
}

const unsigned: StreamMiddleware = (stream: Stream, connection, next) => {
  const send = stream.send.bind(stream);
  stream.send = (data) => send(withoutSignedRecord(data.subarray()) ?? data);
  next(stream, connection);
};

/**
 * Makes the host's identify and identify push leave out its signed peer record. Also gives each
 * stream its own copy of a protocol's middleware list: libp2p 3.3 appends the protocol's handler
 * to the registered list itself on every inbound stream, so without the copy every later
 * stream on a protocol with middleware runs the handlers of those before it too.
 */
export function identifyUnsigned(host: Libp2p): void {
  const registrar = (host as unknown as { components: { registrar: RegistrarInsides } }).components
    .registrar;
  const get = registrar.getMiddleware.bind(registrar);
  registrar.getMiddleware = (protocol) => [...get(protocol)];
  host.use(IDENTIFY_PROTOCOL, unsigned);
  host.use(IDENTIFY_PUSH_PROTOCOL, unsigned);
}

interface RegistrarInsides {
  getMiddleware(protocol: string): StreamMiddleware[];
}
