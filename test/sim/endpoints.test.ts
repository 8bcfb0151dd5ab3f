/**
 * `cidx sim --endpoints`: three `cidx node` processes started here (one with an RPC token) stand
 * for a swarm that runs elsewhere. The workload runs against them; statements that would start,
 * stop or signal nodes are refused before anything is sent, naming their line; a wrong token is
 * answered 401 and changes nothing.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { runSimulation } from '../../sim/cli.ts';
import type { SimReport } from '../../sim/report/types.ts';
import { client, type NodeProcess, spawnNode, stop } from '../support/process.ts';

const dir = mkdtempSync(join(tmpdir(), 'cidx-endpoints-run-'));
const TOKEN = 'endpoints-test-token-0123456789';
const CLI = join(import.meta.dirname, '..', '..', 'dist', 'cli.js');
const base = ['--rpc', '127.0.0.1:0', '--listen', '/ip4/127.0.0.1/tcp/0', '--no-metrics'];
let nodes: NodeProcess[] = [];

beforeAll(async () => {
  const first = await spawnNode(base, { CIDX_RPC_TOKEN: '' });
  const boot = ['--bootstrap', first.ready.addrs[0] as string];
  nodes = [
    first,
    await spawnNode([...base, ...boot], { CIDX_RPC_TOKEN: '' }),
    await spawnNode([...base, ...boot], { CIDX_RPC_TOKEN: TOKEN }),
  ];
}, 120_000);

afterAll(async () => {
  await Promise.all(nodes.map((n) => stop(n)));
});

function write(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

/** The endpoints file: the third node's line carries `token` (by default the right one). */
function endpoints(name: string, token = TOKEN): string {
  const [a, b, c] = nodes.map((n) => n.ready.rpc);
  return write(name, `# the test swarm\n${a}\n${b}   # no token\n${c} token=${token}\n`);
}

/** runSimulation with its stderr caught. */
async function simulate(file: string, endpointsFile: string, out: string) {
  const lines: string[] = [];
  const spy = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
    lines.push(String(chunk));
    return true;
  });
  try {
    const code = await runSimulation(file, { endpoints: endpointsFile, out, progress: false });
    return { code, stderr: lines.join('') };
  } finally {
    spy.mockRestore();
  }
}

/** What each node was asked to do, by method (refused requests never count). */
async function calls(): Promise<Record<string, number>[]> {
  return Promise.all(
    nodes.map(async (n, i) => {
      const { rpc } = await client(n, i === 2 ? TOKEN : undefined).stats();
      const { stats: _, ...rest } = rpc.calls;
      return rest;
    }),
  );
}

describe('cidx sim --endpoints', () => {
  it('runs the workload on nodes it did not start, the token node included', async () => {
    const scenario = write(
      'workload.scenario',
      `seed 4
dataset c synthetic count=6 size=16 topics=3
at 0s create c
at +0s search c exact
at +0s update c perturb keep=0.9
at +0s wait 100ms
at +0s check findable
at +0s dissolve c 50%
report
expect communities.created == 6
expect search.top1_agreement == 1
expect update.count == 6
expect communities.findable == 1
expect nodes.alive == 3
`,
    );
    const out = join(dir, 'workload-out');
    const { code, stderr } = await simulate(scenario, endpoints('nodes.txt'), out);
    expect(stderr).toContain('5/5 expects hold');
    expect(code).toBe(0);
    const report = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')) as SimReport;
    expect(report.scenario.mode).toBe('endpoints');
    expect(report.metrics['traffic.cidx.bytes']).toBeGreaterThan(0);
    expect(report.metrics['traffic.cidx.messages']).toBeGreaterThan(0);
    expect(report.metrics['bytes.per_search']).toBeGreaterThan(0);
    // Owners round-robin over the three: each created two, the token node too.
    const made = (await calls()).map((c) => c['community.create']);
    expect(made).toEqual([2, 2, 2]);
    const dissolved = (await calls()).reduce((s, c) => s + (c['community.dissolve'] ?? 0), 0);
    expect(dissolved).toBe(3);
  }, 180_000);

  it('refuses statements that need nodes it controls, naming the line, before sending anything', async () => {
    const before = await calls();
    for (const [line, word] of [
      ['at 0s join 2', 'join'],
      ['at +0s kill 1', 'kill'],
      ['at +0s freeze 1 for 1s', 'freeze'],
      ['at +0s partition 50%', 'partition'],
    ]) {
      const scenario = write(
        `refused-${word}.scenario`,
        `seed 1\ndataset c synthetic count=1 size=4\n\n${line}\n`,
      );
      const { code, stderr } = await simulate(scenario, endpoints('refused.txt'), join(dir, 'x'));
      expect(code).toBe(2);
      expect(stderr).toMatch(
        new RegExp(
          `^cidx: ${scenario}:4: ${word} needs .*--netns.* \\(this run: --endpoints\\)\\n$`,
        ),
      );
    }
    expect(await calls()).toEqual(before);
  }, 60_000);

  it('refuses a scenario describing another swarm than the nodes run', async () => {
    const scenario = write('other-swarm.scenario', 'seed 1\nparams k=3\nat 0s wait 1ms\n');
    const { code, stderr } = await simulate(scenario, endpoints('k.txt'), join(dir, 'k'));
    expect(code).toBe(2);
    expect(stderr).toContain(`${scenario}:2: k=3, but the nodes of --endpoints run with k=5`);
  }, 60_000);

  it('a wrong token: 401 from the node, exit 2 naming the line, nothing changed', async () => {
    const scenario = write(
      'wrong.scenario',
      'seed 1\ndataset c synthetic count=2 size=4\nat 0s create c\n',
    );
    const before = await calls();
    const file = endpoints('wrong.txt', 'not-the-right-token-at-all');
    // Through the command line: one line on stderr, exit 2.
    const child = spawn(process.execPath, [CLI, 'sim', scenario, '--endpoints', file], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d) => {
      stderr += d.toString();
    });
    const code = await new Promise((resolve) => child.on('exit', resolve));
    expect(code).toBe(2);
    expect(stderr).toBe(
      `cidx: ${file}:4: ${nodes[2]?.ready.rpc}: HTTP 401: Authorization: Bearer <token> required (wrong or missing token)\n`,
    );
    // The refused node ran nothing; the others were only asked who they are.
    const after = await calls();
    expect(after[2]).toEqual(before[2]);
    const withoutInfo = (c: Record<string, number>[]) =>
      c.map(({ 'node.info': _, ...rest }) => rest);
    expect(withoutInfo(after)).toEqual(withoutInfo(before));
  }, 60_000);
});
