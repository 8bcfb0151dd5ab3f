/**
 * The simulated network, one per simulation: nodes join it by name and get a libp2p transport
 * and connection gater to build their host with (HostOptions.transportFactory /
 * connectionGater); the simulation partitions, heals and reads statistics here. The model
 * itself is in model.ts, the libp2p side in transport.ts and gater.ts.
 */
import type { ConnectionGater } from '@libp2p/interface';
import { partitionGater } from './gater.ts';
import type { Member, MemberOptions, NetworkConfig, NetworkStats } from './member.ts';
import { NetworkModel } from './model.ts';
import { SimTransport, type SimTransportComponents } from './transport.ts';

export type { MemberOptions, NetworkConfig, NetworkStats };

/** What a joining node builds its host with. */
export interface NetworkNode {
  readonly name: string;
  /** Its region's id (undefined without regions). */
  readonly region: string | undefined;
  /** For HostOptions.transportFactory: one transport per host. */
  readonly transport: (components: SimTransportComponents) => SimTransport;
  /** For HostOptions.connectionGater. */
  readonly gater: ConnectionGater;
}

export class SimNetwork {
  readonly model: NetworkModel;

  constructor(config: NetworkConfig) {
    this.model = new NetworkModel(config);
  }

  /**
   * A node joins under a unique name (its region, unless given, is drawn from the seed and the
   * name). It listens through the returned transport; when its listener closes it has left.
   */
  join(name: string, o: MemberOptions = {}): NetworkNode {
    const member: Member = this.model.add(name, o);
    const model = this.model;
    return {
      name,
      region: member.region < 0 ? undefined : model.regions?.regions[member.region]?.id,
      transport: (components) => new SimTransport(model, member, components),
      gater: partitionGater(model, member),
    };
  }

  /** The region id of a node (undefined without regions or for an unknown name). */
  regionOf(name: string): string | undefined {
    const m = this.model.member(name);
    return m === undefined || m.region < 0 ? undefined : this.model.regions?.regions[m.region]?.id;
  }

  /** The round-trip time between two joined nodes, as the model produces it (ms). */
  rttMs(a: string, b: string): number {
    const ma = this.model.member(a);
    const mb = this.model.member(b);
    if (ma === undefined || mb === undefined) throw new Error(`unknown node ${ma ? b : a}`);
    return this.model.rttMs(ma, mb);
  }

  /** Cuts the named nodes off from all others; see NetworkModel.partition. */
  partition(names: Iterable<string>): number {
    return this.model.partition(names);
  }

  /** Ends every partition. */
  heal(): void {
    this.model.heal();
  }

  /** Holds everything the named nodes send or are sent, connections kept; see NetworkModel.freeze. */
  freeze(names: Iterable<string>): void {
    this.model.freeze(names);
  }

  /** Delivers what was held, in order. */
  thaw(names: Iterable<string>): void {
    this.model.thaw(names);
  }

  stats(): NetworkStats {
    return this.model.stats();
  }

  /** Drops what is in flight and stops the network's timer; call after every node stopped. */
  close(): void {
    this.model.close();
  }
}
