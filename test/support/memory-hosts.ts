import { randomBytes } from 'node:crypto';
import { afterEach } from 'vitest';
import { type CidxLibp2p, createHost, type HostOptions } from '../../src/net/libp2p.ts';

/**
 * libp2p hosts as a node builds them (src/net/libp2p.ts), on the memory transport with the
 * simulator's plaintext, each listening on its own `/memory/<name>-<random>` address; every host
 * made is stopped after each test of the suite that calls this. `start: false` leaves a host
 * for the test to start.
 */
export function memoryHosts(
  name: string,
): (o?: Partial<HostOptions>, start?: boolean) => Promise<CidxLibp2p> {
  const hosts: CidxLibp2p[] = [];
  afterEach(async () => {
    await Promise.allSettled(hosts.splice(0).map((h) => h.stop()));
  });
  return async (o = {}, start = true) => {
    const h = await createHost({
      transport: 'memory',
      encryption: 'plaintext',
      simulation: true,
      listen: [`/memory/${name}-${randomBytes(4).toString('hex')}`],
      ...o,
    });
    hosts.push(h);
    if (start) await h.start();
    return h;
  };
}
