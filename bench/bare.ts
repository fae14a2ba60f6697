// The baseline for bench:http: a bare Elysia hello-world on Bun, listening on the port given as argv[2].
import { Elysia } from "elysia";

new Elysia().get("/", () => "hello").listen({ port: Number(process.argv[2]), hostname: "127.0.0.1", reusePort: false });
