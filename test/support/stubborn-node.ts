/**
 * A process in the place of `cidx node` that misbehaves on purpose, for the process harness's
 * bounded waits: STUBBORN=silent never prints a ready line, =garbage prints something else,
 * =deaf prints a ready line and then ignores SIGTERM.
 */
const mode = process.env.STUBBORN;
if (mode === 'garbage') process.stdout.write('starting up…\n');
if (mode === 'deaf') {
  process.on('SIGTERM', () => {});
  process.stdout.write(
    `${JSON.stringify({ event: 'ready', peerId: '12D3KooWdeaf', addrs: [], rpc: 'http://127.0.0.1:9' })}\n`,
  );
}
setInterval(() => {}, 60_000);
