/**
 * The format of a node's store: `/cidx/format` holds its version. A store written by a newer
 * cidx is refused before anything reads or writes it (it could only be misread); an older one is
 * migrated when opened, one version at a time, each step a single LevelDB batch that also
 * writes the step's version: a crash leaves the store either before or after a step, and
 * opening it again carries on from there. A store without the key is format 0 (or new).
 */
import { encode } from 'cborg';
import type { LevelDatastore } from 'datastore-level';
import { Key } from 'interface-datastore';
import { z } from 'zod';
import {
  CorruptRecordError,
  decodeValue,
  idOfKey,
  OWNED,
  ownedSchemaV0,
  StorageError,
} from './storage-records.ts';

const FORMAT_KEY = '/cidx/format';

/** The store was written by a newer cidx: this one refuses it rather than misread it. */
export class StorageFormatError extends StorageError {
  readonly format: number;
  constructor(where: string, format: number) {
    super(
      `${where}: written by a newer cidx (store format ${format}); this cidx reads store formats up to ${STORE_FORMAT}`,
    );
    this.name = 'StorageFormatError';
    this.format = format;
  }
}

type Batch = ReturnType<LevelDatastore['batch']>;
/** Adds to `batch` what turns a store of format i into format i + 1 (reads the store as it is). */
type Step = (ds: LevelDatastore, batch: Batch) => Promise<void>;

const STEPS: Step[] = [
  // 0 → 1: owned communities always carry their holders (those written before holders were
  // kept get an empty list); every other record is the same.
  async (ds, batch) => {
    for await (const { key, value } of ds.query({ prefix: `${OWNED}/` })) {
      const k = key.toString();
      const v = decodeValue(ownedSchemaV0, k, value);
      if (idOfKey(OWNED, k) !== v.id) throw new CorruptRecordError(k, `holds community ${v.id}`);
      if (v.h === undefined) batch.put(key, encode({ ...v, h: {} }));
    }
  },
];
/** The format this code writes: one step a format. */
const STORE_FORMAT = STEPS.length;

/** The store's format version (0 when it has none). */
async function storeFormat(ds: LevelDatastore): Promise<number> {
  const key = new Key(FORMAT_KEY);
  if (!(await ds.has(key))) return 0;
  return decodeValue(
    z
      .number()
      .int()
      .min(1)
      .max(2 ** 31),
    FORMAT_KEY,
    await ds.get(key),
  );
}

/**
 * Refuses a store of a newer format (StorageFormatError naming `where`) and migrates an older
 * one to STORE_FORMAT. A step that meets a record it cannot read throws CorruptRecordError and
 * leaves the store as it was.
 */
export async function prepareFormat(ds: LevelDatastore, where: string): Promise<void> {
  const format = await storeFormat(ds);
  if (format > STORE_FORMAT) throw new StorageFormatError(where, format);
  for (const [from, step] of STEPS.entries()) {
    if (from < format) continue;
    const batch = ds.batch();
    await step(ds, batch);
    batch.put(new Key(FORMAT_KEY), encode(from + 1));
    await batch.commit();
  }
}
