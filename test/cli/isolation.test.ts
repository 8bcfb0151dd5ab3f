import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * The tools do not load each other: `cidx node` never loads the simulator or vega (nor libp2p
 * before it runs a node), and the simulator imports nothing of the CLI. Each case runs a fresh
 * process with a preload that records every module it resolves (test/support/module-log.ts).
 */
const ROOT = join(import.meta.dirname, '..', '..');
const CLI = join(ROOT, 'src', 'cli.ts');
const LOGGER = join(ROOT, 'test', 'support', 'module-log.ts');
const dir = mkdtempSync(join(tmpdir(), 'cidx-isolation-'));
let runs = 0;

function modulesOf(args: string[]): { code: number | null; out: string; urls: string[] } {
  const log = join(dir, `modules-${runs++}.json`);
  const r = spawnSync(process.execPath, ['--import', LOGGER, ...args], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, MODULE_LOG_FILE: log },
    timeout: 60_000,
  });
  const { urls } = JSON.parse(readFileSync(log, 'utf8')) as { urls: string[] };
  return { code: r.status, out: r.stdout, urls: urls.map((u) => u.replace(/\\/g, '/')) };
}

const fromSim = (u: string) => u.includes('/sim/') && !u.includes('/node_modules/');
const fromVega = (u: string) => /\/node_modules\/vega/.test(u);
const fromLibp2p = (u: string) => /\/node_modules\/(libp2p|@libp2p)\//.test(u);

describe('the tools load only what they use', () => {
  it.each([[['node', '--help']], [['node', '--print-config']], [['--help']]])(
    'cidx %j loads neither the simulator nor vega nor libp2p',
    (args) => {
      const r = modulesOf([CLI, ...args]);
      expect(r.code).toBe(0);
      // The log saw the command line being built: an empty log would prove nothing.
      expect(r.urls.some((u) => u.endsWith('/src/cli/node-command.ts'))).toBe(true);
      expect(r.urls.filter(fromSim)).toEqual([]);
      expect(r.urls.filter(fromVega)).toEqual([]);
      expect(r.urls.filter(fromLibp2p)).toEqual([]);
    },
  );

  it('cidx sim loads the simulator, and vega, once it runs a scenario', () => {
    const file = join(dir, 'tiny.scenario');
    writeFileSync(file, 'seed 1\nexpect communities.created == 0\n');
    const r = modulesOf([CLI, 'sim', file, '--out', join(dir, 'out'), '--no-progress']);
    expect(r.code).toBe(0);
    expect(r.urls.some((u) => u.endsWith('/sim/cli.ts'))).toBe(true);
    expect(r.urls.some(fromVega)).toBe(true);
  });

  it('the simulator imports nothing of the CLI', () => {
    const files = (readdirSync(join(ROOT, 'sim'), { recursive: true }) as string[])
      .filter((f) => f.endsWith('.ts'))
      .map((f) => pathToFileURL(join(ROOT, 'sim', f)).href);
    expect(files.length).toBeGreaterThan(20);
    const code = `for (const f of ${JSON.stringify(files)}) await import(f);`;
    const r = modulesOf(['--input-type=module', '-e', code]);
    expect(r.code).toBe(0);
    expect(r.urls.filter(fromSim).length).toBeGreaterThanOrEqual(files.length);
    expect(r.urls.filter((u) => u.includes('/src/cli/') || u.endsWith('/src/cli.ts'))).toEqual([]);
  });
});
