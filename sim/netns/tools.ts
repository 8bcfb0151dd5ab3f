/**
 * The system tools the namespace harness drives (iproute2's `ip`, `nft`, util-linux's
 * `setpriv`), found once, and one way to run them: bounded in time and output, failing with
 * the tool's own first error line.
 */
import { execFileSync, spawn } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

/** The harness cannot run here (not Linux, not root, a tool missing): a one-line reason. */
export class NetnsUnavailableError extends Error {
  override name = 'NetnsUnavailableError';
}

/** A tool exited non-zero or timed out. */
export class ToolError extends Error {
  override name = 'ToolError';
}

export interface Tools {
  ip: string;
  nft: string;
  /** Makes a child die with this process (PR_SET_PDEATHSIG); absent → children may outlive a kill -9. */
  setpriv?: string;
}

/** Root's tools live in sbin, which a non-login PATH may lack. */
const EXTRA_DIRS = ['/usr/sbin', '/sbin', '/usr/bin', '/bin'];

function findExecutable(name: string): string | undefined {
  const dirs = [...(process.env.PATH ?? '').split(delimiter).filter(Boolean), ...EXTRA_DIRS];
  for (const dir of dirs) {
    const path = join(dir, name);
    try {
      accessSync(path, constants.X_OK);
      return path;
    } catch {}
  }
  return undefined;
}

let cached: Tools | undefined;

/**
 * Checks that namespaces can be used here and finds the tools; throws NetnsUnavailableError
 * with a one-line reason (a CLI prints it and exits 2).
 */
export function requireNetns(): Tools {
  if (cached) return cached;
  if (process.platform !== 'linux')
    throw new NetnsUnavailableError(
      `network namespaces need Linux (this is ${process.platform}); run without --netns`,
    );
  if (typeof process.getuid !== 'function' || process.getuid() !== 0)
    throw new NetnsUnavailableError(
      `network namespaces need root (uid ${process.getuid?.()}); run as root or without --netns`,
    );
  const ip = findExecutable('ip');
  const nft = findExecutable('nft');
  const missing = [
    ...(ip ? [] : ['ip (package iproute2)']),
    ...(nft ? [] : ['nft (package nftables)']),
  ];
  if (!ip || !nft)
    throw new NetnsUnavailableError(
      `missing ${missing.join(' and ')}: apt-get install -y iproute2 nftables`,
    );
  cached = { ip, nft, setpriv: findExecutable('setpriv') };
  return cached;
}

/** setpriv alone (for processes outside namespaces); undefined off Linux or without it. */
export function findSetpriv(): string | undefined {
  return process.platform === 'linux' ? findExecutable('setpriv') : undefined;
}

const OUTPUT_LIMIT = 4 << 20;

function describe(cmd: string, args: readonly string[]): string {
  const name = cmd.split('/').pop();
  return [name, ...args].join(' ').slice(0, 200);
}

function firstErrorLine(stderr: string): string {
  return stderr.split('\n').find((l) => l.trim() !== '') ?? '';
}

/** Runs a tool; resolves with its stdout, rejects with ToolError naming the command. */
export function runTool(
  cmd: string,
  args: readonly string[],
  opts: { input?: string; timeoutMs?: number } = {},
): Promise<string> {
  const timeoutMs = opts.timeoutMs ?? 30_000;
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => {
      if (out.length < OUTPUT_LIMIT) out += d.toString();
    });
    child.stderr.on('data', (d: Buffer) => {
      if (err.length < OUTPUT_LIMIT) err += d.toString();
    });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new ToolError(`${describe(cmd, args)}: no exit within ${timeoutMs} ms`));
    }, timeoutMs);
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(new ToolError(`${describe(cmd, args)}: ${e.message}`));
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve(out);
      else
        reject(
          new ToolError(
            `${describe(cmd, args)}: ${firstErrorLine(err) || `exit ${code ?? signal}`}`,
          ),
        );
    });
    child.stdin.on('error', () => {}); // a tool that exits early closes its stdin; its exit code tells
    child.stdin.end(opts.input ?? '');
  });
}

/** The same, synchronously: for the `exit` path, where the event loop no longer runs. */
export function runToolSync(
  cmd: string,
  args: readonly string[],
  opts: { input?: string; timeoutMs?: number } = {},
): string {
  try {
    return execFileSync(cmd, args, {
      input: opts.input ?? '',
      timeout: opts.timeoutMs ?? 30_000,
      maxBuffer: OUTPUT_LIMIT,
      stdio: ['pipe', 'pipe', 'pipe'],
    }).toString();
  } catch (e) {
    const err = e as { stderr?: Buffer; message: string };
    throw new ToolError(
      `${describe(cmd, args)}: ${firstErrorLine(err.stderr?.toString() ?? '') || err.message}`,
    );
  }
}
