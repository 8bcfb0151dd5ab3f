/**
 * This node: identity, addresses, reachability, peers of each DHT, what it stores, the swarm's
 * parameters.
 */
import type { NodeInfoResult } from '../client/index.ts';
import { h } from './dom.ts';

export function renderNode(dl: HTMLElement, info: NodeInfoResult): void {
  const row = (term: string, ...detail: (Node | string)[]) => [
    h('dt', {}, term),
    h('dd', {}, ...detail),
  ];
  const index =
    info.swarm.index.mode === 'lsh'
      ? `LSH, n = ${info.swarm.index.n}, m = ${info.swarm.index.m}, seed ${info.swarm.index.seed}`
      : 'one key per attribute';
  dl.replaceChildren(
    ...row('Peer id', h('code', { id: 'peer-id' }, info.peerId)),
    ...row(
      'Addresses',
      info.addrs.length === 0
        ? 'none'
        : h('ul', { class: 'addrs' }, ...info.addrs.map((a) => h('li', {}, h('code', {}, a)))),
    ),
    ...row(
      'Reachability',
      `${info.reachability}; ${info.dhtMode === 'server' ? 'serves both DHTs' : 'DHT client (stores nothing, reached through relays)'}`,
    ),
    ...row(
      'Peers',
      `ProfilesDHT ${info.peers.profiles}, AddressesDHT ${info.peers.addresses}, ` +
        `${info.peers.connections} connections`,
    ),
    ...row(
      'Stored',
      `${info.stored.descriptors} index entries under ${info.stored.keys} keys, ` +
        `${info.stored.contacts} contact records, ${info.stored.tombstones} tombstones`,
    ),
    ...row(
      'Owned',
      `${plural(info.owned, 'community', 'communities')}, ${plural(info.inbox, 'notification', 'notifications')} kept`,
    ),
    ...row(
      'Swarm',
      `${index}; k = ${info.swarm.k}, l = ${info.swarm.l}, replicas = ${info.swarm.replicas}`,
    ),
  );
}

function plural(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}
