// Quantizes the fp32 ISNet to int8 at install (static QDQ: per-channel int8 weights, uint8 activations whose ranges
// were calibrated once on photos and are committed in int8-ranges.json), so ONNX Runtime runs its convolutions as
// QLinearConv (VNNI/AVX2 integer kernels): ~2.5× less CPU than fp32 with the same edges on the composites (docs/benchmarks.md).
import protobuf from "protobufjs";

// The parts of onnx.proto (ONNX 1.x, proto2) this model uses; the pinned SHA-256 of the result guards what is dropped.
const ONNX_SCHEMA = `
syntax = "proto2";
package onnx;
message AttributeProto {
  optional string name = 1; optional string ref_attr_name = 21; optional string doc_string = 13; optional int32 type = 20;
  optional float f = 2; optional int64 i = 3; optional bytes s = 4; optional TensorProto t = 5; optional GraphProto g = 6;
  repeated float floats = 7; repeated int64 ints = 8; repeated bytes strings = 9; repeated TensorProto tensors = 10;
  repeated GraphProto graphs = 11;
}
message ValueInfoProto { optional string name = 1; optional TypeProto type = 2; optional string doc_string = 3; }
message NodeProto {
  repeated string input = 1; repeated string output = 2; optional string name = 3; optional string op_type = 4;
  optional string domain = 7; repeated AttributeProto attribute = 5; optional string doc_string = 6;
}
message StringStringEntryProto { optional string key = 1; optional string value = 2; }
message ModelProto {
  optional int64 ir_version = 1; repeated OperatorSetIdProto opset_import = 8; optional string producer_name = 2;
  optional string producer_version = 3; optional string domain = 4; optional int64 model_version = 5;
  optional string doc_string = 6; optional GraphProto graph = 7; repeated StringStringEntryProto metadata_props = 14;
}
message GraphProto {
  repeated NodeProto node = 1; optional string name = 2; repeated TensorProto initializer = 5; optional string doc_string = 10;
  repeated ValueInfoProto input = 11; repeated ValueInfoProto output = 12; repeated ValueInfoProto value_info = 13;
}
message TensorProto {
  repeated int64 dims = 1; optional int32 data_type = 2; repeated float float_data = 4 [packed = true];
  repeated int32 int32_data = 5 [packed = true]; repeated bytes string_data = 6; repeated int64 int64_data = 7 [packed = true];
  optional string name = 8; optional string doc_string = 12; optional bytes raw_data = 9;
  repeated double double_data = 10 [packed = true]; repeated uint64 uint64_data = 11 [packed = true];
}
message TensorShapeProto {
  message Dimension { oneof value { int64 dim_value = 1; string dim_param = 2; } optional string denotation = 3; }
  repeated Dimension dim = 1;
}
message TypeProto {
  message Tensor { optional int32 elem_type = 1; optional TensorShapeProto shape = 2; }
  oneof value { Tensor tensor_type = 1; }
  optional string denotation = 6;
}
message OperatorSetIdProto { optional string domain = 1; optional int64 version = 2; }
`;

// ONNX TensorProto.DataType values and the AttributeProto type of an int.
const FLOAT = 1;
const UINT8 = 2;
const INT8 = 3;
const INT32 = 6;
const ATTR_INT = 2;

type Tensor = { name: string; dataType: number; dims: (number | Long)[]; rawData?: Uint8Array };
type Long = { toNumber(): number };
type Node = { name: string; opType: string; input: string[]; output: string[]; attribute?: unknown[] };
type Graph = {
  node: Node[];
  initializer: Tensor[];
  input: { name: string }[];
  output: { name: string }[];
  valueInfo: { name: string; type?: { tensorType?: { elemType?: number } } }[];
};
type Model = { graph: Graph };

/** Calibrated activation ranges, tensor name → [low, high] (the 99.99th percentile of each tail, widest over the photos). */
export type ActivationRanges = Record<string, [number, number]>;

let modelType: protobuf.Type | null = null;
const onnxModel = () => (modelType ??= protobuf.parse(ONNX_SCHEMA).root.lookupType("onnx.ModelProto"));

export function decodeModel(bytes: Uint8Array): Model {
  return onnxModel().decode(bytes) as unknown as Model;
}

export function encodeModel(model: Model): Uint8Array {
  return onnxModel().encode(model as never).finish();
}

