/**
 * `node:zlib` in the browser build: none. A page's node sends its queries' profiles plain (the
 * page's CompressionStream is asynchronous and unbounded, and a page serves no queries to
 * inflate), so both calls throw and src/net/query-deflate.ts falls back to plain.
 */
export function deflateRawSync(): never {
  throw new Error('no zlib in a page');
}

export function inflateRawSync(): never {
  throw new Error('no zlib in a page');
}
