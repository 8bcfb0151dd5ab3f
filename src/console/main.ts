/**
 * The web console of a cidx node, served by the node itself on GET /: it talks to the same
 * origin only (the node's Content-Security-Policy allows nothing else), through the typed client.
 */
import { CidxClient, CidxHttpError, CidxRpcError } from '../client/index.ts';
import { setUpCommunities } from './communities-view.ts';
import { byId, status } from './dom.ts';
import { renderNode } from './node-view.ts';
import { startNotifications } from './notifications-view.ts';
import { setUpSearch } from './search-view.ts';

const TOKEN_KEY = 'cidx-rpc-token';

function explain(err: unknown): string {
  if (err instanceof CidxRpcError) return `${err.message} (code ${err.code})`;
  if (err instanceof CidxHttpError && err.status === 401) return 'the node wants its RPC token';
  return (err as Error)?.message ?? String(err);
}

function main(): void {
  let token = sessionStorage.getItem(TOKEN_KEY) ?? undefined;
  let client = new CidxClient(location.origin, { token });
  const current = () => client;
  const conn = byId('conn');
  const tokenForm = byId<HTMLFormElement>('token-form');
  const tokenInput = byId<HTMLInputElement>('token');
  const info = byId('node-info');
  let stopNotes: (() => void) | undefined;

  const refreshNode = async () => renderNode(info, await client.nodeInfo());
  // A burst of notifications (a replay on connect) refreshes the node's counts once.
  let refreshTimer: ReturnType<typeof setTimeout> | undefined;
  const refreshSoon = () => {
    clearTimeout(refreshTimer);
    refreshTimer = setTimeout(() => void refreshNode().catch(() => {}), 250);
  };
  setUpSearch(current, explain);
  const owned = setUpCommunities(current, explain, () => void refreshNode().catch(() => {}));

  const connect = async () => {
    try {
      await refreshNode();
    } catch (err) {
      if (err instanceof CidxHttpError && err.status === 401) {
        status(conn, token === undefined ? 'this node needs its RPC token' : 'wrong token', true);
        tokenForm.hidden = false;
        tokenInput.focus();
        return;
      }
      status(conn, `cannot reach the node: ${explain(err)}`, true);
      return;
    }
    tokenForm.hidden = true;
    status(conn, `connected to ${location.host}`);
    await owned.refresh().catch((err) => status(byId('owned-status'), explain(err), true));
    stopNotes?.();
    stopNotes = startNotifications(client, token !== undefined, refreshSoon);
  };

  tokenForm.addEventListener('submit', (e) => {
    e.preventDefault();
    token = tokenInput.value.trim();
    tokenInput.value = '';
    sessionStorage.setItem(TOKEN_KEY, token);
    client = new CidxClient(location.origin, { token });
    void connect();
  });
  byId('node-refresh').addEventListener('click', () => {
    refreshNode().catch((err) => status(conn, explain(err), true));
  });
  void connect();
}

if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', main);
else main();
