/**
 * `cidx sim --cleanup` (root; `npm run build` first): removes a namespace and a temporary
 * directory an interrupted run left (named after a process that no longer runs), prints what it
 * removed; and as another user, refuses with one line and exit 2, as `cidx sim --netns` does.
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { requireNetns } from '../../sim/netns/index.ts';
import { listNamespaces } from '../../sim/netns/namespaces.ts';

const CLI = join(import.meta.dirname, '..', '..', 'dist', 'cli.js');
const made: { netns?: string; dir?: string } = {};

afterAll(() => {
  if (made.dir) rmSync(made.dir, { recursive: true, force: true });
  if (made.netns && listNamespaces(made.netns).length > 0)
    spawnSync(requireNetns().ip, ['netns', 'del', made.netns]);
});

/** The pid of a process that has run and exited: the owner of a run that is gone. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '']);
  await new Promise((resolve) => child.on('exit', resolve));
  return child.pid as number;
}

function cidx(args: string[], wrap: string[] = []) {
  const [file, ...rest] = [...wrap, process.execPath, CLI, ...args];
  return spawnSync(file as string, rest, { encoding: 'utf8', timeout: 60_000 });
}

describe('cidx sim --cleanup', () => {
  it('removes the namespace and directory of a run that is gone, and says so', async () => {
    const { ip } = requireNetns();
    const pid = await deadPid();
    made.netns = `cidx-${pid}-0-h0`;
    made.dir = join(tmpdir(), `cidx-${pid}-0-leftover`);
    execFileSync(ip, ['netns', 'add', made.netns]);
    mkdirSync(join(made.dir, 'n0'), { recursive: true });
    const r = cidx(['sim', '--cleanup']);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`removed \\d+ network namespace\\(s\\): .*${made.netns}`));
    expect(r.stdout).toMatch(
      new RegExp(`removed \\d+ temporary director\\(y/ies\\): .*${made.dir}`),
    );
    expect(listNamespaces(made.netns)).toEqual([]);
    expect(existsSync(made.dir)).toBe(false);
  });

  it('as another user: one line, exit 2', () => {
    const setpriv = requireNetns().setpriv;
    if (setpriv === undefined)
      throw new Error('setpriv (util-linux) is needed to run as another user');
    const r = cidx(
      ['sim', '--cleanup'],
      [setpriv, '--reuid=65534', '--regid=65534', '--clear-groups'],
    );
    expect(r.status).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      'cidx: --cleanup: network namespaces need root (uid 65534); run as root\n',
    );
  });

  it('--netns as another user: one line, exit 2, nothing started', () => {
    const setpriv = requireNetns().setpriv;
    if (setpriv === undefined)
      throw new Error('setpriv (util-linux) is needed to run as another user');
    // Readable by that user: the temporary directory itself, not a private one inside it.
    const file = join(tmpdir(), `netns-refused-${process.pid}.scenario`);
    writeFileSync(file, 'seed 1\nat 0s join 2\n', { mode: 0o644 });
    try {
      const r = cidx(
        ['sim', file, '--netns'],
        [setpriv, '--reuid=65534', '--regid=65534', '--clear-groups'],
      );
      expect(r.status).toBe(2);
      expect(r.stderr).toBe(
        'cidx: --netns: network namespaces need root (uid 65534); run as root or without --netns\n',
      );
    } finally {
      rmSync(file, { force: true });
    }
  });

  it('takes no scenario', () => {
    const r = cidx(['sim', 'x.scenario', '--cleanup']);
    expect(r.status).toBe(2);
    expect(r.stderr).toBe('cidx: --cleanup takes no scenario\n');
  });
});
