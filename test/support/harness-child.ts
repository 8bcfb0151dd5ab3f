/**
 * A process that uses the harnesses and is then interrupted by a test: it prints one JSON line
 * naming what it created, then waits (to be sent SIGINT, SIGTERM or SIGKILL) or throws.
 *
 *   node harness-child.ts sleeper         a network with one host running `sleep`
 *   node harness-child.ts nodes [throw]   + one cidx node in the host, one on 127.0.0.1
 */
import { NetnsNetwork } from '../../sim/netns/index.ts';
import { ProcessHarness } from '../../sim/processes/index.ts';

const [mode, then] = process.argv.slice(2);
const net = await NetnsNetwork.create({ hosts: 1 });
const host = net.hosts[0];
if (!host) throw new Error('no host');
const pids: number[] = [];
let root: string | undefined;
if (mode === 'sleeper') {
  const p = net.spawn(host, 'sleep', ['1000'], { stdio: 'ignore' });
  if (p.pid === undefined) throw new Error('sleep did not start');
  pids.push(p.pid);
} else {
  const harness = new ProcessHarness({ network: net });
  root = harness.root;
  const [a, b] = await Promise.all([harness.start({ host }), harness.start({ name: 'local' })]);
  pids.push(a.pid, b.pid);
}
process.stdout.write(`${JSON.stringify({ prefix: net.prefix, root, pids })}\n`);
if (then === 'throw')
  setTimeout(() => {
    throw new Error('an uncaught exception in the harness user');
  }, 50);
else setInterval(() => {}, 60_000);
