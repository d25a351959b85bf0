/**
 * The engine's view of the transfer state machine. The machine itself is pure and sits in
 * model/transfer-state.ts, below the store that checks every move it writes (decision 0047); the
 * engine and the layers above import it from here or from model alike.
 */
export * from '../model/transfer-state.js';
