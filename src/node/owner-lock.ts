/**
 * One change of an owned community at a time. Updating, dissolving and republishing each read
 * the owner's entry, wait on the network, then write the entry back: interleaved, the last
 * writer puts back what it read before the other's change — a republish that started before a
 * dissolve would write the community back undissolved, and go on storing it; one that started
 * before an update would put the old version back. Keyed by community, so a slow change of one
 * community never holds up another's. Shared by every context over the same store.
 */
import type { OwnedStore } from './ownership.ts';

const tails = new WeakMap<OwnedStore, Map<string, Promise<void>>>();

/** Runs `work` once every earlier change of community `id` in `store` has settled. */
export function inTurn<T>(store: OwnedStore, id: string, work: () => Promise<T>): Promise<T> {
  const byId = tailsOf(store);
  const run = (byId.get(id) ?? Promise.resolve()).then(work);
  // Settles after `run`, whatever its outcome; the last change of a community leaves no entry.
  const tail: Promise<void> = run.then(forget, forget);
  function forget() {
    if (byId.get(id) === tail) byId.delete(id);
  }
  byId.set(id, tail);
  return run;
}

function tailsOf(store: OwnedStore): Map<string, Promise<void>> {
  let byId = tails.get(store);
  if (byId === undefined) {
    byId = new Map();
    tails.set(store, byId);
  }
  return byId;
}
