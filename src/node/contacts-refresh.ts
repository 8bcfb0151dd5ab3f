/**
 * Contacts that follow the node's addresses. A community created without explicit contacts
 * lists the addresses others can dial its owner at; behind a NAT those are relay addresses,
 * which change when a reservation is lost or moves to another relay, and all of them change
 * when the node's reachability does (client ↔ server). When they change, each such community
 * gets a new signed version with the new contacts: the same profile, the next version number,
 * through the update path (descriptor and contacts share a version; holders of the old copies
 * take the update), notifying nobody. Communities with contacts the user gave keep them.
 */
import type { DhtMode } from '../net/reachability.ts';
import type { NodeContext } from './context.ts';
import { updateCommunity } from './update.ts';

export interface ContactsChange {
  id: string;
  version: number;
  contacts: string[];
}

export interface ContactsRefreshOptions {
  /** Waits this long after the last address change before republishing (ms). */
  settleMs: number;
  /** Runs the refresh after any other work on owned communities (republish) finished. */
  serialize<T>(work: () => Promise<T>): Promise<T>;
  changed(c: ContactsChange): void;
  warn(msg: string): void;
}

/** The reachability service's events that can change the dialable addresses. */
export interface AddressEvents {
  readonly dhtMode: DhtMode;
  addEventListener(type: 'relay-addresses' | 'change', fn: () => void): void;
  removeEventListener(type: 'relay-addresses' | 'change', fn: () => void): void;
}

function sameSet(a: readonly string[], b: readonly string[]): boolean {
  const s = new Set(a);
  return s.size === new Set(b).size && b.every((x) => s.has(x));
}

/** The owned communities whose defaulted contacts differ from `addrs`. */
function staleContacts(ctx: NodeContext, addrs: readonly string[]): string[] {
  return ctx.owned
    .all()
    .filter((c) => c.dissolved === undefined && c.defaultContacts === true)
    .filter((c) => !sameSet(c.contacts, addrs))
    .map((c) => c.id);
}

export class ContactsRefresh {
  readonly #ctx: NodeContext;
  readonly #events: AddressEvents;
  readonly #opts: ContactsRefreshOptions;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #running: Promise<ContactsChange[]> | undefined;
  #again = false;
  #stopped = true;

  constructor(ctx: NodeContext, events: AddressEvents, opts: ContactsRefreshOptions) {
    this.#ctx = ctx;
    this.#events = events;
    this.#opts = opts;
  }

  readonly #onChange = (): void => this.schedule();

  start(): void {
    this.#stopped = false;
    this.#events.addEventListener('relay-addresses', this.#onChange);
    this.#events.addEventListener('change', this.#onChange);
    this.schedule();
  }

  stop(): void {
    this.#stopped = true;
    this.#events.removeEventListener('relay-addresses', this.#onChange);
    this.#events.removeEventListener('change', this.#onChange);
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  /** Refreshes once the addresses have been still for `settleMs` (two reservations, one round). */
  schedule(): void {
    if (this.#stopped) return;
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      void this.refresh().catch((err) => this.#opts.warn(`contacts: ${(err as Error).message}`));
    }, this.#opts.settleMs);
    (this.#timer as { unref?: () => void }).unref?.();
  }

  /**
   * Publishes new contacts for every community whose defaulted ones differ from the node's
   * dialable addresses now; nothing while it has none (all relays lost: the old ones may come
   * back, and a list of addresses nobody can dial helps nobody). One refresh at a time; a change
   * during one runs another after it.
   */
  refresh(): Promise<ContactsChange[]> {
    if (this.#running !== undefined) {
      this.#again = true;
      return this.#running;
    }
    this.#running = this.#opts.serialize(() => this.#once());
    return this.#running.finally(() => {
      this.#running = undefined;
      if (this.#again && !this.#stopped) {
        this.#again = false;
        this.schedule();
      }
    });
  }

  async #once(): Promise<ContactsChange[]> {
    const addrs = this.#ctx.holders.addrs();
    if (addrs.length === 0 || this.#stopped) return [];
    const out: ContactsChange[] = [];
    for (const id of staleContacts(this.#ctx, addrs)) {
      if (this.#stopped) break;
      const c = this.#ctx.owned.get(id);
      if (c === undefined) continue;
      try {
        const r = await updateCommunity(this.#ctx, id, c.profile, { notify: 0 });
        const now = this.#ctx.owned.get(id);
        const change = { id, version: r.version, contacts: now?.contacts ?? [] };
        out.push(change);
        this.#opts.changed(change);
      } catch (err) {
        // Kept as it was: the next address change or the republish round tries again.
        this.#opts.warn(`contacts of ${id}: ${(err as Error).message}`);
      }
    }
    return out;
  }
}
