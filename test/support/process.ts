import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { type AddressInfo, createServer } from 'node:net';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { CidxClient } from '../../src/client/index.ts';
import type { MethodName, MethodParams, MethodResult } from '../../src/rpc/api.ts';

const CLI = join(import.meta.dirname, '..', '..', 'src', 'cli.ts');

export interface NodeProcess {
  proc: ChildProcessWithoutNullStreams;
  ready: { peerId: string; addrs: string[]; rpc: string };
  stderr: () => string;
  /** Resolves with the exit code (or the signal's name). */
  exited: Promise<number | string>;
}

export interface LaunchedNode {
  proc: ChildProcessWithoutNullStreams;
  stderr: () => string;
  exited: Promise<number | string>;
  /** The ready line; rejects if the process exits first or prints something else. */
  ready: Promise<NodeProcess['ready']>;
}

/** Starts `cidx node` without waiting for it to be ready. */
export function launchNode(args: string[], env: Record<string, string> = {}): LaunchedNode {
  const proc = spawn(process.execPath, [CLI, 'node', ...args], { env: { ...process.env, ...env } });
  let err = '';
  proc.stderr.on('data', (d) => {
    err += d.toString();
  });
  const exited = new Promise<number | string>((resolve) =>
    proc.on('exit', (code, sig) => resolve(code ?? (sig as string))),
  );
  const lines = createInterface({ input: proc.stdout });
  const ready = new Promise<NodeProcess['ready']>((resolve, reject) => {
    lines.once('line', (line) => {
      try {
        const j = JSON.parse(line);
        if (j.event !== 'ready') throw new Error(`unexpected first line: ${line}`);
        resolve(j);
      } catch (e) {
        reject(e);
      }
    });
    exited.then((code) => reject(new Error(`exited (${code}) before ready; stderr: ${err}`)));
  });
  ready.catch(() => {}); // observed by whoever awaits it
  return { proc, stderr: () => err, exited, ready };
}

/** Spawns `cidx node` with the given flags and waits for its ready line (killed if none comes). */
export async function spawnNode(
  args: string[],
  env: Record<string, string> = {},
  timeoutMs = 60_000,
): Promise<NodeProcess> {
  const n = launchNode(args, env);
  let timer: NodeJS.Timeout | undefined;
  try {
    const ready = await Promise.race([
      n.ready,
      new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`no ready line within ${timeoutMs} ms; stderr: ${n.stderr()}`)),
          timeoutMs,
        );
      }),
    ]);
    return { proc: n.proc, ready, stderr: n.stderr, exited: n.exited };
  } catch (err) {
    n.proc.kill('SIGKILL');
    throw err;
  } finally {
    clearTimeout(timer);
  }
}

/** A TCP port free on 127.0.0.1 right now. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
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

/** A typed client of a node process's RPC port (the token, when the node was given one). */
export function client(p: NodeProcess | string, token?: string): CidxClient {
  const url = typeof p === 'string' ? p : p.ready.rpc;
  return new CidxClient(url, { timeoutMs: 60_000, token });
}

/** A JSON-RPC call that must succeed; returns its result. */
export function call<M extends MethodName>(
  url: string,
  method: M,
  params?: MethodParams<M>,
): Promise<MethodResult<M>> {
  return client(url).call(method, params);
}

export async function stop(
  p: NodeProcess,
  signal: NodeJS.Signals = 'SIGTERM',
): Promise<number | string> {
  if (p.proc.exitCode === null && p.proc.signalCode === null) p.proc.kill(signal);
  return p.exited;
}
