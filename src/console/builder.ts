/** The profile builder as the console loads it on demand (see profile-input.ts). */
export { buildProfile } from '../profile/build.ts';
