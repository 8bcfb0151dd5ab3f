/**
 * How V8 decides when to mark the whole heap, while a simulation runs.
 *
 * Node 24's V8 starts a full marking whenever the memory behind ArrayBuffers (libp2p's frames,
 * its encryption's output, every Uint8Array over 64 bytes) has grown by a fixed 64 MiB since the
 * last one, whatever the heap's size. One process holding N nodes has N nodes' heap to mark,
 * while the buffers a message leaves behind do not depend on N: so the marking per message grew
 * with the swarm, and it was most of what made a message cost more CPU at 2000 nodes than at 500
 * (docs/BENCHMARKS.md, "Buffers' memory in the heap's limit"). With
 * `--external-memory-accounted-in-global-limit` that memory counts toward the heap's own limit,
 * which grows with the live heap, so a larger heap is marked less often. Later V8 versions make
 * this their default and drop the flag (V8 bug 361124432). V8 prints an error for a flag it does
 * not know, and no API asks whether it knows one: the flag is set on V8 13 (Node 24), where it
 * exists and is off, and left alone elsewhere.
 *
 * V8's flags belong to the process (every worker thread's heap reads them): set at the start of
 * a run, put back at its end.
 */
import { setFlagsFromString } from 'node:v8';

const FLAG = 'external-memory-accounted-in-global-limit';

/** Whether this V8 has the flag, off by default. */
export function heapLimitFlagKnown(v8Version = process.versions.v8): boolean {
  return v8Version.split('.')[0] === '13';
}

/**
 * Counts buffers' memory in the heap's growth limit until the returned function is called;
 * nothing on a V8 without the flag.
 */
export function scaleHeapLimitWithBuffers(): () => void {
  if (!heapLimitFlagKnown()) return () => {};
  setFlagsFromString(`--${FLAG}`);
  return () => setFlagsFromString(`--no-${FLAG}`);
}
