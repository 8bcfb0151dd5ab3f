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
const { main } = await import('./cli/program.ts');
process.exitCode = await main(process.argv);
