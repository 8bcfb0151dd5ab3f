/**
 * The connection gater of one simulated node: libp2p asks it before dialing a peer or an
 * address and before upgrading a connection, and it refuses every one that would cross a
 * partition. (A gater only refuses new connections; the model closes the open ones.)
 */
import type { ConnectionGater, MultiaddrConnection, PeerId } from '@libp2p/interface';
import { CODE_P2P, type Multiaddr } from '@multiformats/multiaddr';
import type { Member } from './member.ts';
import type { NetworkModel } from './model.ts';
import { memoryAddr, SimConnection } from './transport.ts';

export function partitionGater(net: NetworkModel, self: Member): ConnectionGater {
  const cut = (other: Member | undefined) => other !== undefined && !net.reachable(self, other);
  const crossesCut = (maConn: MultiaddrConnection) =>
    maConn instanceof SimConnection &&
    maConn.peer !== undefined &&
    !net.reachable(maConn.local, maConn.peer.local);
  return {
    denyDialPeer: (peer: PeerId) => cut(net.memberOfPeer(peer.toString())),
    denyDialMultiaddr: (ma: Multiaddr) => {
      const peer = ma.getComponents().find((c) => c.code === CODE_P2P)?.value;
      const at = net.endpoint(memoryAddr(ma))?.member;
      return cut(at) || (peer !== undefined && cut(net.memberOfPeer(peer)));
    },
    denyInboundConnection: crossesCut,
    denyOutboundConnection: (_peer: PeerId, maConn: MultiaddrConnection) => crossesCut(maConn),
    // A partition may begin while a connection is being upgraded.
    denyInboundEncryptedConnection: (_peer: PeerId, maConn: MultiaddrConnection) =>
      crossesCut(maConn),
    denyOutboundEncryptedConnection: (_peer: PeerId, maConn: MultiaddrConnection) =>
      crossesCut(maConn),
  };
}