/** Only the nodes the graph's outputs depend on (the five side masks' heads are dead once their outputs are dropped). */
function pruneDead(g: Graph): void {
  const producer = new Map<string, Node>();
  for (const n of g.node) for (const o of n.output) producer.set(o, n);
  const live = new Set<Node>();
  const stack = g.output.map((o) => o.name);
  while (stack.length) {
    const p = producer.get(stack.pop()!);
    if (!p || live.has(p)) continue;
    live.add(p);
    stack.push(...p.input);
  }
  g.node = g.node.filter((n) => live.has(n));
}

const ACTIVATION_OPS = new Set(["Relu", "Conv", "Concat", "MaxPool", "Resize", "Add"]);

/**
 * What gets quantized: every convolution but the last (the mask's own logits stay fp32, so its soft edge keeps its
 * steps), and the float activations between them: every convolution's input and the output of each Relu, Conv,
 * Concat, MaxPool, Resize and Add on the way. Prunes dead nodes from `model` first.
 */
export function quantizationPlan(model: Model): { convs: Node[]; tensors: string[] } {
  const g = model.graph;
  pruneDead(g);
  const consumers = new Map<string, Node[]>();
  for (const n of g.node) for (const i of n.input) consumers.set(i, [...(consumers.get(i) ?? []), n]);
  const floats = new Set(g.valueInfo.filter((v) => v.type?.tensorType?.elemType === FLOAT).map((v) => v.name));
  const feedsConv = (n: Node) => (consumers.get(n.output[0]) ?? []).some((c) => c.opType === "Relu" || c.opType === "Conv");
  const convs = g.node.filter((n) => n.opType === "Conv" && feedsConv(n));
  const last = new Set(g.node.filter((n) => n.opType === "Conv" && !feedsConv(n)));
  const tensors = new Set<string>(convs.map((c) => c.input[0]));
  for (const n of g.node) {
    const out = n.output[0];
    if (!ACTIVATION_OPS.has(n.opType) || last.has(n) || !floats.has(out)) continue;
    const users = consumers.get(out) ?? [];
    // A convolution followed by its Relu is quantized after the Relu: ONNX Runtime folds the pair into one QLinearConv.
    if (n.opType === "Conv" && users.length === 1 && users[0].opType === "Relu") continue;
    tensors.add(out);
  }
  return { convs, tensors: [...tensors] };
}

type Affine = { scale: number; zeroPoint: number };

/** uint8 parameters of a range, widened to hold 0 exactly (zero padding and Relu's floor stay exact). */
function affine([low, high]: [number, number]): Affine {
  const lo = Math.min(0, low);
  const hi = Math.max(0, high, lo + 1e-6);
  const scale = (hi - lo) / 255;
  return { scale, zeroPoint: Math.max(0, Math.min(255, Math.round(-lo / scale))) };
}

const bytesOf = (a: ArrayBufferView) => new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
const tensor = (name: string, dataType: number, rawData: Uint8Array, dims: number[] = []): Tensor => ({ name, dataType, dims, rawData });
const floatsOf = (t: Tensor) => {
  const b = t.rawData;
  if (!b || b.byteLength === 0) throw new Error(`initializer ${t.name} holds no raw fp32 data`);
  return new Float32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength));
};
const axis0 = [{ name: "axis", type: ATTR_INT, i: 0 }];

