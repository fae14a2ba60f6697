// The one error the backup and restore commands raise: a kind an operator or a script can match, and a sentence saying what to do.

export type BackupErrorKind =
  | "Unsupported"
  | "Not found"
  | "Already exists"
  | "Not empty"
  | "In use"
  | "Damaged archive"
  | "Newer schema"
  | "Database error";

export class BackupError extends Error {
  constructor(
    readonly kind: BackupErrorKind,
    message: string,
  ) {
    super(message);
    this.name = "BackupError";
  }

  /** The error catalogue's `{error, message}` shape, for `--json`. */
  toJSON(): { error: string; message: string } {
    return { error: this.kind, message: this.message };
  }
}
