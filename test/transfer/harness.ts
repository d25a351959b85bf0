/** The in-process host pair harness moved to test/helpers/hosts.ts (shared by every test folder). */
export * from '../helpers/hosts.js';
