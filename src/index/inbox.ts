import type { DescriptorRecord } from './records.ts';
import { StableBloomFilter } from './stable-bloom-filter.ts';

export type NotificationKind = 'created' | 'updated';

export interface Notification {
  /** Position in this inbox, increasing; `list(since)` returns those after it. */
  seq: number;
  kind: NotificationKind;
  record: DescriptorRecord;
  /** The similarity the sender computed between the new profile and `for`. */
  similarity: number;
  /** The receiver's community that made it a target (it is one of its contacts). */
  for: string;
  receivedAt: number;
}

export interface InboxOptions {
  /** Most notifications kept; the oldest go first (default 10,000). */
  capacity?: number;
  /** Cells of the duplicate filter (default 2^20, 1 MiB). */
  filterCells?: number;
  /** Target false-positive rate of the duplicate filter (default 1e-4). */
  filterFpRate?: number;
}

/**
 * A node's notification inbox. The same community version reaches a contact from several
 * senders and again after retries; a Stable Bloom Filter drops the duplicates with bounded
 * memory on an endless stream (a plain set would grow forever). Its false positives drop a
 * genuine notification with the filter's stable rate, kept small by default.
 */
export class Inbox {
  readonly #capacity: number;
  readonly #seen: StableBloomFilter;
  #items: Notification[] = [];
  #seq = 0;

  constructor(opts: InboxOptions = {}) {
    this.#capacity = opts.capacity ?? 10_000;
    this.#seen = StableBloomFilter.withFalsePositiveRate({
      cells: opts.filterCells ?? 1 << 20,
      fpRate: opts.filterFpRate ?? 1e-4,
    });
  }

  /** Adds a notification unless it is a duplicate; returns it, or null for a duplicate. */
  add(
    kind: NotificationKind,
    record: DescriptorRecord,
    similarity: number,
    target: string,
    now: number,
  ): Notification | null {
    const item = `${kind}\0${record.id}\0${record.version}\0${target}`;
    // Test before inserting: every insertion decrements P cells, so re-inserting duplicates
    // would age the filter faster than the stream of new items does.
    if (this.#seen.has(item)) return null;
    this.#seen.add(item);
    const n: Notification = {
      seq: ++this.#seq,
      kind,
      record,
      similarity,
      for: target,
      receivedAt: now,
    };
    this.#items.push(n);
    if (this.#items.length > this.#capacity) this.#items = this.#items.slice(-this.#capacity);
    return n;
  }

  /**
   * Puts back notifications kept on disk (oldest first). The duplicate filter is rebuilt from
   * them, so the filter itself never needs saving; duplicates of notifications older than the
   * inbox's capacity may be accepted again after a restart.
   */
  restore(items: Notification[]): void {
    for (const n of items) {
      this.#seen.add(`${n.kind}\0${n.record.id}\0${n.record.version}\0${n.for}`);
      this.#items.push(n);
      this.#seq = Math.max(this.#seq, n.seq);
    }
    if (this.#items.length > this.#capacity) this.#items = this.#items.slice(-this.#capacity);
  }

  get capacity(): number {
    return this.#capacity;
  }

  /** Notifications with seq > since, oldest first. */
  list(since = 0): Notification[] {
    return this.#items.filter((n) => n.seq > since);
  }

  get size(): number {
    return this.#items.length;
  }
}
