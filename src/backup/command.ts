// The `backup` and `restore` CLI commands: run the work, print a summary (or JSON), and turn a BackupError into a clear
// message and a non-zero exit.
import type { Config } from "../config";
import { createBackup } from "./create";
import { BackupError } from "./errors";
import { restoreBackup, verifyBackup } from "./restore";

type Out = { json: boolean; print: (human: string, data: unknown) => void };
type Options = { force: boolean; check: boolean };

function mb(bytes: number): string {
  return `${(bytes / 1048576).toFixed(1)} MB`;
}

async function reporting(out: Out, what: string, work: () => Promise<void>): Promise<number> {
  try {
    await work();
    return 0;
  } catch (e) {
    if (!(e instanceof BackupError)) throw e;
    if (out.json) console.error(JSON.stringify(e.toJSON(), null, 2));
    else console.error(`${what} failed: ${e.message}`);
    return 1;
  }
}

export function backupCommand(config: Config, path: string, options: Options, out: Out): Promise<number> {
  return reporting(out, "backup", async () => {
    const r = await createBackup(config, path, { force: options.force });
    const skipped = r.skipped.length ? `\nleft out ${r.skipped.length} file(s) that are not stored files: ${r.skipped.slice(0, 5).join(", ")}` : "";
    out.print(
      `backup written: ${r.path} (${mb(r.bytes)})\ndatabase ${mb(r.database_bytes)} at migration ${r.schema.migration}, ${r.files} stored files (${mb(r.file_bytes)})${skipped}`,
      r,
    );
  });
}

export function restoreCommand(config: Config, path: string, options: Options, out: Out): Promise<number> {
  return reporting(out, options.check ? "check" : "restore", async () => {
    if (options.check) {
      const m = await verifyBackup(path);
      out.print(`backup sound: ${m.entries.length} entries match their checksums; made ${m.created_at} by vitrin ${m.vitrin_version} at migration ${m.schema.migration}`, {
        ok: true,
        manifest: m,
      });
      return;
    }
    const r = await restoreBackup(config, path, { force: options.force });
    const moved = r.previous ? `\nthe folder's previous contents are in ${r.previous}; delete it once the restored service checks out` : "";
    out.print(
      `restored into ${r.data_dir}: the database at migration ${r.manifest.schema.migration} and ${r.files} stored files from the backup of ${r.manifest.created_at}${moved}\n` +
        "start vitrin on it (it applies any newer migrations) and run `vitrin ledger check`",
      { data_dir: r.data_dir, files: r.files, previous: r.previous, manifest: r.manifest },
    );
  });
}
