// A separate process that floods a vitrin server with hostile JSON bodies (10 in parallel, ~1 MB each), so the server's
// event loop under test shares nothing with the sender. Usage: bun hostile-flood.ts PORT TOKEN; stops on stdin EOF or
// "stop\n" and prints the statuses it saw as one JSON line.
import { request as httpRequest } from "node:http";

const [port, token] = [Number(process.argv[2]), process.argv[3]];
const deep = (levels: number) => "[".repeat(levels) + "]".repeat(levels);
const hostile = [
  Buffer.from(deep(512 * 1024)), // pure nesting, 1 MB
  Buffer.from(`{"name":"${"[".repeat(1024 * 1024 - 40)}","image_url":${deep(100)}}`), // brackets hidden in a string, then deep
  Buffer.from(`[${'{"a":'.repeat(200_000)}1${"}".repeat(200_000)}]`), // deep objects
];

/** POSTs one body with its Content-Length; resolves with the status (the server may answer before reading it all). */
function post(body: Buffer): Promise<number> {
  return new Promise((resolve) => {
    const req = httpRequest(
      {
        host: "127.0.0.1",
        port,
        path: "/v1/products",
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json", "content-length": body.length },
      },
      (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode ?? 0));
      },
    );
    // A reset after an early answer still delivered that answer; a reset before any answer counts as status 0.
    req.on("error", () => resolve(0));
    req.end(body);
  });
}

let stop = false;
process.stdin.on("data", (d) => {
  if (String(d).includes("stop")) stop = true;
});
process.stdin.on("end", () => {
  stop = true;
});

const statuses: Record<string, number> = {};
process.stdout.write("ready\n");
for (let round = 0; !stop; round++) {
  const batch = await Promise.all(Array.from({ length: 10 }, (_, i) => post(hostile[(i + round) % hostile.length])));
  for (const s of batch) statuses[s] = (statuses[s] ?? 0) + 1;
}
process.stdout.write(`${JSON.stringify(statuses)}\n`);
process.exit(0);
