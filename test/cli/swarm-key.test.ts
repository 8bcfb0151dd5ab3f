import { spawnSync } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseSwarmKey } from '../../src/net/swarm-key.ts';

const CLI = join(import.meta.dirname, '..', '..', 'src', 'cli.ts');

function cidx(args: string[]) {
  const r = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', timeout: 30_000 });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cidx-swarm-key-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('cidx swarm-key', () => {
  it('prints a new key that a node accepts', () => {
    const r = cidx(['swarm-key']);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^\/key\/swarm\/psk\/1\.0\.0\/\n\/base16\/\n[0-9a-f]{64}\n$/);
    expect(() => parseSwarmKey(new TextEncoder().encode(r.out))).not.toThrow();
  });

  it('writes it to a new file only its owner can read, and never over an existing file', async () => {
    const file = join(dir, 'swarm.key');
    const r = cidx(['swarm-key', '-o', file]);
    expect([r.code, r.out, r.err]).toEqual([0, '', '']);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const first = await readFile(file, 'utf8');
    expect(first).toMatch(/^\/key\/swarm\/psk\/1\.0\.0\/\n\/base16\/\n[0-9a-f]{64}\n$/);

    const again = cidx(['swarm-key', '-o', file]);
    expect(again.code).toBe(2);
    expect(again.err).toBe(
      `cidx: ${file}: already exists (a swarm key is never overwritten; remove it first)\n`,
    );
    expect(await readFile(file, 'utf8')).toBe(first);
    expect(await readdir(dir)).toEqual(['swarm.key']);
  });
});

describe('cidx node --swarm-key / --reachability', () => {
  it('refuses a bad key file or mode with one line and exit 2, before starting anything', async () => {
    const bad = join(dir, 'bad.key');
    await writeFile(bad, '/key/swarm/psk/1.0.0/\n/base16/\nabc\n');
    const r = cidx(['node', '--swarm-key', bad, '--rpc', '127.0.0.1:0']);
    expect(r.code).toBe(2);
    expect(r.err).toBe(`cidx: --swarm-key ${bad}: line 3 must be 64 hex digits (a 32-byte key)\n`);
    expect(r.out).toBe('');

    const missing = cidx(['node', '--swarm-key', join(dir, 'nope.key'), '--rpc', '127.0.0.1:0']);
    expect(missing.code).toBe(2);
    expect(missing.err).toBe(`cidx: --swarm-key ${join(dir, 'nope.key')}: cannot read (ENOENT)\n`);

    const mode = cidx(['node', '--reachability', 'sometimes']);
    expect(mode.code).toBe(2);
    expect(mode.err).toMatch(/^cidx: .*--reachability.*sometimes.*\n$/);
    expect(mode.err.split('\n')).toHaveLength(2);
  });
});
