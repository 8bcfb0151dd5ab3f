/**
 * The global `Buffer` in the browser build (esbuild injects this export wherever the source or
 * a dependency uses `Buffer` without importing it): the `buffer` package, Node's API in plain JS.
 */
export { Buffer } from 'buffer';
