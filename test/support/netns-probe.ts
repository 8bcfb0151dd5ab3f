/**
 * TCP probes run inside namespaces: small Node programs (this runtime, `-e`), so a test sees
 * what a process on that host sees. An echo server greets each connection with the address it
 * sees the peer at (NAT tests read the masquerade from it) and echoes lines.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { type Host, type NetnsNetwork, requireNetns } from '../../sim/netns/index.ts';
import { pidAlive } from '../../sim/netns/names.ts';

const ECHO_SERVER = `
const [addr, port] = process.argv.slice(-2);
const srv = require('node:net').createServer((s) => {
  s.write('hello ' + s.remoteAddress + '\\n');
  s.pipe(s);
});
srv.listen(Number(port), addr, () => console.log('listening'));
`;

const CONNECT = `
const [addr, port, ms] = process.argv.slice(-3);
const s = require('node:net').connect(Number(port), addr);
const t = setTimeout(() => { console.log('timeout'); process.exit(3); }, Number(ms));
s.setEncoding('utf8');
s.on('data', (d) => { clearTimeout(t); console.log(d.split('\\n')[0]); process.exit(0); });
s.on('error', (e) => { clearTimeout(t); console.log('error ' + e.code); process.exit(4); });
`;

/** A TCP handshake only: a libp2p listener says nothing before the dialler does. */
const HANDSHAKE = `
const [addr, port, ms] = process.argv.slice(-3);
const s = require('node:net').connect(Number(port), addr, () => { console.log('connected'); process.exit(0); });
setTimeout(() => { console.log('timeout'); process.exit(3); }, Number(ms));
s.on('error', (e) => { console.log('error ' + e.code); process.exit(4); });
`;

/**
 * Whether a TCP handshake from inside namespace `netns` to addr:port completes within `ms`:
 * `connected`, `timeout` (packets dropped) or `error <code>`.
 */
export async function handshake(
  netns: string,
  addr: string,
  port: number,
  ms: number,
): Promise<string> {
  const p = spawn(
    requireNetns().ip,
    ['netns', 'exec', netns, process.execPath, '-e', HANDSHAKE, addr, String(port), String(ms)],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const line = await lines(p)(ms + 20_000);
  p.kill('SIGKILL');
  return line ?? 'no output';
}

/** Relays stdin lines to the connection and the connection's lines to stdout. */
const CLIENT = `
const [addr, port] = process.argv.slice(-2);
const s = require('node:net').connect(Number(port), addr);
s.setEncoding('utf8');
s.pipe(process.stdout);
process.stdin.pipe(s);
s.on('error', (e) => { console.log('error ' + e.code); process.exit(4); });
`;

/** Reads a child's stdout line by line; a wait that timed out leaves its line to the next. */
function lines(p: ChildProcess): (ms: number) => Promise<string | undefined> {
  if (!p.stdout) throw new Error('no stdout');
  const it = createInterface({ input: p.stdout })[Symbol.asyncIterator]();
  let pending: Promise<IteratorResult<string>> | undefined;
  return async (ms) => {
    pending ??= it.next();
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<undefined>((resolve) => {
      timer = setTimeout(() => resolve(undefined), ms);
    });
    const r = await Promise.race([pending, late]);
    clearTimeout(timer);
    if (r === undefined) return undefined;
    pending = undefined;
    return r.done ? undefined : r.value;
  };
}

export async function echoServer(
  net: NetnsNetwork,
  host: Host,
  port: number,
  addr = host.address,
): Promise<ChildProcess> {
  const p = net.spawn(host, process.execPath, ['-e', ECHO_SERVER, addr, String(port)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const first = await lines(p)(20_000);
  if (first !== 'listening') {
    p.kill('SIGKILL');
    throw new Error(`echo server in ${host.netns}: ${first ?? 'no output'}`);
  }
  return p;
}

/**
 * Connects from `from` and reads the greeting: `hello <address the server saw>`, or `timeout`
 * when no answer came within `ms` (dropped packets), or `error <code>`.
 */
export async function connect(
  net: NetnsNetwork,
  from: Host,
  addr: string,
  port: number,
  ms: number,
): Promise<string> {
  const p = net.spawn(from, process.execPath, ['-e', CONNECT, addr, String(port), String(ms)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const line = await lines(p)(ms + 20_000);
  p.kill('SIGKILL');
  return line ?? 'no output';
}

export interface Conversation {
  /** Sends a line; resolves with the echoed line, or undefined after `ms` without one. */
  say(text: string, ms: number): Promise<string | undefined>;
  /** Waits for the next line. */
  next(ms: number): Promise<string | undefined>;
  close(): void;
}

/** A long-lived connection from `from` (one TCP connection for its whole life). */
export async function converse(
  net: NetnsNetwork,
  from: Host,
  addr: string,
  port: number,
): Promise<Conversation> {
  const p = net.spawn(from, process.execPath, ['-e', CLIENT, addr, String(port)], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const next = lines(p);
  const greeting = await next(20_000);
  if (!greeting?.startsWith('hello ')) {
    p.kill('SIGKILL');
    throw new Error(`client in ${from.netns}: ${greeting ?? 'no greeting'}`);
  }
  return {
    say: (text, ms) => {
      p.stdin?.write(`${text}\n`);
      return next(ms);
    },
    next,
    close: () => p.kill('SIGKILL'),
  };
}

/** The pids among these that still run after waiting (bounded) for them to go. */
export async function stillAlive(pids: readonly number[], ms = 20_000): Promise<number[]> {
  const until = Date.now() + ms;
  for (;;) {
    const alive = pids.filter(pidAlive);
    if (alive.length === 0 || Date.now() > until) return alive;
    await sleep(50);
  }
}
