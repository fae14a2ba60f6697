// A real `vitrin serve` child process on loopback over one data dir, restartable after a SIGKILL, for the tests that
// kill instances mid-work (test/chaos.test.ts) and read the ledger the instances left behind.
import { Database } from "bun:sqlite";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { childEnv, freePort } from "../helpers";

const MAIN = join(import.meta.dir, "..", "..", "src", "main.ts");
export const CHAOS_ADMIN = "chaos-admin-token-0123456789abcdef";

export type Instance = { proc: Subprocess; base: string };

export class InstanceRunner {
  current: Instance | null = null;
  starts = 0;
  constructor(
    readonly dir: string,
    readonly env: Record<string, string> = {},
  ) {}

  /** Starts an instance (a new port each time) and waits until /readyz answers 200. */
  async start(): Promise<Instance> {
    const port = freePort();
    const proc = Bun.spawn([process.execPath, "run", MAIN, "serve"], {
      env: childEnv(this.dir, port, {
        VITRIN_ADMIN_TOKEN: CHAOS_ADMIN,
        VITRIN_RATE_LIMIT: "0",
        VITRIN_POLL_MS: "100",
        VITRIN_RENDER_THREADS: "1",
        VITRIN_JOB_LEASE_MS: "1500",
        VITRIN_LOG_LEVEL: "error",
        ...this.env,
      }),
      stdout: "ignore",
      stderr: "ignore",
    });
    const instance = { proc, base: `http://127.0.0.1:${port}` };
    this.current = instance;
    this.starts++;
    for (let n = 0; n < 400; n++) {
      if (proc.exitCode !== null || proc.signalCode !== null) return instance; // died while starting (a kill may land here)
      const res = await fetch(`${instance.base}/readyz`).catch(() => null);
      if (res?.status === 200) return instance;
      await Bun.sleep(50);
    }
    throw new Error("the instance never became ready");
  }

  alive(): boolean {
    const p = this.current?.proc;
    return !!p && p.exitCode === null && p.signalCode === null;
  }

  async kill(): Promise<void> {
    const p = this.current?.proc;
    if (!p) return;
    p.kill("SIGKILL");
    await p.exited;
  }

  async stop(): Promise<void> {
    const p = this.current?.proc;
    if (!p || !this.alive()) return;
    p.kill("SIGTERM");
    await p.exited;
  }

  /** A request to the live instance; null when it is down or dies mid-request. */
  async call(method: string, path: string, token: string, body?: unknown): Promise<{ status: number; body: any } | null> {
    if (!this.current) return null;
    try {
      const res = await fetch(`${this.current.base}${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      return { status: res.status, body: text ? JSON.parse(text) : null };
    } catch {
      return null;
    }
  }

  /** Reads the database the instances share (read-only, so it never holds their write lock). */
  read<T>(fn: (db: Database) => T): T {
    const db = new Database(join(this.dir, "vitrin.db"), { readonly: true });
    try {
      return fn(db);
    } finally {
      db.close();
    }
  }
}

export type LedgerCheck = { balance: number; sum: number; videos: { id: string; status: string; credits: number; usage: number; refunds: number }[] };

/** Everything the ledger promises for one account: its balance is its rows' sum, and each video paid or got its refund. */
export function ledgerOf(runner: InstanceRunner, accountId: string): LedgerCheck {
  return runner.read((db) => {
    const balance = (db.query("SELECT credits FROM accounts WHERE id = ?").get(accountId) as { credits: number }).credits;
    const sum = (db.query("SELECT coalesce(sum(amount), 0) AS s FROM transactions WHERE account_id = ?").get(accountId) as { s: number }).s;
    const rows = db.query("SELECT id, status, credits FROM videos WHERE account_id = ?").all(accountId) as { id: string; status: string; credits: number }[];
    const count = db.query("SELECT count(*) AS n FROM transactions WHERE reference = ?");
    const videos = rows.map((v) => ({
      ...v,
      usage: (count.get(`video:${v.id}:usage`) as { n: number }).n,
      refunds: (count.get(`video:${v.id}:refund`) as { n: number }).n,
    }));
    return { balance, sum, videos };
  });
}
