/**
 * npm run bench:startup — what starting a `cidx` command costs before it does anything: wall
 * time and CPU time, peak RSS (medians over fresh processes), and the modules it loads (how many, how many of
 * them the simulator's or vega's). Runs the built CLI (`npm run build` first).
 *
 * Usage: npm run bench:startup [-- [--runs 20] node --help]   (default: node --help)
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { removedAtExit } from './removed-at-exit.ts';

// `--runs N` first; everything after it is the cidx command line (flags of cidx included).
const argv = process.argv.slice(2);
const runs = argv[0] === '--runs' ? Number(argv[1]) : 20;
const positionals = argv[0] === '--runs' ? argv.slice(2) : argv;
const ROOT = resolve(import.meta.dirname, '..');
const CLI = join(ROOT, 'dist', 'cli.js');
const LOGGER = join(ROOT, 'test', 'support', 'module-log.ts');
const args = positionals.length > 0 ? positionals : ['node', '--help'];

function run(nodeArgs: string[], env: Record<string, string> = {}): number {
  const t = process.hrtime.bigint();
  const r = spawnSync(process.execPath, [...nodeArgs, CLI, ...args], {
    encoding: 'utf8',
    env: { ...process.env, ...env },
    timeout: 60_000,
  });
  if (r.status !== 0) throw new Error(`cidx ${args.join(' ')} exited ${r.status ?? r.signal}`);
  return Number(process.hrtime.bigint() - t) / 1e6;
}

// A preload that writes the process's peak RSS and CPU time at exit (no module hook: it would
// cost time of its own). CPU time moves less than wall time on a machine shared with others.
const dir = mkdtempSync(join(tmpdir(), 'cidx-startup-'));
removedAtExit(dir);
const usageFile = join(dir, 'usage');
const usageHook = `data:text/javascript,import{writeFileSync as w}from'node:fs';process.on('exit',()=>{const u=process.resourceUsage();w(${JSON.stringify(usageFile)},JSON.stringify([u.maxRSS,(u.userCPUTime+u.systemCPUTime)/1000]))})`;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
run([]); // warm the file cache
const wall: number[] = [];
const cpu: number[] = [];
const rss: number[] = [];
for (let i = 0; i < runs; i++) {
  wall.push(run(['--import', usageHook]));
  const [kib, ms] = JSON.parse(readFileSync(usageFile, 'utf8')) as [number, number];
  rss.push(kib / 1024);
  cpu.push(ms);
}
const logFile = join(dir, 'modules.json');
run(['--import', LOGGER], { MODULE_LOG_FILE: logFile });
const { urls } = JSON.parse(readFileSync(logFile, 'utf8')) as { urls: string[] };
const files = urls.filter((u) => u.startsWith('file:'));
const row = {
  command: `cidx ${args.join(' ')}`,
  wallMs: Math.round(median(wall)),
  cpuMs: Math.round(median(cpu)),
  peakRssMiB: Math.round(median(rss)),
  modules: files.length,
  simModules: files.filter((u) => /\/sim\//.test(u)).length,
  vegaModules: files.filter((u) => /\/node_modules\/vega/.test(u)).length,
};
console.log(
  `| command | wall time (ms) | CPU time (ms) | peak RSS (MiB) | modules loaded | of them sim/ | of them vega |`,
);
console.log('|---|---|---|---|---|---|---|');
console.log(
  `| \`${row.command}\` | ${row.wallMs} | ${row.cpuMs} | ${row.peakRssMiB} | ${row.modules} | ${row.simModules} | ${row.vegaModules} |`,
);
