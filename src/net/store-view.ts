/**
 * How cidx hands one part of libp2p (identify, the upgrader's connections) a peer store of its
 * own without changing the one every other part uses: a view of the part's components whose
 * `peerStore` is the real store with some methods replaced. The view carries a mark, so a check
 * can tell it is installed (an upgrade that moves the part fails the check's test). The store's
 * other methods are its own, bound to it once: it keeps private fields a proxy cannot reach.
 */
import type { PeerStore } from '@libp2p/interface';

type Components = Record<string | symbol, unknown> & { peerStore?: PeerStore };

/** `components` as before, but with `peerStore` answering `replaced` first. */
export function withPeerStoreView<C extends Components>(
  components: C,
  store: PeerStore,
  replaced: Partial<PeerStore>,
  mark: symbol,
): C {
  const bound = new Map<string | symbol, unknown>();
  const view = new Proxy(store, {
    get: (t, p) => {
      if (p === mark) return true;
      if (Object.hasOwn(replaced, p)) return (replaced as Record<string | symbol, unknown>)[p];
      const v = Reflect.get(t, p, t);
      if (typeof v !== 'function') return v;
      const b = bound.get(p) ?? v.bind(t);
      bound.set(p, b);
      return b;
    },
  });
  return new Proxy(components, {
    get: (t, p) => (p === 'peerStore' ? view : Reflect.get(t, p)),
  });
}

/** Whether these components' peer store is a view made with `mark`. */
export function hasPeerStoreView(components: Components | undefined, mark: symbol): boolean {
  return (components?.peerStore as Record<symbol, unknown> | undefined)?.[mark] === true;
}
