/**
 * kysely's values, from its CommonJS build. Its ESM build is 262 files: loading them was about a
 * third of a client command's start (decision 0052: 312-348 ms of CPU against 186-204 ms for the
 * CommonJS build, measured on a copy of our build), paid by every CLI command and server start.
 * Every module of the store imports kysely's values from here, never from 'kysely' itself: two
 * copies of kysely in one process would not recognise each other's query nodes. Types still come
 * from 'kysely' (`import type`), which loads nothing.
 */
import { createRequire } from 'node:module';
import type * as KyselyModule from 'kysely';

const kysely = createRequire(import.meta.url)('kysely') as typeof KyselyModule;

export const { sql, CompiledQuery, IdentifierNode, OperationNodeTransformer, SelectQueryNode, SqliteDialect, PostgresDialect, MysqlDialect } = kysely;
// A class is a value and a type: the type alias keeps `Kysely<DB>` usable where this is imported.
export const Kysely = kysely.Kysely;
export type Kysely<DB> = KyselyModule.Kysely<DB>;
export type CompiledQuery<O = unknown> = KyselyModule.CompiledQuery<O>;
export type OperationNodeTransformer = KyselyModule.OperationNodeTransformer;
