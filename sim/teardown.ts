/**
 * Process-wide teardown for what the harnesses create outside this process (child processes,
 * network namespaces, temporary directories): registered steps run, newest first, when the
 * process is told to stop (SIGINT, SIGTERM, SIGHUP) and, synchronously, when it exits for any
 * reason (an uncaught exception included). A step that finished normally unregisters itself,
 * so these handlers exist only while something is alive.
 */

export interface TeardownStep {
  /** Names the step in error messages. */
  label: string;
  /** The full cleanup; must be idempotent and safe to run while a normal close runs. */
  run(): Promise<void>;
  /** What can be done without the event loop (kill, rm, ip netns del): the `exit` fallback. */
  runSync(): void;
}

const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
const SIGNAL_NUMBERS: Record<(typeof SIGNALS)[number], number> = {
  SIGINT: 2,
  SIGTERM: 15,
  SIGHUP: 1,
};
/** How long the signal path waits for the async steps before the sync ones take over. */
const SIGNAL_DEADLINE_MS = 15_000;

const steps: TeardownStep[] = [];
let installed = false;
let stopping = false;
/** Who handles the first signal instead of the cleanup steps (ownSignals). */
let owner: ((signal: NodeJS.Signals) => void) | undefined;

function runAllSync(): void {
  for (const step of steps.splice(0).reverse()) {
    try {
      step.runSync();
    } catch (err) {
      process.stderr.write(`cleanup (${step.label}): ${(err as Error).message}\n`);
    }
  }
}

async function onSignal(signal: (typeof SIGNALS)[number]): Promise<void> {
  if (owner !== undefined && !stopping) {
    // The owner stops its work, reports and closes what it made; a second signal ends it all.
    stopping = true;
    process.stderr.write(`${signal}: stopping (again to quit at once)…\n`);
    owner(signal);
    return;
  }
  if (stopping) {
    // A second signal while cleaning up: do what can be done at once, and go.
    runAllSync();
    process.exit(128 + SIGNAL_NUMBERS[signal]);
  }
  stopping = true;
  // Another listener of this signal owns the process's exit; alone, exit as the signal would.
  const alone = process.listeners(signal).every((l) => l === handlers[signal]);
  process.stderr.write(`${signal}: cleaning up…\n`);
  const deadline = new Promise<void>((resolve) => setTimeout(resolve, SIGNAL_DEADLINE_MS).unref());
  for (const step of [...steps].reverse()) {
    await Promise.race([
      step.run().catch((err) => {
        process.stderr.write(`cleanup (${step.label}): ${(err as Error).message}\n`);
      }),
      deadline,
    ]);
  }
  runAllSync();
  if (alone) process.exit(128 + SIGNAL_NUMBERS[signal]);
  stopping = false;
}

const handlers = Object.fromEntries(
  SIGNALS.map((s) => [s, () => void onSignal(s)] as const),
) as Record<(typeof SIGNALS)[number], () => void>;

function install(): void {
  if (installed) return;
  installed = true;
  for (const s of SIGNALS) process.on(s, handlers[s]);
  process.on('exit', runAllSync);
}

function uninstall(): void {
  if (!installed || steps.length > 0 || owner !== undefined) return;
  installed = false;
  for (const s of SIGNALS) process.off(s, handlers[s]);
  process.off('exit', runAllSync);
}

/**
 * Hands the first SIGINT / SIGTERM / SIGHUP to `handler` instead of running the cleanup steps:
 * a run that wants to stop in order (write what it measured, then close its nodes) does so and
 * exits itself. A second signal runs the synchronous cleanup and exits at once. The returned
 * function gives the signals back.
 */
export function ownSignals(handler: (signal: NodeJS.Signals) => void): () => void {
  owner = handler;
  install();
  return () => {
    if (owner === handler) owner = undefined;
    stopping = false;
    uninstall();
  };
}

/** Registers a step; the returned function unregisters it (call it after a normal cleanup). */
export function onTeardown(step: TeardownStep): () => void {
  steps.push(step);
  install();
  return () => {
    const i = steps.indexOf(step);
    if (i >= 0) steps.splice(i, 1);
    uninstall();
  };
}
