import type { SignedBlob } from '../index/records.ts';
import type { Profile } from '../profile/profile.ts';

/** A community this node owns: what it needs to update, dissolve and republish it. */
export interface OwnedCommunity {
  id: string;
  nonce: Uint8Array;
  version: number;
  profile: Profile;
  contacts: string[];
  /**
   * The contacts were not given: they are this node's dialable addresses, and follow them (a
   * new relay, reachability found) — see contacts-refresh.ts. Absent: given by the user.
   */
  defaultContacts?: boolean;
  /** The ProfilesDHT keys the current descriptor is stored under (hex). */
  keys: string[];
  /** Per key (hex), the peers known to hold a copy: updates and removals go to them too. */
  holders?: Record<string, string[]>;
  descriptor: SignedBlob;
  contactsRecord: SignedBlob;
  /** Set once dissolved: the tombstone is republished until `until`. */
  dissolved?: { tombstone: SignedBlob; until: number };
}

/** Where a node keeps the communities it owns (in memory here; on disk for a process). */
export interface OwnedStore {
  get(id: string): OwnedCommunity | undefined;
  put(c: OwnedCommunity): Promise<void>;
  delete(id: string): Promise<void>;
  all(): OwnedCommunity[];
}

export class MemoryOwnedStore implements OwnedStore {
  readonly #items = new Map<string, OwnedCommunity>();

  get(id: string): OwnedCommunity | undefined {
    return this.#items.get(id);
  }

  async put(c: OwnedCommunity): Promise<void> {
    this.#items.set(c.id, c);
  }

  async delete(id: string): Promise<void> {
    this.#items.delete(id);
  }

  all(): OwnedCommunity[] {
    return [...this.#items.values()];
  }
}
