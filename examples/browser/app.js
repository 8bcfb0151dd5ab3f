// A cidx node in this page. Open it as index.html?peer=<a node's /ws address>, e.g.
//   ?peer=/ip4/127.0.0.1/tcp/4002/ws/p2p/12D3KooW…
// (the node: cidx node --reachability public --listen /ip4/127.0.0.1/tcp/4002/ws).
import { startBrowserNode } from '../../dist/browser.js';

const $ = (id) => document.getElementById(id);
const show = (text, error = false) => {
  $('status').textContent = text;
  $('status').className = error ? 'error' : '';
};
const item = (list, text) => {
  const li = document.createElement('li');
  li.textContent = text;
  list.append(li);
};

const peers = new URLSearchParams(location.search).getAll('peer');
if (peers.length === 0) show('add ?peer=<a node’s /ws address> to the URL', true);
else {
  try {
    const node = await startBrowserNode({ bootstrap: peers });
    window.cidxNode = node; // for the console (and tests)
    const showAddrs = () => ($('addrs').textContent = node.addrs.join(' ') || 'none');
    node.libp2p.services.reachability.addEventListener('relay-addresses', showAddrs);
    showAddrs();
    show(`node ${node.peerId} joined through ${peers.join(', ')}`);
    node.on('notification', (n) =>
      item(
        $('notifications'),
        `${n.kind} ${n.record.id} (similarity ${n.similarity.toFixed(3)} to ${n.for})`,
      ),
    );
    const profile = () => JSON.parse($('profile').value);
    const run = (button, action) =>
      $(button).addEventListener('click', async () => {
        $(button).disabled = true;
        try {
          await action();
        } catch (err) {
          show(`${button}: ${err.message}`, true);
        } finally {
          $(button).disabled = false;
        }
      });
    run('search', async () => {
      const results = await node.search(profile());
      $('results').replaceChildren();
      for (const r of results)
        item(
          $('results'),
          `${r.id} similarity ${r.similarity.toFixed(3)} contacts ${r.contacts.join(' ')}`,
        );
      show(`${results.length} result(s)`);
    });
    run('create', async () => {
      const { id, notified } = await node.create(profile());
      show(`created ${id}; ${notified} contact(s) notified`);
    });
    $('search').disabled = false;
    $('create').disabled = false;
    addEventListener('pagehide', () => node.stop());
  } catch (err) {
    show(`could not start: ${err.message}`, true);
  }
}
