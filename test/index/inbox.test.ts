import { describe, expect, it } from 'vitest';
import { Inbox } from '../../src/index/inbox.ts';
import { descriptor, owner } from '../support/records.ts';

describe('Inbox', () => {
  it('keeps each (kind, community version, target) once, in arrival order', async () => {
    const inbox = new Inbox({ filterCells: 1 << 14 });
    const o = await owner();
    const v1 = await descriptor(o, 1, { a: 1 });
    const v2 = await descriptor(o, 2, { a: 1 });
    expect(inbox.add('created', v1, 0.5, 'f'.repeat(64), 1)?.seq).toBe(1);
    expect(inbox.add('created', v1, 0.5, 'f'.repeat(64), 2)).toBeNull();
    expect(inbox.add('created', v1, 0.5, 'e'.repeat(64), 3)?.seq).toBe(2);
    expect(inbox.add('updated', v2, 0.7, 'f'.repeat(64), 4)?.seq).toBe(3);
    expect(inbox.list().map((n) => [n.seq, n.kind, n.record.version])).toEqual([
      [1, 'created', 1],
      [2, 'created', 1],
      [3, 'updated', 2],
    ]);
    expect(inbox.list(2).map((n) => n.seq)).toEqual([3]);
  });

  it('is bounded: the oldest notifications go first', async () => {
    const inbox = new Inbox({ capacity: 3, filterCells: 1 << 14 });
    const o = await owner();
    for (let v = 1; v <= 5; v++)
      inbox.add('updated', await descriptor(o, v, { a: 1 }), 1, 'a'.repeat(64), v);
    expect(inbox.size).toBe(3);
    expect(inbox.list().map((n) => n.record.version)).toEqual([3, 4, 5]);
  });
});
