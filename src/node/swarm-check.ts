import type { PeerId } from '@libp2p/interface';
import { type ResolvedSwarm, resolveSwarm, type SwarmParams } from '../index/swarm.ts';
import { WIRE_VERSION } from '../net/codec.ts';
import { SwarmMismatchError } from './errors.ts';
import type { Holders } from './holders.ts';

/** Peers with our parameters that show this node is in the right swarm. */
const ENOUGH_AGREEING = 3;

/**
 * Whether this node runs the parameters of the swarm it is in: every operation asks `assert`
 * first, so a node whose peers all run other parameters fails with SwarmMismatchError instead
 * of answering from its own table alone. Bootstrap peers are checked before a node joins, and
 * cidx peers as identify names them, until three agreed: a stray peer met later is still caught
 * by its `swarm-mismatch` answer to our first request, and asking every peer would cost a
 * request per connection.
 */
export class SwarmCheck {
  readonly #holders: Holders;
  readonly #swarm: ResolvedSwarm;
  readonly #verdicts = new Map<string, 'same' | 'other'>();
  #otherParams: unknown;

  constructor(holders: Holders, swarm: ResolvedSwarm) {
    this.#holders = holders;
    this.#swarm = swarm;
  }

  /**
   * Asks a peer for its swarm parameters and remembers the verdict; a peer with others is never
   * asked anything again. Throws if the peer cannot be asked or sends invalid parameters.
   */
  async ask(peer: PeerId): Promise<{ same: boolean; params: SwarmParams }> {
    const res = await this.#holders.send(peer, {
      v: WIRE_VERSION,
      swarm: this.#swarm.digest,
      t: 'params',
    });
    const theirs = resolveSwarm(res.params as never);
    const same = Buffer.compare(theirs.digest, this.#swarm.digest) === 0;
    this.#verdicts.set(peer.toString(), same ? 'same' : 'other');
    if (!same) {
      this.#otherParams = theirs.params;
      this.#holders.markForeign(peer);
    }
    return { same, params: theirs.params };
  }

  /** A bootstrap peer: SwarmMismatchError if it runs other parameters. */
  async requireSame(peer: PeerId): Promise<void> {
    const { same, params } = await this.ask(peer);
    if (!same) throw new SwarmMismatchError(this.#swarm.params, params);
  }

  /** A newly identified cidx peer: asked, unless it was or enough peers agreed already. */
  async identified(peer: PeerId): Promise<void> {
    if (this.#verdicts.has(peer.toString()) || peer.equals(this.#holders.self)) return;
    if (this.#count('same') >= ENOUGH_AGREEING) return;
    try {
      await this.ask(peer);
    } catch {
      // unreachable now: checked again when it is identified again
    }
  }

  /** Throws SwarmMismatchError when every cidx peer met runs other parameters. */
  assert(): void {
    if (this.#count('other') > 0 && this.#count('same') === 0)
      throw new SwarmMismatchError(this.#swarm.params, this.#otherParams);
  }

  /** Peers met that run other parameters. */
  get foreign(): number {
    return this.#count('other');
  }

  #count(v: 'same' | 'other'): number {
    let n = 0;
    for (const x of this.#verdicts.values()) if (x === v) n++;
    return n;
  }
}
