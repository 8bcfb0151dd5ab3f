/**
 * vitest globalSetup: the whole run writes its temporary files under one directory of its own
 * (TMPDIR, which os.tmpdir() reads and every spawned `cidx node` inherits), removed when the
 * run ends, whether its tests passed or failed — a test that forgets a directory, or dies before
 * its cleanup, leaves nothing behind.
 */
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export default function setup(): () => void {
  const before = process.env.TMPDIR;
  const root = mkdtempSync(join(tmpdir(), 'cidx-test-'));
  // As /tmp is: tests run commands as another user (nobody), which must read their files.
  chmodSync(root, 0o1777);
  process.env.TMPDIR = root;
  return () => {
    if (before === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = before;
    rmSync(root, { recursive: true, force: true });
  };
}
