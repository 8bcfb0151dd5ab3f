import type { Inbox, Notification } from '../../index/inbox.ts';
import type { IndexTable } from '../../index/index-table.ts';
import type { ResolvedSwarm } from '../../index/swarm.ts';
import type { ParseOptions } from '../../profile/parse.ts';
import type { Router } from '../route.ts';

/** What the handlers need, injected so the same handlers serve a process, a test or a simulator. */
export interface HandlerComponents {
  table: IndexTable;
  inbox: Inbox;
  swarm: ResolvedSwarm;
  profileLimits: ParseOptions;
  /** Bytes a response may use for records (the frame limit minus headroom). */
  responseBudget: number;
  now(): number;
  /** Writes the table's pending changes durably; awaited before an answer goes out. */
  persist(): Promise<void>;
  /** Called for every notification accepted into the inbox; awaited before the answer. */
  notified(n: Notification): Promise<void>;
  /** Routes reads handed to this node (set once the node's client exists); none: unrouted. */
  router?: Router;
}