/** Per-output-channel symmetric int8 weights, and the bias as int32 at the input scale × each channel's weight scale. */
function quantizeConv(conv: Node, inits: Map<string, Tensor>, input: Affine, add: { inits: Tensor[]; nodes: Node[] }): void {
  const w = inits.get(conv.input[1]);
  if (!w) throw new Error(`convolution ${conv.name} has no weight initializer`);
  const weights = floatsOf(w);
  const channels = Number(w.dims[0]);
  const per = weights.length / channels;
  const scales = new Float32Array(channels);
  const q = new Int8Array(weights.length);
  for (let o = 0; o < channels; o++) {
    let max = 0;
    for (let i = 0; i < per; i++) max = Math.max(max, Math.abs(weights[o * per + i]));
    scales[o] = max / 127 || 1e-8;
    for (let i = 0; i < per; i++) q[o * per + i] = Math.max(-127, Math.min(127, Math.round(weights[o * per + i] / scales[o])));
  }
  const wn = conv.input[1];
  add.inits.push(tensor(`${wn}_q`, INT8, bytesOf(q), w.dims.map(Number)), tensor(`${wn}_scale`, FLOAT, bytesOf(scales), [channels]));
  add.inits.push(tensor(`${wn}_zero`, INT8, new Uint8Array(channels), [channels]));
  add.nodes.push({ name: `${wn}_DQ`, opType: "DequantizeLinear", input: [`${wn}_q`, `${wn}_scale`, `${wn}_zero`], output: [`${wn}_dq`], attribute: axis0 });
  conv.input[1] = `${wn}_dq`;
  const b = conv.input[2] ? inits.get(conv.input[2]) : undefined;
  if (!b) return;
  const bias = floatsOf(b);
  const bq = new Int32Array(channels);
  const bs = new Float32Array(channels);
  for (let o = 0; o < channels; o++) {
    bs[o] = input.scale * scales[o];
    bq[o] = Math.round(bias[o] / bs[o]);
  }
  const bn = conv.input[2];
  add.inits.push(tensor(`${bn}_q`, INT32, bytesOf(bq), [channels]), tensor(`${bn}_scale`, FLOAT, bytesOf(bs), [channels]));
  add.inits.push(tensor(`${bn}_zero`, INT32, new Uint8Array(4 * channels), [channels]));
  add.nodes.push({ name: `${bn}_DQ`, opType: "DequantizeLinear", input: [`${bn}_q`, `${bn}_scale`, `${bn}_zero`], output: [`${bn}_dq`], attribute: axis0 });
  conv.input[2] = `${bn}_dq`;
}

/** Nodes in an order where each one's inputs exist before it (ONNX requires it; the new Q/DQ nodes were appended). */
function sortNodes(g: Graph): void {
  const ready = new Set<string>([...g.input.map((i) => i.name), ...g.initializer.map((t) => t.name), ""]);
  const out: Node[] = [];
  let pending = g.node;
  while (pending.length) {
    const next: Node[] = [];
    for (const n of pending) {
      if (n.input.every((i) => ready.has(i))) {
        out.push(n);
        for (const o of n.output) ready.add(o);
      } else next.push(n);
    }
    if (next.length === pending.length) throw new Error(`node ${next[0].name} has an input nothing produces`);
    pending = next;
  }
  g.node = out;
}

/**
 * The int8 model of an fp32 one (ONNX bytes): Quantize/DequantizeLinear pairs on the planned activations with
 * `ranges`, int8 weights on the planned convolutions. MaxPool and Resize keep their input's parameters, so ONNX Runtime
 * runs them on the integers directly. Fails on an activation `ranges` does not cover.
 */
export function quantizeToInt8(fp32: Uint8Array, ranges: ActivationRanges): Uint8Array {
  const model = decodeModel(fp32);
  const g = model.graph;
  const { convs, tensors } = quantizationPlan(model);
  const params = new Map<string, Affine>();
  for (const t of tensors) {
    const r = ranges[t];
    if (!r) throw new Error(`no calibrated range for activation ${t}`);
    params.set(t, affine(r));
  }
  for (const n of g.node) {
    if ((n.opType === "MaxPool" || n.opType === "Resize") && params.has(n.output[0]) && params.has(n.input[0])) params.set(n.output[0], params.get(n.input[0])!);
  }
  const add = { inits: [] as Tensor[], nodes: [] as Node[] };
  for (const t of tensors) {
    const { scale, zeroPoint } = params.get(t)!;
    add.inits.push(tensor(`${t}_scale`, FLOAT, bytesOf(new Float32Array([scale]))), tensor(`${t}_zero`, UINT8, new Uint8Array([zeroPoint])));
    add.nodes.push({ name: `${t}_Q`, opType: "QuantizeLinear", input: [t, `${t}_scale`, `${t}_zero`], output: [`${t}_q`] });
    add.nodes.push({ name: `${t}_DQ`, opType: "DequantizeLinear", input: [`${t}_q`, `${t}_scale`, `${t}_zero`], output: [`${t}_dq`] });
  }
  const dq = new Set(tensors);
  for (const n of g.node) n.input = n.input.map((i) => (dq.has(i) ? `${i}_dq` : i));
  const inits = new Map(g.initializer.map((t) => [t.name, t]));
  for (const c of convs) quantizeConv(c, inits, params.get(c.input[0].replace(/_dq$/, ""))!, add);
  g.node = [...g.node, ...add.nodes];
  const used = new Set(g.node.flatMap((n) => n.input));
  g.initializer = [...g.initializer.filter((t) => used.has(t.name)), ...add.inits];
  sortNodes(g);
  return encodeModel(model);
}
