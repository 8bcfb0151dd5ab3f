/**
 * The process harness with real `cidx node` processes (dist/cli.js: `npm run build` first) on
 * 127.0.0.1, and a process using the harnesses that is interrupted in each way it can end.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { cleanupLeftovers, requireNetns } from '../../sim/netns/index.ts';
import { pidAlive } from '../../sim/netns/names.ts';
import { listNamespaces } from '../../sim/netns/namespaces.ts';
import { type NodeProcess, ProcessHarness } from '../../sim/processes/index.ts';
import { CidxClient, CidxHttpError } from '../../src/client/index.ts';
import { stillAlive } from '../support/netns-probe.ts';
import { variedProfiles } from '../support/swarm.ts';

const SUPPORT = join(import.meta.dirname, '..', 'support');
/** Set-up and teardown start and stop node processes: bounded, but not by vitest's 10 s default. */
const HOOK_MS = 120_000;

describe('cidx node processes on 127.0.0.1', () => {
  let harness: ProcessHarness;
  let a: NodeProcess;
  let b: NodeProcess;

  beforeAll(async () => {
    harness = new ProcessHarness();
    a = await harness.start({ name: 'a' });
    b = await harness.start({ name: 'b', bootstrap: [a.ready.addrs[0] as string] });
  }, HOOK_MS);

  afterAll(async () => {
    const pids = harness.nodes.map((p) => p.pid);
    await harness.close();
    expect(await stillAlive(pids)).toEqual([]);
    expect(existsSync(harness.root)).toBe(false);
  }, HOOK_MS);

  it('gives each node its own data directory and drives it over JSON-RPC', async () => {
    expect(a.info.dataDir).toBe(join(harness.root, 'a'));
    expect(existsSync(a.info.dataDir) && existsSync(b.info.dataDir)).toBe(true);
    const info = await b.client.nodeInfo();
    expect(info.peerId).toBe(b.ready.peerId);
    const [profile] = variedProfiles(1, 12, 5);
    const made = await a.client.communityCreate({ profile });
    const found = await b.client.communitySearch({ profile, k: 1 });
    expect(found.results.map((r) => r.id)).toEqual([made.id]);
  });

  it('freeze stops a node answering; thaw brings it back', async () => {
    harness.freeze(a);
    expect(a.frozen).toBe(true);
    // A client of its own with a short bound: the node answers nothing while frozen.
    const impatient = new CidxClient(a.ready.rpc, { timeoutMs: 1_000, token: harness.token });
    await expect(impatient.nodeInfo()).rejects.toThrow(CidxHttpError);
    harness.thaw(a);
    expect((await a.client.nodeInfo()).peerId).toBe(a.ready.peerId);
  });

  it('kill ends a node at once; starting its name again restarts it on its own data', async () => {
    const exit = await harness.kill(b);
    expect(exit).toEqual({ code: null, signal: 'SIGKILL' });
    expect(harness.nodes).not.toContain(b);
    const again = await harness.start({ name: 'b', bootstrap: [a.ready.addrs[0] as string] });
    expect(again.ready.peerId).toBe(b.ready.peerId);
    expect(again.pid).not.toBe(b.pid);
    b = again;
  });

  it('a SIGTERM as soon as the ready line is read is a graceful stop', async () => {
    const c = await harness.start({ name: 'c' });
    expect(await harness.leave(c)).toEqual({ code: 0, signal: null });
  });

  it('leave stops a node gracefully, also a frozen one', async () => {
    harness.freeze(b);
    expect(await harness.leave(b)).toEqual({ code: 0, signal: null });
    await expect(harness.start({ name: 'a' })).rejects.toThrow(/a is running/);
  });
});

