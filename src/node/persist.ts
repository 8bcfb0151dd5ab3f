import type { IndexTable } from '../index/index-table.ts';
import type { NodeStorage } from './storage.ts';

/**
 * Writes the index table's journal to the store (a no-op without one), in the order the
 * changes were made. Writes run one after another, and each caller waits for a write that
 * began after its own changes were journaled: whichever batch carries them, they are on disk
 * before the caller answers.
 */
export class TablePersister {
  readonly #table: IndexTable;
  readonly #storage: NodeStorage | undefined;
  #persisting: Promise<void> = Promise.resolve();

  constructor(table: IndexTable, storage: NodeStorage | undefined) {
    this.#table = table;
    this.#storage = storage;
  }

  persist(): Promise<void> {
    const step = this.#persisting.then(async () => {
      const changes = this.#table.drainChanges();
      await this.#storage?.writeChanges(changes);
    });
    this.#persisting = step.catch(() => {});
    return step;
  }
}
