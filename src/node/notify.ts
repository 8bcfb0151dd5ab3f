import pLimit from 'p-limit';
import type { NotificationKind } from '../index/inbox.ts';
import type { SignedBlob } from '../index/records.ts';
import { blobToWire, WIRE_VERSION } from '../net/codec.ts';
import type { NodeContext } from './context.ts';
import { lookupCommunity } from './lookup.ts';

/**
 * NotifyNewCommunity / NotifyNewDescriptor (algorithm 4.8's last step): every contact of each
 * target community receives the new descriptor, the similarity, and which of its communities
 * made it a target. Returns how many notifications were accepted (duplicates not counted).
 */
export async function notifyContacts(
  ctx: NodeContext,
  kind: NotificationKind,
  descriptor: SignedBlob,
  targets: { id: string; similarity: number; contacts?: string[] }[],
): Promise<number> {
  const limit = pLimit(ctx.limits.concurrency);
  const rec = blobToWire(descriptor);
  let accepted = 0;
  await Promise.all(
    targets.map((t) =>
      limit(async () => {
        // Contacts already fetched (with a brief answer's verification) are not looked up again.
        let addrs = t.contacts ?? [];
        if (addrs.length === 0) {
          const entry = await lookupCommunity(ctx, t.id).catch(() => null);
          if (entry === null || entry.dissolved || entry.contacts === undefined) return;
          addrs = entry.contacts.addrs;
        }
        await Promise.all(
          addrs.map(async (addr) => {
            try {
              const res = await ctx.holders.sendToAddr(addr, {
                v: WIRE_VERSION,
                swarm: ctx.swarm.digest,
                t: 'notify',
                kind,
                rec,
                sim: t.similarity,
                for: t.id,
              });
              if (res.outcome === 'accepted') accepted++;
            } catch {
              // an unreachable contact misses this notification
            }
          }),
        );
      }),
    ),
  );
  return accepted;
}
