#!/usr/bin/env node
// Entry point of the `cidx` command. The Node version is checked before anything heavier loads.
const major = Number(process.versions.node.split('.')[0]);
if (major < 22) {
  process.stderr.write(
    `cidx: needs Node.js >= 22 (this is ${process.version}); run it through npm ` +
      '(npm start, npx cidx), which uses the runtime pinned in package.json\n',
  );
  process.exit(2);
}
// `cidx … | head` closes the pipe early: that ends the output, it is not an error.
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw err;
});
const { main } = await import('./cli/program.ts');
process.exitCode = await main(process.argv);
