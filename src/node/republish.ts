import type { NodeContext } from './context.ts';
import { sendTombstone } from './dissolve.ts';
import { inTurn } from './owner-lock.ts';
import { mergeHolders, putContacts, storeUnderKeys } from './store.ts';

export interface RepublishReport {
  communities: number;
  tombstones: number;
  /** Keys no replica took this round. */
  failedKeys: number;
}

/**
 * One republish round: every owned community is stored again under its keys (same version: the
 * holders refresh its lifetime; peers that became the closest after churn get a copy) and its
 * contacts put again; tombstones of dissolved communities are sent again until they expire.
 */
export async function republishOwned(ctx: NodeContext): Promise<RepublishReport> {
  const report: RepublishReport = { communities: 0, tombstones: 0, failedKeys: 0 };
  for (const { id } of ctx.owned.all()) {
    // Each community in its turn, read again there: an update or dissolve that ran meanwhile
    // is what this round republishes, and nothing it wrote is put back as it was.
    await inTurn(ctx.owned, id, () => republishOne(ctx, id, report));
  }
  return report;
}

async function republishOne(ctx: NodeContext, id: string, report: RepublishReport): Promise<void> {
  const c = ctx.owned.get(id);
  if (c === undefined) return;
  if (c.dissolved !== undefined) {
    if (ctx.now() >= c.dissolved.until) {
      await ctx.owned.delete(c.id);
      return;
    }
    await sendTombstone(ctx, c.id, c.keys, c.dissolved.tombstone, c.holders);
    report.tombstones++;
    return;
  }
  const keys = c.keys.map((k) => Buffer.from(k, 'hex'));
  // s = 0: a republish needs no similar descriptors back.
  const r = await storeUnderKeys(ctx, keys, 'store', c.descriptor, 0);
  await putContacts(ctx, c.id, c.contactsRecord, c.descriptor);
  // The refreshed replicas join the known holders; earlier holders stay known (until their
  // copies expire, a later removal must reach them), but are not contacted here: a republish
  // must not wait on peers that may be gone.
  await ctx.owned.put({ ...c, holders: mergeHolders(c.holders ?? {}, r.holders) });
  report.communities++;
  report.failedKeys += r.failedKeys;
}
