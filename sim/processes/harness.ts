/**
 * Many `cidx node` processes, each with its own data directory under one temporary directory
 * of the run, on 127.0.0.1 or each inside a namespace of a NetnsNetwork. Every child is reaped
 * and the directory removed on close, on SIGINT/SIGTERM of this process, after an exception and
 * at exit (sim/teardown.ts); on Linux each child also dies with this process (PR_SET_PDEATHSIG
 * through setpriv), so not even a kill -9 of the harness leaves nodes running.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import type { Host, NetnsNetwork } from '../netns/index.ts';
import { takeRunPrefix } from '../netns/names.ts';
import { findSetpriv } from '../netns/tools.ts';
import { onTeardown } from '../teardown.ts';
import { type ExitInfo, NodeProcess, type SpawnSpec } from './node-process.ts';

export interface HarnessOptions {
  /** `cidx`'s entry point (default: this package's dist/cli.js). */
  cli?: string;
  /** Runs nodes inside this network's hosts (StartSpec.host). */
  network?: NetnsNetwork;
  /** Ready line timeout (default 30 s). */
  readyTimeoutMs?: number;
  /** SIGTERM → exit timeout before SIGKILL (default 20 s). */
  exitTimeoutMs?: number;
  /** Per JSON-RPC call (default: the client's, 120 s). */
  rpcTimeoutMs?: number;
  /** Added to every node's environment. */
  env?: Record<string, string>;
}

export interface StartSpec {
  /** Unique among running nodes; names the data directory (default `n<count>`). A name used
   * before, by a node that has exited, restarts that node on its data (same identity). */
  name?: string;
  /** Run inside this host's namespace, listening on its address. */
  host?: Host;
  /** Address to listen on and serve JSON-RPC on (default: the host's, else 127.0.0.1). */
  address?: string;
  /** Multiaddrs to join through. */
  bootstrap?: readonly string[];
  /** More `cidx node` flags (index parameters, replicas, …). */
  args?: readonly string[];
  env?: Record<string, string>;
}

/** dist/cli.js of this package, from the source tree (sim/processes) or the build (dist/sim/processes). */
function defaultCli(): string {
  const root = join(import.meta.dirname, '..', '..');
  return basename(root) === 'dist' ? join(root, 'cli.js') : join(root, 'dist', 'cli.js');
}

export class ProcessHarness {
  readonly root: string;
  readonly #cli: string;
  readonly #opts: HarnessOptions;
  readonly #live = new Set<NodeProcess>();
  readonly #setpriv = findSetpriv();
  /**
   * The RPC token of this run's nodes: a node whose RPC port is not on loopback (one in a
   * namespace) refuses to start without one, and it costs nothing on loopback.
   */
  readonly #token = randomBytes(24).toString('hex');
  readonly #release: () => void;
  readonly #unregister: () => void;
  #count = 0;
  #closed: Promise<void> | undefined;

  constructor(opts: HarnessOptions = {}) {
    this.#opts = opts;
    this.#cli = opts.cli ?? defaultCli();
    if (!existsSync(this.#cli)) throw new Error(`${this.#cli} not found: run npm run build first`);
    const { prefix, release } = takeRunPrefix();
    this.#release = release;
    this.root = mkdtempSync(join(tmpdir(), `${prefix}-`));
    this.#unregister = onTeardown({
      label: `node processes in ${this.root}`,
      run: () => this.close(),
      runSync: () => this.#closeSync(),
    });
  }

  /** The RPC token every node of this harness is started with. */
  get token(): string {
    return this.#token;
  }

