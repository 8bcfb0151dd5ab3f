/**
 * Byte helpers every layer shares (pure: no I/O). Buffer is Node's, and the browser build's
 * `buffer` package: its native hex encoding and comparison beat a loop in JavaScript.
 */

/** Lower-case hex of the bytes (a view's own bytes, not its whole buffer). */
export function hex(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');
}

/** Whether two byte strings are equal. */
export function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && Buffer.compare(a, b) === 0;
}