describe('bounded waits', () => {
  const cli = join(SUPPORT, 'stubborn-node.ts');

  it('a node without a ready line is killed after the timeout, with a clear error', async () => {
    const h = new ProcessHarness({ cli, readyTimeoutMs: 500, env: { STUBBORN: 'silent' } });
    try {
      await expect(h.start({ name: 'mute' })).rejects.toThrow(/mute: no ready line within 500 ms/);
      expect(h.nodes).toEqual([]);
    } finally {
      await h.close();
    }
    // The default timeout: the line comes when it comes (a loaded machine starts slowly).
    const h2 = new ProcessHarness({ cli, env: { STUBBORN: 'garbage' } });
    try {
      await expect(h2.start()).rejects.toThrow(/not a ready line: starting up…/);
      expect(h2.nodes).toEqual([]);
    } finally {
      await h2.close();
    }
  });

  it('startMany starts in order, and on a failure stops the ones it started', async () => {
    const h = new ProcessHarness({ cli, env: { STUBBORN: 'deaf' }, exitTimeoutMs: 500 });
    try {
      const ps = await h.startMany([{ name: 'x' }, { name: 'y' }, { name: 'z' }], 2);
      expect(ps.map((p) => p.name)).toEqual(['x', 'y', 'z']);
      expect(h.nodes).toHaveLength(3);
      const started = h.nodes.map((p) => p.pid);
      await expect(
        h.startMany([{ name: 'u' }, { name: 'x' }, { name: 'v', env: { STUBBORN: 'silent' } }]),
      ).rejects.toThrow(/x is running/);
      // u (and v, if it got going) were killed; the earlier three still run.
      expect(h.nodes.map((p) => p.pid).sort()).toEqual(started.sort());
    } finally {
      await h.close();
    }
  });

  it('a node ignoring SIGTERM is killed after the exit timeout', async () => {
    const h = new ProcessHarness({ cli, exitTimeoutMs: 500, env: { STUBBORN: 'deaf' } });
    try {
      const p = await h.start();
      expect(await h.leave(p)).toEqual({ code: null, signal: 'SIGKILL' });
    } finally {
      await h.close();
    }
  });

  it('names a missing build', () => {
    expect(() => new ProcessHarness({ cli: '/nonexistent/cli.js' })).toThrow(/npm run build/);
  });
});

const children: ChildProcess[] = [];

/** Starts test/support/harness-child.ts; resolves with what it created. */
async function harnessChild(...args: string[]) {
  const child = spawn(process.execPath, [join(SUPPORT, 'harness-child.ts'), ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let stderr = '';
  child.stderr.on('data', (d) => {
    stderr += d.toString();
  });
  const exited = new Promise<number | string>((resolve) =>
    child.once('exit', (code, signal) => resolve(code ?? (signal as string))),
  );
  const line = await createInterface({ input: child.stdout })[Symbol.asyncIterator]().next();
  if (line.done) throw new Error(`harness-child: no output; stderr: ${stderr}`);
  const made = JSON.parse(line.value) as { prefix: string; root: string; pids: number[] };
  return { child, exited, made, stderr: () => stderr };
}

describe('a process using the harnesses, interrupted', () => {
  beforeAll(() => {
    requireNetns();
  });

  // A test that failed half-way leaves its child running: end it, and what it made.
  afterEach(async () => {
    const running = children.splice(0).filter((c) => c.exitCode === null && c.signalCode === null);
    for (const c of running) c.kill('SIGKILL');
    await Promise.all(running.map((c) => new Promise((r) => c.once('exit', r))));
    if (running.length > 0) await cleanupLeftovers();
  });

  afterAll(() => {
    expect(listNamespaces(`cidx-${process.pid}-`)).toEqual([]);
  });

  it('on SIGINT stops its nodes, removes its namespaces and directories, exits 130', async () => {
    const { child, exited, made } = await harnessChild('nodes');
    expect(made.pids.every(pidAlive)).toBe(true);
    expect(listNamespaces(`${made.prefix}-`)).toHaveLength(2);
    child.kill('SIGINT');
    expect(await exited).toBe(130);
    expect(await stillAlive(made.pids)).toEqual([]);
    expect(listNamespaces(`${made.prefix}-`)).toEqual([]);
    expect(existsSync(made.root)).toBe(false);
  });

  it('after an uncaught exception cleans up at exit', async () => {
    const { exited, made, stderr } = await harnessChild('nodes', 'throw');
    expect(await exited).toBe(1);
    expect(stderr()).toContain('an uncaught exception in the harness user');
    expect(await stillAlive(made.pids)).toEqual([]);
    expect(listNamespaces(`${made.prefix}-`)).toEqual([]);
    expect(existsSync(made.root)).toBe(false);
  });

  it('killed with SIGKILL: its nodes die with it, cleanupLeftovers removes the rest', async () => {
    const { child, exited, made } = await harnessChild('nodes');
    child.kill('SIGKILL');
    expect(await exited).toBe('SIGKILL');
    expect(await stillAlive(made.pids)).toEqual([]);
    expect(listNamespaces(`${made.prefix}-`)).toHaveLength(2);
    expect(existsSync(made.root)).toBe(true);
    const report = await cleanupLeftovers();
    // Other runs' leftovers may go too (test files run side by side): look at this one's.
    expect(report.namespaces.filter((n) => n.startsWith(`${made.prefix}-`))).toHaveLength(2);
    expect(report.tempDirs).toContain(made.root);
    expect(listNamespaces(`${made.prefix}-`)).toEqual([]);
    expect(existsSync(made.root)).toBe(false);
  });
});
