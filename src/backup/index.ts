// Backup and restore of a single-host vitrin (SQLite and local storage) as one verified .tar.gz; see docs/operations.md.
export { createBackup, type BackupResult } from "./create";
export { restoreBackup, verifyBackup, type RestoreResult } from "./restore";
export { BackupError } from "./errors";
export { backupCommand, restoreCommand } from "./command";
export type { Manifest } from "./manifest";
