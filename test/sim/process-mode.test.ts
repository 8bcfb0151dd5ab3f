/**
 * `cidx sim --processes`: scenarios on real `cidx node` processes (dist/cli.js: `npm run build`
 * first), TCP + noise on 127.0.0.1, driven over JSON-RPC; and the command line's ways to end —
 * a failed expect, Ctrl-C — each leaving no process or directory behind.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, describe, expect, it } from 'vitest';
import { runScenario } from '../../sim/interpreter.ts';
import { CAPABILITIES, type SwarmMode } from '../../sim/modes.ts';
import { ProcessSwarm } from '../../sim/processes/swarm.ts';
import type { SimReport } from '../../sim/report/types.ts';
import { parseScenario } from '../../sim/scenario.ts';
import { stillAlive } from '../support/netns-probe.ts';

const dir = mkdtempSync(join(tmpdir(), 'cidx-procmode-'));
const CLI = join(import.meta.dirname, '..', '..', 'dist', 'cli.js');
const children: ChildProcess[] = [];

afterAll(() => {
  for (const c of children) c.kill('SIGKILL');
});

function scenario(name: string, text: string): string {
  const file = join(dir, `${name}.scenario`);
  writeFileSync(file, text);
  return file;
}

/** Pids of processes whose command line names a path under a run directory of `pid`. */
function nodesOf(pid: number): number[] {
  const prefix = join(tmpdir(), `cidx-${pid}-`);
  return readdirSync('/proc')
    .filter((e) => /^\d+$/.test(e))
    .filter((e) => {
      try {
        return readFileSync(`/proc/${e}/cmdline`, 'utf8')
          .split('\0')
          .some((a) => a.startsWith(prefix));
      } catch {
        return false;
      }
    })
    .map(Number);
}

/** Run directories of `pid` left in the temporary directory. */
const dirsOf = (pid: number) => readdirSync(tmpdir()).filter((n) => n.startsWith(`cidx-${pid}-`));

describe('a scenario on six cidx node processes', () => {
  it('creates, searches from other nodes, survives a crashed holder, republishes: all findable', async () => {
    const text = `
seed 11
index lsh n=10 m=1 seed=process-mode
params k=3 replicas=3
timing republish=10m ttl=30m tombstone=1h
dataset communities synthetic count=8 size=20 topics=4
at 0s join 6
at +0s create communities from=0-2
at +0s search communities exact from=3-5
at +0s kill 1 which=holders
at +0s republish
at +0s check findable
expect communities.findable == 1
expect search.top1_agreement == 1
expect search.unresolved == 0
expect nodes.alive == 5
`;
    const file = scenario('six', text);
    let swarm: ProcessSwarm | undefined;
    const mode: SwarmMode = {
      name: 'processes',
      can: CAPABILITIES.processes,
      create: (config, rng) => {
        swarm = new ProcessSwarm(config, rng);
        return swarm;
      },
    };
    let pids: number[] = [];
    const report = await runScenario(parseScenario(text, file), {
      file,
      swarm: mode,
      aroundCommand: async (_command, run) => {
        await run();
        pids = [...new Set([...pids, ...(swarm?.alive() ?? []).map((p) => p.proc.pid)])];
      },
    });
    expect(report.expects.filter((e) => !e.pass)).toEqual([]);
    expect(report.scenario.mode).toBe('processes');
    const m = report.metrics;
    // Every protocol's traffic, summed from the nodes' stats: the DHTs and cidx at least.
    for (const p of ['cidx', 'profiles_dht', 'addresses_dht', 'identify'])
      expect(m[`traffic.${p}.bytes`], p).toBeGreaterThan(0);
    expect(m['bytes.per_search.cidx']).toBeGreaterThan(0);
    expect(m['search.requests']).toBeGreaterThan(0);
    expect(m['lookup.count']).toBeGreaterThan(0);
    expect(m['index.entries']).toBeGreaterThanOrEqual(8);
    expect(m['memory.node_rss_mb']).toBeGreaterThan(m['memory.node_anon_mb'] ?? Infinity);
    expect(m['time.node_start_ms']).toBeGreaterThan(0);
    // Six processes ran, and none is left, nor their directories.
    expect(pids).toHaveLength(6);
    expect(await stillAlive(pids)).toEqual([]);
    expect(dirsOf(process.pid)).toEqual([]);
  }, 240_000);
});

/** `cidx sim …` as a child; resolves when its stderr shows `line` (or it exits). */
function simChild(args: string[]) {
  const child = spawn(process.execPath, [CLI, 'sim', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let stderr = '';
  const lines = createInterface({ input: child.stderr });
  const seen: { line: string; resolve: () => void }[] = [];
  lines.on('line', (l) => {
    stderr += `${l}\n`;
    for (const w of seen) if (l.includes(w.line)) w.resolve();
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return {
    child,
    exited,
    stderr: () => stderr,
    until: (line: string) =>
      new Promise<void>((resolve) => {
        if (stderr.includes(line)) resolve();
        else seen.push({ line, resolve });
        void exited.then(() => resolve());
      }),
  };
}

describe('cidx sim --processes, ending', () => {
  const base = `
seed 2
index lsh n=6 m=1 seed=ending
dataset c synthetic count=2 size=12 topics=1
at 0s join 2
at +0s create c
`;

  it('a failed expect exits 1 after removing every node process', async () => {
    const file = scenario('failing', `${base}expect communities.created == 3\n`);
    const out = join(dir, 'failing-out');
    const run = simChild([file, '--processes', '--out', out, '--no-progress']);
    expect(await run.exited).toBe(1);
    expect(run.stderr()).toMatch(
      /FAIL .*failing\.scenario:7: expect communities\.created == 3 \(actual 2\)/,
    );
    const pid = run.child.pid as number;
    expect(await stillAlive(nodesOf(pid))).toEqual([]);
    expect(dirsOf(pid)).toEqual([]);
    const report = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')) as SimReport;
    expect(report.scenario.mode).toBe('processes');
  }, 120_000);

  it('Ctrl-C stops the run, writes the report so far, reaps the nodes and exits 130', async () => {
    const file = scenario('long', `${base}at +0s wait 10m\nexpect communities.created == 2\n`);
    const out = join(dir, 'long-out');
    const run = simChild([file, '--processes', '--out', out]);
    await run.until('create c done');
    const pid = run.child.pid as number;
    const nodes = nodesOf(pid);
    expect(nodes).toHaveLength(2);
    run.child.kill('SIGINT');
    expect(await run.exited).toBe(130);
    expect(await stillAlive(nodes)).toEqual([]);
    expect(dirsOf(pid)).toEqual([]);
    const report = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')) as SimReport;
    expect(report.scenario.interrupted).toBe(true);
    expect(report.metrics['communities.created']).toBe(2);
    // The expect after the interrupted wait never ran.
    expect(report.expects).toEqual([]);
    expect(run.stderr()).toMatch(/interrupted; reports of the run so far: /);
  }, 120_000);
});
