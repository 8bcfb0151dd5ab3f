import { Command, CommanderError } from 'commander';
import { CIDX_VERSION } from '../net/version.ts';
import { ProfileError } from '../profile/errors.ts';
import { registerCallCommand } from './call-command.ts';
import { UsageError } from './io.ts';
import { registerNodeCommand } from './node-command.ts';
import { registerProfileCommands } from './profile-commands.ts';
import { registerSimCommand } from './sim-command.ts';
import { registerSwarmKeyCommand } from './swarm-key-command.ts';
import { registerTuneCommand } from './tune-command.ts';

/** Builds the `cidx` command line; commander's own error output goes to `writeErr`. */
export function createProgram(writeErr: (text: string) => void = () => {}): Command {
  const program = new Command('cidx')
    .description(
      'cidx — a peer-to-peer community index: find the communities most similar to a profile',
    )
    .version(CIDX_VERSION)
    // Errors are printed by main() as one line; inherited by the subcommands added below.
    .configureOutput({ writeErr })
    .exitOverride();
  registerNodeCommand(program);
  registerProfileCommands(program);
  registerSimCommand(program);
  registerSwarmKeyCommand(program);
  registerTuneCommand(program);
  registerCallCommand(program);
  for (const c of program.commands) {
    c.exitOverride();
    for (const sub of c.commands) sub.exitOverride();
  }
  return program;
}

/**
 * Runs the command line; returns the exit code: 0 on success, 1 when the input data is invalid,
 * 2 on a usage error (bad flag or argument). Errors are printed as one line on stderr.
 */
export async function main(argv: string[]): Promise<number> {
  let helpText = '';
  const program = createProgram((text) => {
    helpText += text;
  });
  try {
    await program.parseAsync(argv);
    return 0;
  } catch (err) {
    if (err instanceof CommanderError) {
      if (
        err.code === 'commander.helpDisplayed' ||
        err.code === 'commander.version' ||
        err.exitCode === 0
      ) {
        return 0;
      }
      if (err.code === 'commander.help') {
        // A command group without its subcommand: show what it offers.
        process.stderr.write(helpText);
        return 2;
      }
      process.stderr.write(`cidx: ${err.message.replace(/^error: /, '')} (see --help)\n`);
      return 2;
    }
    if (err instanceof UsageError) {
      // An empty message: the command already said why.
      if (err.message !== '') process.stderr.write(`cidx: ${err.message}\n`);
      return err.exitCode;
    }
    if (err instanceof ProfileError) {
      process.stderr.write(`cidx: ${err.message}\n`);
      return 1;
    }
    process.stderr.write(`cidx: unexpected error: ${(err as Error).stack ?? String(err)}\n`);
    return 70;
  }
}
