// Baselines for bench:http: a bare Elysia server on Bun answering "hello", or, given a JSON file, that JSON.
import { Elysia } from "elysia";

const [port, jsonFile] = process.argv.slice(2);
const body = jsonFile ? JSON.parse(await Bun.file(jsonFile).text()) : "hello";
new Elysia().get("/", () => body).listen({ port: Number(port), hostname: "127.0.0.1", reusePort: false });
