// Graceful shutdown over a real socket and as a real process: in-flight work finishes, new work is refused.
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { productPhoto, startImageHost, startService, tempDir } from "./helpers";

describe("graceful shutdown", () => {
  test("an in-flight request completes while new ones are refused", async () => {
    const host = startImageHost({ "/slow.jpg": { body: await productPhoto(), type: "image/jpeg", delayMs: 400 } });
    const t = await startService();
    try {
      const a = await t.newAccount();
      const server = t.service.listen(0, "127.0.0.1");
      const base = `http://127.0.0.1:${server.port}`;
      const inflight = fetch(`${base}/v1/products`, {
        method: "POST",
        headers: { authorization: `Bearer ${a.token}`, "content-type": "application/json" },
        body: JSON.stringify({ name: "Slow", image_url: host.url("/slow.jpg"), dekupe: false }),
      });
      await Bun.sleep(100);
      const stopping = t.service.stop();
      // The job engine stops claiming at once, not after the requests in flight have drained (read from its state:
      // asking the engine to stop here would start its shutdown itself).
      expect((t.service.jobs as unknown as { state: { stopping: boolean } }).state.stopping).toBe(true);
      const ready = await t.call("GET", "/readyz");
      expect(ready.status).toBe(503);
      const res = await inflight;
      expect(res.status).toBe(201);
      await stopping;
      // The listener closed at once: a new connection is refused (a balancer's cue to use another instance).
      await expect(fetch(`${base}/healthz`)).rejects.toThrow();
    } finally {
      host.close();
      await t.close();
    }
  });

  test("SIGTERM makes `vitrin serve` exit 0", async () => {
    const dir = tempDir();
    const port = 20000 + Math.floor(Math.random() * 20000);
    const proc = Bun.spawn([process.execPath, "run", "src/main.ts", "serve"], {
      cwd: join(import.meta.dir, ".."),
      env: { PATH: process.env.PATH ?? "", VITRIN_DATA_DIR: dir, VITRIN_PORT: String(port), VITRIN_HOST: "127.0.0.1", VITRIN_LOG_LEVEL: "warn" },
      stdout: "pipe",
      stderr: "pipe",
    });
    let up = false;
    for (let i = 0; i < 100 && !up; i++) {
      try {
        up = (await fetch(`http://127.0.0.1:${port}/readyz`)).status === 200;
      } catch {
        await Bun.sleep(100);
      }
    }
    expect(up).toBe(true);
    proc.kill("SIGTERM");
    expect(await proc.exited).toBe(0);
  });
});