  /** The nodes still running (frozen ones included). */
  get nodes(): NodeProcess[] {
    return [...this.#live];
  }

  #spawnSpec(spec: StartSpec, name: string, dataDir: string): SpawnSpec {
    const address = spec.address ?? spec.host?.address ?? '127.0.0.1';
    const args = [
      this.#cli,
      'node',
      ...['--data', dataDir, '--listen', `/ip4/${address}/tcp/0`, '--rpc', `${address}:0`],
      ...(spec.bootstrap ?? []).flatMap((b) => ['--bootstrap', b]),
      ...(spec.args ?? []),
    ];
    const env = { ...process.env, CIDX_RPC_TOKEN: this.#token, ...this.#opts.env, ...spec.env };
    if (spec.host) {
      const net = this.#opts.network;
      if (!net) throw new Error(`${name}: a host needs the harness's network option`);
      const [file, argv] = net.command(spec.host.netns, process.execPath, args);
      return { file, args: argv, env };
    }
    if (this.#setpriv)
      return {
        file: this.#setpriv,
        args: ['--pdeathsig', 'KILL', '--', process.execPath, ...args],
        env,
      };
    return { file: process.execPath, args, env };
  }

  /** Starts one node and waits for its ready line. */
  async start(spec: StartSpec = {}, signal?: AbortSignal): Promise<NodeProcess> {
    if (this.#closed) throw new Error('process harness is closed');
    const name = spec.name ?? `n${this.#count}`;
    this.#count++;
    if (!/^[\w.-]{1,64}$/.test(name)) throw new Error(`bad node name: ${name}`);
    if ([...this.#live].some((p) => p.name === name)) throw new Error(`${name} is running`);
    const dataDir = join(this.root, name);
    const p = await NodeProcess.start(
      this.#spawnSpec(spec, name, dataDir),
      { name, dataDir, ...(spec.host ? { netns: spec.host.netns } : {}) },
      {
        readyTimeoutMs: this.#opts.readyTimeoutMs ?? 30_000,
        token: spec.env?.CIDX_RPC_TOKEN ?? this.#opts.env?.CIDX_RPC_TOKEN ?? this.token,
        ...(signal ? { signal } : {}),
        ...(this.#opts.rpcTimeoutMs ? { rpcTimeoutMs: this.#opts.rpcTimeoutMs } : {}),
      },
    );
    this.#live.add(p);
    void p.exited.then(() => this.#live.delete(p));
    // A close that began while this node started must not miss it.
    if (this.#closed) await p.kill();
    return p;
  }

  /**
   * Starts nodes a few at a time (each start is a Node runtime booting: on a 2-core machine
   * more at once only slows each). Resolves in spec order; on the first failure aborts the
   * starts under way, kills the nodes this call started and rethrows.
   */
  async startMany(specs: readonly StartSpec[], concurrency = 4): Promise<NodeProcess[]> {
    const out: NodeProcess[] = new Array(specs.length);
    const abort = new AbortController();
    let next = 0;
    let failed: unknown;
    const worker = async () => {
      while (next < specs.length && failed === undefined) {
        const i = next++;
        try {
          out[i] = await this.start(specs[i], abort.signal);
        } catch (err) {
          failed ??= err;
          abort.abort();
        }
      }
    };
    await Promise.all(
      Array.from({ length: Math.max(1, Math.min(concurrency, specs.length)) }, worker),
    );
    if (failed !== undefined) {
      await Promise.all(out.filter(Boolean).map((p) => p.kill()));
      throw failed;
    }
    return out;
  }

  /** Crash a node (SIGKILL). */
  kill(p: NodeProcess): Promise<ExitInfo> {
    return p.kill();
  }

  /** Graceful leave (SIGTERM; SIGKILL after the exit timeout). */
  leave(p: NodeProcess): Promise<ExitInfo> {
    return p.leave(this.#opts.exitTimeoutMs ?? 20_000);
  }

  freeze(p: NodeProcess): void {
    p.freeze();
  }

  thaw(p: NodeProcess): void {
    p.thaw();
  }

  /**
   * Stops every node (SIGTERM, SIGKILL after the exit timeout), waits for all to exit and
   * removes the run's directory. Idempotent.
   */
  close(): Promise<void> {
    this.#closed ??= (async () => {
      try {
        await Promise.all(this.nodes.map((p) => this.leave(p)));
        rmSync(this.root, { recursive: true, force: true, maxRetries: 3 });
      } finally {
        this.#unregister();
        this.#release();
      }
    })();
    return this.#closed;
  }

  #closeSync(): void {
    for (const p of this.#live) p.killSync();
    rmSync(this.root, { recursive: true, force: true, maxRetries: 3 });
  }
}
