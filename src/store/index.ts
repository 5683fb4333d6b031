export { conversationId, type ThreadKey, threadOf } from './conversation-id.js';
export { latestSchemaVersion, migrations } from './migrations.js';
export { type OpenDatabaseOptions, openDatabase, type SynchronousMode } from './open-database.js';
export * from './records.js';
export { createSqliteStore, type SqliteStoreOptions } from './sqlite/create-sqlite-store.js';
export { rootConversationOf } from './sqlite/sqlite-transcript.js';
export type * from './store.js';
export * from './store-errors.js';
