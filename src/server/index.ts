// Public API of the server module: the composition root of a running host and its lifecycle.
export type { Component } from './component.js';
export { Lifecycle, ComponentStartError } from './lifecycle.js';
export { ServerRuntime, ServerStartError } from './runtime.js';
export { createLogger, silentLogger, type Logger, type LoggerOptions } from './logger.js';
export { installShutdownHandlers, SHUTDOWN_SIGNALS } from './shutdown.js';
export { ensureEmbeddedHome, defaultHostId, DEFAULT_R66_PORT, DEFAULT_R66_SSL_PORT, type HomeReport } from './embedded-home.js';
export { runDatabaseTool, DatabaseToolError, type DatabaseToolOptions } from './database-tool.js';
