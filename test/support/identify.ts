import type { IdentifyResult } from '@libp2p/interface';
import type { CidxLibp2p } from '../../src/net/libp2p.ts';

/** Connects `from` to `to` anew; resolves with what `from` learnt when it identified `to`. */
export async function connectAnew(from: CidxLibp2p, to: CidxLibp2p): Promise<IdentifyResult> {
  await from.hangUp(to.peerId);
  const identified = new Promise<IdentifyResult>((resolve) => {
    const on = (e: CustomEvent<IdentifyResult>) => {
      if (!e.detail.peerId.equals(to.peerId)) return;
      from.removeEventListener('peer:identify', on);
      resolve(e.detail);
    };
    from.addEventListener('peer:identify', on);
  });
  await from.dial(to.getMultiaddrs()[0] as never);
  return identified;
}
