import { Uint8ArrayList } from 'uint8arraylist';
import { describe, expect, it } from 'vitest';
import { kadMessageType } from '../../src/net/wire-meter.ts';

/** A kad-dht frame as its stream sends it: the varint length, then the protobuf message. */
function frame(message: number[]): Uint8Array {
  const len: number[] = [];
  let n = message.length;
  do {
    len.push((n & 0x7f) | (n > 0x7f ? 0x80 : 0));
    n >>>= 7;
  } while (n > 0);
  return Uint8Array.from([...len, ...message]);
}

describe('kad-dht message types on the wire', () => {
  it('reads the type from the first field, after a length of one or more bytes', () => {
    expect(kadMessageType(frame([0x08, 0x04, 0x12, 0x02, 0xaa, 0xbb]))).toBe('find_node');
    expect(kadMessageType(frame([0x08, 0x01, 0x12, 0x01, 0x00]))).toBe('get_value');
    expect(kadMessageType(frame([0x08, 0x05]))).toBe('ping');
    const long = [0x08, 0x04, 0x42, 200, ...new Array(200).fill(7)];
    expect(frame(long)[0]).toBeGreaterThan(0x7f);
    expect(kadMessageType(frame(long))).toBe('find_node');
  });

  it('takes a message without a type field for PUT_VALUE, the default protobuf leaves out', () => {
    expect(kadMessageType(frame([0x12, 0x01, 0x61, 0x1a, 0x01, 0x62]))).toBe('put_value');
    expect(kadMessageType(frame([]))).toBe('put_value');
  });

  it('reads a frame sent as a list of chunks, and names an unknown type other', () => {
    const list = new Uint8ArrayList(Uint8Array.from([3]), Uint8Array.from([0x08, 0x04, 0x00]));
    expect(kadMessageType(list)).toBe('find_node');
    expect(kadMessageType(frame([0x08, 0x09]))).toBe('other');
    expect(kadMessageType(frame([0x08, 0x80]))).toBe('other');
  });
});
