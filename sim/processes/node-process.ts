/**
 * One `cidx node` child process: started, read up to its ready line, and then signalled —
 * SIGKILL (crash), SIGTERM (graceful leave), SIGSTOP / SIGCONT (freeze, thaw). The pid is the
 * node's own (no shell or wrapper in between), so every signal reaches it.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { z } from 'zod';
import { CidxClient } from '../../src/client/index.ts';

/** What the ready line tells (CONTRACT: `{"event":"ready","peerId",…,"addrs","rpc"}`). */
export interface ReadyLine {
  peerId: string;
  addrs: string[];
  rpc: string;
}

const readySchema = z.object({
  event: z.literal('ready'),
  peerId: z.string().min(1).max(200),
  addrs: z.array(z.string().min(1).max(1000)).max(64),
  rpc: z.string().regex(/^https?:\/\/[^\s/]+$/),
});

export interface ExitInfo {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** Longest first stdout line accepted before it counts as not a ready line. */
const READY_LINE_LIMIT = 64 << 10;
/** How much of the end of stderr is kept for error messages. */
const STDERR_TAIL = 64 << 10;

export interface SpawnSpec {
  file: string;
  args: string[];
  env?: NodeJS.ProcessEnv;
}

export interface NodeProcessInfo {
  name: string;
  dataDir: string;
  /** The namespace it runs in, if any. */
  netns?: string;
}

export class NodeProcess {
  readonly pid: number;
  /** When it was spawned and when its ready line came (Date.now() ms; the logs' clock). */
  readonly spawnedAt: number;
  readyAt = 0;
  readonly exited: Promise<ExitInfo>;
  #ready: ReadyLine | undefined;
  #client: CidxClient | undefined;
  #token: string | undefined;
  #rpcTimeoutMs: number | undefined;
  #stderr = '';
  #exit: ExitInfo | undefined;
  #frozen = false;

  readonly info: NodeProcessInfo;
  readonly child: ChildProcess;

