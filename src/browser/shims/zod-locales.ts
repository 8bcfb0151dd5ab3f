/**
 * zod's namespace object re-exports every one of its ~50 message locales (about a sixth of the
 * browser bundle); cidx's messages are English. The browser build resolves zod's locale index
 * to this file.
 */
export { default as en } from 'zod/v4/locales/en.js';
