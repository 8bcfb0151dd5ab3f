import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

const CLI = join(import.meta.dirname, '..', '..', 'src', 'cli.ts');

export interface NodeProcess {
  proc: ChildProcessWithoutNullStreams;
  ready: { peerId: string; addrs: string[]; rpc: string };
  stderr: () => string;
  /** Resolves with the exit code (or the signal's name). */
  exited: Promise<number | string>;
}

/** Spawns `cidx node` with the given flags and waits for its ready line. */
export async function spawnNode(
  args: string[],
  env: Record<string, string> = {},
  timeoutMs = 60_000,
): Promise<NodeProcess> {
  const proc = spawn(process.execPath, [CLI, 'node', ...args], { env: { ...process.env, ...env } });
  let err = '';
  proc.stderr.on('data', (d) => {
    err += d.toString();
  });
  const exited = new Promise<number | string>((resolve) =>
    proc.on('exit', (code, sig) => resolve(code ?? (sig as string))),
  );
  const lines = createInterface({ input: proc.stdout });
  const ready = await new Promise<NodeProcess['ready']>((resolve, reject) => {
    const t = setTimeout(
      () => reject(new Error(`no ready line within ${timeoutMs} ms; stderr: ${err}`)),
      timeoutMs,
    );
    lines.once('line', (line) => {
      clearTimeout(t);
      try {
        const j = JSON.parse(line);
        if (j.event !== 'ready') throw new Error(`unexpected first line: ${line}`);
        resolve(j);
      } catch (e) {
        reject(e);
      }
    });
    exited.then((code) => {
      clearTimeout(t);
      reject(new Error(`exited (${code}) before ready; stderr: ${err}`));
    });
  }).catch((e: unknown) => {
    // A node that never became ready is not left behind.
    if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL');
    throw e;
  });
  return { proc, ready, stderr: () => err, exited };
}

/**
 * Runs `cidx node` expecting it to fail; returns exit code and stderr. A process still running
 * after `timeoutMs` is killed (its code is then the signal's name).
 */
export async function runNodeExpectingFailure(
  args: string[],
  env: Record<string, string> = {},
  timeoutMs = 60_000,
): Promise<{ code: number | string; stderr: string; stdout: string }> {
  const proc = spawn(process.execPath, [CLI, 'node', ...args], { env: { ...process.env, ...env } });
  let stderr = '';
  let stdout = '';
  proc.stderr.on('data', (d) => {
    stderr += d.toString();
  });
  proc.stdout.on('data', (d) => {
    stdout += d.toString();
  });
  const kill = setTimeout(() => proc.kill('SIGKILL'), timeoutMs);
  const code = await new Promise<number | string>((resolve) =>
    proc.on('exit', (c, s) => resolve(c ?? (s as string))),
  ).finally(() => clearTimeout(kill));
  return { code, stderr, stdout };
}

let nextId = 1;

/** A JSON-RPC result as the tests read it: shape checked by their assertions, not by types. */
// biome-ignore lint/suspicious/noExplicitAny: see above
type RpcValue = any;

/** One JSON-RPC call; returns the whole response object ({result} or {error}). */
export async function rpc(
  url: string,
  method: string,
  params?: unknown,
): Promise<{ result?: RpcValue; error?: { code: number; message: string } }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: nextId++,
      method,
      ...(params === undefined ? {} : { params }),
    }),
    signal: AbortSignal.timeout(60_000),
  });
  return res.json() as Promise<{ result?: RpcValue; error?: { code: number; message: string } }>;
}

/** A JSON-RPC call that must succeed; returns its result. */
export async function call(url: string, method: string, params?: unknown): Promise<RpcValue> {
  const r = await rpc(url, method, params);
  if (r.error) throw new Error(`${method}: ${r.error.code} ${r.error.message}`);
  return r.result;
}

export async function stop(
  p: NodeProcess,
  signal: NodeJS.Signals = 'SIGTERM',
): Promise<number | string> {
  if (p.proc.exitCode === null && p.proc.signalCode === null) p.proc.kill(signal);
  return p.exited;
}