  private constructor(info: NodeProcessInfo, child: ChildProcess) {
    this.info = info;
    this.child = child;
    if (child.pid === undefined) throw new Error(`${info.name}: spawn failed`);
    this.pid = child.pid;
    this.spawnedAt = Date.now();
    child.stderr?.on('data', (d: Buffer) => {
      this.#stderr = (this.#stderr + d.toString()).slice(-STDERR_TAIL);
    });
    this.exited = new Promise((resolve) =>
      child.once('exit', (code, signal) => {
        this.#exit = { code, signal };
        resolve(this.#exit);
      }),
    );
  }

  get name(): string {
    return this.info.name;
  }

  get ready(): ReadyLine {
    if (!this.#ready) throw new Error(`${this.name} is not ready`);
    return this.#ready;
  }

  /** JSON-RPC to this node: the typed client, with the run's token. */
  get client(): CidxClient {
    if (!this.#client) throw new Error(`${this.name} is not ready`);
    return this.#client;
  }

  /**
   * JSON-RPC to this node at another URL than its ready line's: a node behind a NAT router is
   * reached through a port forward on the router's address (NatRouter.forward).
   */
  clientAt(url: string): CidxClient {
    return new CidxClient(url, { timeoutMs: this.#rpcTimeoutMs, token: this.#token });
  }

  get running(): boolean {
    return this.#exit === undefined;
  }

  get frozen(): boolean {
    return this.#frozen && this.running;
  }

  /** The last lines the process wrote to stderr (its log). */
  stderrTail(lines = 20): string {
    return this.#stderr.trimEnd().split('\n').slice(-lines).join('\n');
  }

  /**
   * Spawns the node and waits for its ready line; on a timeout, an early exit or a bad line,
   * kills it and throws with the end of its log.
   */
  static async start(
    spec: SpawnSpec,
    info: NodeProcessInfo,
    opts: { readyTimeoutMs: number; rpcTimeoutMs?: number; token?: string; signal?: AbortSignal },
  ): Promise<NodeProcess> {
    const child = spawn(spec.file, spec.args, {
      env: spec.env ?? process.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const spawned = new Promise<void>((resolve, reject) => {
      child.once('spawn', resolve);
      child.once('error', reject);
    });
    try {
      await spawned;
    } catch (err) {
      throw new Error(`${info.name}: cannot start ${spec.file}: ${(err as Error).message}`);
    }
    const p = new NodeProcess(info, child);
    try {
      p.#ready = await p.#readReadyLine(opts.readyTimeoutMs, opts.signal);
      p.readyAt = Date.now();
    } catch (err) {
      await p.kill();
      const log = p.stderrTail();
      throw new Error(`${info.name}: ${(err as Error).message}${log ? `; log:\n${log}` : ''}`);
    }
    p.#token = opts.token ?? spec.env?.CIDX_RPC_TOKEN;
    p.#rpcTimeoutMs = opts.rpcTimeoutMs;
    p.#client = p.clientAt(p.#ready.rpc);
    return p;
  }

  #readReadyLine(timeoutMs: number, signal?: AbortSignal): Promise<ReadyLine> {
    const out = this.child.stdout;
    if (!out) return Promise.reject(new Error('no stdout'));
    return new Promise((resolve, reject) => {
      let buf = '';
      let settled = false;
      const done = (err: Error | undefined, line?: ReadyLine) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        out.off('data', onData);
        // Later output is not read but must not fill the pipe and block the node.
        out.resume();
        if (err) reject(err);
        else resolve(line as ReadyLine);
      };
      const onData = (d: Buffer) => {
        buf += d.toString();
        const nl = buf.indexOf('\n');
        if (nl < 0) {
          if (buf.length > READY_LINE_LIMIT)
            done(new Error(`first output line longer than ${READY_LINE_LIMIT} bytes`));
          return;
        }
        const text = buf.slice(0, nl);
        let parsed: z.infer<typeof readySchema>;
        try {
          parsed = readySchema.parse(JSON.parse(text));
        } catch {
          done(new Error(`not a ready line: ${text.slice(0, 200)}`));
          return;
        }
        done(undefined, { peerId: parsed.peerId, addrs: parsed.addrs, rpc: parsed.rpc });
      };
      const timer = setTimeout(
        () => done(new Error(`no ready line within ${timeoutMs} ms`)),
        timeoutMs,
      );
      const onAbort = () => done(new Error('start aborted'));
      if (signal?.aborted) onAbort();
      signal?.addEventListener('abort', onAbort);
      out.on('data', onData);
      this.exited.then((e) => done(new Error(`exited (${e.code ?? e.signal}) before ready`)));
    });
  }

  #signal(signal: NodeJS.Signals): void {
    if (!this.running) return;
    try {
      process.kill(this.pid, signal);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ESRCH') throw err;
    }
  }

  /** Crash: SIGKILL (works on a frozen process too); resolves when it has exited. */
  kill(): Promise<ExitInfo> {
    this.#signal('SIGKILL');
    return this.exited;
  }

  /** Synchronous SIGKILL, for the `exit` path. */
  killSync(): void {
    this.#signal('SIGKILL');
  }

  /**
   * Graceful leave: SIGTERM (and SIGCONT, or a frozen node would never see it); SIGKILL if it
   * has not exited within `timeoutMs`.
   */
  async leave(timeoutMs: number): Promise<ExitInfo> {
    this.#signal('SIGTERM');
    if (this.#frozen) this.thaw();
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((resolve) => {
      timer = setTimeout(() => resolve('late'), timeoutMs);
    });
    const first = await Promise.race([this.exited, late]);
    clearTimeout(timer);
    // The exit info then names SIGKILL: the caller can tell a leave that hung.
    return first === 'late' ? this.kill() : first;
  }

  /** SIGSTOP: the process keeps its sockets but answers nothing until thawed. */
  freeze(): void {
    this.#signal('SIGSTOP');
    this.#frozen = true;
  }

  /** SIGCONT. */
  thaw(): void {
    this.#signal('SIGCONT');
    this.#frozen = false;
  }
}
