// Memory comes back after work: the idle reclaim runs once cut-outs and renders have stopped for a while (scheduling,
// with a timer the tests fire), an instance wires it around its plugins, and malloc_trim really hands freed memory back.
import { afterEach, expect, test } from "bun:test";
import { dlopen, FFIType, type Pointer } from "bun:ffi";
import { readFileSync } from "node:fs";
import type { SetTimer } from "../src/db";
import { createIdleReclaim } from "../src/native/idle";
import { giveBackMemory } from "../src/native/memory";
import { productPhoto, startService, type TestService } from "./helpers";

/** A SetTimer whose waits run only when the test says so. */
function manualTimer() {
  const waits: { fn: () => void; ms: number; cancelled: boolean }[] = [];
  const setTimer: SetTimer = (fn, ms) => {
    const wait = { fn, ms, cancelled: false };
    waits.push(wait);
    return () => {
      wait.cancelled = true;
    };
  };
  const armed = () => waits.filter((w) => !w.cancelled);
  return {
    setTimer,
    armed,
    fire() {
      const due = armed();
      waits.length = 0;
      for (const w of due) w.fn();
    },
  };
}

function setup(idleMs = 10_000) {
  const timer = manualTimer();
  let reclaims = 0;
  const idle = createIdleReclaim({ idleMs, setTimer: timer.setTimer, reclaim: () => reclaims++ });
  return { timer, idle, reclaims: () => reclaims };
}

/** Work that runs until the test finishes it. */
function pendingWork() {
  let finish!: () => void;
  let fail!: (e: Error) => void;
  const done = new Promise<void>((resolve, reject) => ((finish = resolve), (fail = reject)));
  return { run: () => done, finish, fail };
}

test("the reclaim runs once, idleMs after the last work ended, and not while work runs", async () => {
  const { timer, idle, reclaims } = setup(10_000);
  const work = pendingWork();
  const running = idle.track(work.run);
  expect(timer.armed()).toHaveLength(0);
  expect(idle.busy()).toBe(1);
  work.finish();
  await running;
  expect(timer.armed().map((w) => w.ms)).toEqual([10_000]);
  timer.fire();
  expect(reclaims()).toBe(1);
  // Idle since: nothing more to give back until work comes again.
  expect(timer.armed()).toHaveLength(0);
});

test("work that starts during the wait cancels the reclaim, which then waits for that work to end", async () => {
  const { timer, idle, reclaims } = setup();
  await idle.track(async () => {});
  expect(idle.pending()).toBe(true);
  const second = pendingWork();
  const running = idle.track(second.run);
  expect(idle.pending()).toBe(false);
  timer.fire();
  expect(reclaims()).toBe(0);
  second.finish();
  await running;
  timer.fire();
  expect(reclaims()).toBe(1);
});

test("with work overlapping, the wait starts only when the last piece ends", async () => {
  const { timer, idle } = setup();
  const [a, b] = [pendingWork(), pendingWork()];
  const runs = [idle.track(a.run), idle.track(b.run)];
  a.finish();
  await runs[0];
  expect(timer.armed()).toHaveLength(0);
  b.finish();
  await runs[1];
  expect(timer.armed()).toHaveLength(1);
});

test("work that fails still ends: its error reaches the caller and the wait starts", async () => {
  const { timer, idle } = setup();
  const work = pendingWork();
  const running = idle.track(work.run);
  work.fail(new Error("ffmpeg exited with 1"));
  await expect(running).rejects.toThrow("ffmpeg exited with 1");
  expect(idle.busy()).toBe(0);
  expect(timer.armed()).toHaveLength(1);
});

test("idleMs 0 turns the reclaim off", async () => {
  const { timer, idle } = setup(0);
  await idle.track(async () => {});
  expect(timer.armed()).toHaveLength(0);
});

test("close cancels a due reclaim, and later work schedules none", async () => {
  const { timer, idle, reclaims } = setup();
  await idle.track(async () => {});
  idle.close();
  expect(timer.armed()).toHaveLength(0);
  await idle.track(async () => {});
  timer.fire();
  expect(reclaims()).toBe(0);
});

