/**
 * Through modes (r66-protocol.md §4 modes 5-8) on the requester: the data comes from an
 * application's Readable (send-through) or goes to its Writable (recv-through) instead of a file.
 * The data path reads and writes them through the storage seam (file/stream-file.ts).
 */
import type { Readable, Writable } from 'node:stream';

/** The application stream of a through transfer. */
export type ThroughStream = { source: Readable } | { sink: Writable };