test("a reclaim that throws is logged, not thrown into the timer", async () => {
  const timer = manualTimer();
  const warnings: string[] = [];
  const logger = { debug() {}, warn: (msg: string) => void warnings.push(msg) };
  const idle = createIdleReclaim({ idleMs: 5, setTimer: timer.setTimer, logger, reclaim: () => { throw new Error("no libc"); } });
  await idle.track(async () => {});
  expect(() => timer.fire()).not.toThrow();
  expect(warnings).toEqual(["giving memory back failed"]);
});

test("wrap tracks the named method only; the target's other members stay its own", async () => {
  class Renderer {
    #renders = 0;
    name = "ffmpeg";
    async render(frames: number) {
      this.#renders++;
      return frames * 2;
    }
    count() {
      return this.#renders;
    }
  }
  const { timer, idle } = setup();
  const wrapped = idle.wrap(new Renderer(), "render");
  const result = wrapped.render(21);
  expect(idle.busy()).toBe(1);
  expect(await result).toBe(42);
  expect(wrapped.count()).toBe(1);
  expect(wrapped.name).toBe("ffmpeg");
  expect(timer.armed()).toHaveLength(1);
  // An untracked call leaves the due reclaim alone.
  wrapped.count();
  expect(timer.armed()).toHaveLength(1);
});

const glibc = process.platform === "linux" && !readFileSync("/proc/self/maps", "utf8").includes("musl");
const rssBytes = () => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync("/proc/self/status", "utf8"))![1]) * 1024;

test.skipIf(!glibc)("giveBackMemory returns memory that free() left mapped in malloc's heap", () => {
  const libc = dlopen("libc.so.6", {
    malloc: { args: [FFIType.u64], returns: FFIType.ptr },
    free: { args: [FFIType.ptr], returns: FFIType.void },
    memset: { args: [FFIType.ptr, FFIType.i32, FFIType.u64], returns: FFIType.ptr },
  });
  try {
    // 64 KiB blocks sit below glibc's mmap threshold, so they come from the heap; the last one stays allocated and
    // keeps free() from shrinking the heap's top, as a long-lived allocation made after a job's buffers would.
    const block = 64 * 1024;
    const blocks: Pointer[] = [];
    for (let i = 0; i < 3200; i++) {
      const p = libc.symbols.malloc(block) as Pointer;
      libc.symbols.memset(p, 1, block);
      blocks.push(p);
    }
    const guard = blocks.pop()!;
    const before = rssBytes();
    for (const p of blocks) libc.symbols.free(p);
    const afterFree = rssBytes();
    expect(before - afterFree).toBeLessThan(50 * 1024 * 1024);
    expect(giveBackMemory().trimmed).toBe(true);
    expect(afterFree - rssBytes()).toBeGreaterThan(150 * 1024 * 1024);
    libc.symbols.free(guard);
  } finally {
    libc.close();
  }
});

let t: TestService | null = null;
afterEach(async () => {
  await t?.close();
  t = null;
});

async function waitFor(check: () => boolean, ms: number): Promise<boolean> {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    if (check()) return true;
    await Bun.sleep(10);
  }
  return check();
}

test("an instance gives memory back once its renders have stopped for VITRIN_IDLE_TRIM_MS, not before any work", async () => {
  t = await startService({ VITRIN_STORAGE: "local", VITRIN_IDLE_TRIM_MS: "50" }, { renderScale: 0.25 });
  const reclaimed = () => t!.logs.filter((r) => r.msg === "memory given back after idle").length;
  const acct = await t.newAccount({ credits: 20 });
  const image = `data:image/jpeg;base64,${Buffer.from(await productPhoto()).toString("base64")}`;
  const product = await t.json("POST", "/v1/products", { token: acct.token, body: { name: "Mug", image_url: image, dekupe: false } });
  await Bun.sleep(150);
  expect(reclaimed()).toBe(0);
  const video = await t.json("POST", "/v1/videos", { token: acct.token, body: { template_id: "spotlight", product_id: product.body.id, language: "en" } });
  expect(video.status).toBe(202);
  await t.runJobs();
  expect((await t.json("GET", `/v1/videos/${video.body.id}`, { token: acct.token })).body.status).toBe("completed");
  expect(await waitFor(() => reclaimed() === 1, 2000)).toBe(true);
}, 60_000);
