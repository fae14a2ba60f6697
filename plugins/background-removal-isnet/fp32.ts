// Widens the fp16 ISNet ONNX model to fp32 at install and drops the graph outputs nobody reads.
// It walks the protobuf wire format and re-encodes only the fields that carry an element type or fp16 data; every other
// field is copied byte for byte, so fields this walk does not model survive, and the same input gives the same bytes.
import { Reader, Writer } from "protobufjs/minimal";

// ONNX TensorProto.DataType values.
const FLOAT = 1;
const FLOAT16 = 10;

// Protobuf wire types.
const VARINT = 0;
const LEN = 2;

/** fp16 data kept as the model stores it (little-endian halves) and widened only when the output is written. */
type Halves = { halves: Uint8Array };
type Part = Uint8Array | Halves;

/** The output under construction: slices of the input copied as they are, and fp16 data that doubles in size. */
class Parts {
  list: Part[] = [];
  length = 0;
  bytes(b: Uint8Array): this {
    this.list.push(b);
    this.length += b.length;
    return this;
  }
  halves(b: Uint8Array): this {
    this.list.push({ halves: b });
    this.length += b.length * 2;
    return this;
  }
  append(other: Parts): this {
    for (const p of other.list) this.list.push(p);
    this.length += other.length;
    return this;
  }
}

type Field = {
  number: number;
  wire: number;
  /** Where the whole field (tag included) starts and ends in the message. */
  start: number;
  end: number;
  /** The payload of a length-delimited field; for other wire types, the bytes after the tag. */
  value: Uint8Array;
};

function fieldsOf(message: Uint8Array): Field[] {
  const fields: Field[] = [];
  const r = Reader.create(message);
  while (r.pos < r.len) {
    const start = r.pos;
    const tag = r.uint32();
    const number = tag >>> 3;
    const wire = tag & 7;
    if (number === 0) throw new Error(`invalid protobuf field number 0 at byte ${start}`);
    let valueStart = r.pos;
    if (wire === LEN) {
      const length = r.uint32();
      valueStart = r.pos;
      r.skip(length);
    } else {
      r.skipType(wire);
    }
    fields.push({ number, wire, start, end: r.pos, value: message.subarray(valueStart, r.pos) });
  }
  return fields;
}

// Only compared against small enum values, so precision above 2^53 does not matter.
function varintValue(bytes: Uint8Array): number {
  let value = 0;
  let scale = 1;
  for (const b of bytes) {
    value += (b & 127) * scale;
    scale *= 128;
  }
  return value;
}

const utf8 = new TextDecoder();
const stringField = (fields: Field[], number: number): string | null => {
  let found: string | null = null;
  // Protobuf: the last occurrence of a singular field wins.
  for (const f of fields) if (f.number === number && f.wire === LEN) found = utf8.decode(f.value);
  return found;
};
const varintField = (fields: Field[], number: number): number | null => {
  let found: number | null = null;
  for (const f of fields) if (f.number === number && f.wire === VARINT) found = varintValue(f.value);
  return found;
};

const encodeVarintField = (number: number, value: number) => new Parts().bytes(Writer.create().uint32(number * 8 + VARINT).uint32(value).finish());

function lengthDelimited(number: number, body: Parts): Parts {
  if (body.length > 0x7fffffff) throw new Error("the fp32 model would pass protobuf's 2 GB limit");
  return new Parts().bytes(Writer.create().uint32(number * 8 + LEN).uint32(body.length).finish()).append(body);
}

/**
 * Re-encodes a message whose fields `edit` replaces (a Parts, empty to drop the field) or keeps (null). Returns null
 * when nothing was replaced, so the caller keeps the message's original bytes, length prefix included.
 */
function rewrite(message: Uint8Array, edit: (f: Field) => Parts | null, fields = fieldsOf(message)): Parts | null {
  const out = new Parts();
  let changed = false;
  for (const f of fields) {
    const replaced = edit(f);
    if (replaced) {
      changed = true;
      out.append(replaced);
    } else {
      out.bytes(message.subarray(f.start, f.end));
    }
  }
  return changed ? out : null;
}

/** A sub-message field rewritten by `inner`, or null when it stays as it is (or is not length-delimited at all). */
function nested(f: Field, inner: (message: Uint8Array) => Parts | null): Parts | null {
  if (f.wire !== LEN) return null;
  const body = inner(f.value);
  return body && lengthDelimited(f.number, body);
}

// TensorProto: dims=1, data_type=2, int32_data=5, name=8, raw_data=9, external_data=13, data_location=14.
function tensor(message: Uint8Array): Parts | null {
  const fields = fieldsOf(message);
  if (varintField(fields, 2) !== FLOAT16) return null;
  const name = stringField(fields, 8) ?? "(unnamed)";
  if (varintField(fields, 14) === 1 || fields.some((f) => f.number === 13)) {
    throw new Error(`fp16 tensor ${name} keeps its data outside the model file`);
  }
  const raw = fields.filter((f) => f.number === 9 && f.wire === LEN);
  const int32 = fields.filter((f) => f.number === 5 && (f.wire === LEN || f.wire === VARINT));
  if (raw.length > 0 && int32.length > 0) throw new Error(`fp16 tensor ${name} has both raw_data and int32_data`);
  let halves: Uint8Array;
  if (raw.length > 0) {
    halves = raw[raw.length - 1].value;
    if (halves.length % 2 !== 0) throw new Error(`fp16 tensor ${name} has an odd number of raw_data bytes`);
  } else {
    // int32_data holds one fp16 bit pattern per value, packed or not; the low 16 bits are the half.
    const values: number[] = [];
    for (const f of int32) {
      const r = Reader.create(f.value);
      if (f.wire === LEN) while (r.pos < r.len) values.push(r.uint32() & 0xffff);
      else values.push(r.uint32() & 0xffff);
    }
    halves = new Uint8Array(values.length * 2);
    values.forEach((v, i) => ((halves[2 * i] = v & 0xff), (halves[2 * i + 1] = v >>> 8)));
  }
  const widened = () => lengthDelimited(9, new Parts().halves(halves));
  const lastRaw = raw[raw.length - 1];
  const firstInt32 = int32[0];
  return rewrite(
    message,
    (f) => {
      if (f.number === 2 && f.wire === VARINT) return encodeVarintField(2, FLOAT);
      if (f.number === 9 && f.wire === LEN) return f === lastRaw ? widened() : new Parts();
      if (int32.includes(f)) return f === firstInt32 ? widened() : new Parts();
      return null;
    },
    fields,
  );
}

// SparseTensorProto: values=1, indices=2.
const sparseTensor = (message: Uint8Array) => rewrite(message, (f) => (f.number === 1 || f.number === 2 ? nested(f, tensor) : null));

// TypeProto.Tensor and TypeProto.SparseTensor: elem_type=1.
const tensorType = (message: Uint8Array) =>
  rewrite(message, (f) => (f.number === 1 && f.wire === VARINT && varintValue(f.value) === FLOAT16 ? encodeVarintField(1, FLOAT) : null));

// TypeProto: tensor_type=1, sequence_type=4 (elem_type=1), map_type=5 (value_type=2), sparse_tensor_type=8, optional_type=9 (elem_type=1).
function typeProto(message: Uint8Array): Parts | null {
  return rewrite(message, (f) => {
    if (f.number === 1 || f.number === 8) return nested(f, tensorType);
    if (f.number === 4 || f.number === 9) return nested(f, (m) => rewrite(m, (g) => (g.number === 1 ? nested(g, typeProto) : null)));
    if (f.number === 5) return nested(f, (m) => rewrite(m, (g) => (g.number === 2 ? nested(g, typeProto) : null)));
    return null;
  });
}

// ValueInfoProto: name=1, type=2.
const valueInfo = (message: Uint8Array) => rewrite(message, (f) => (f.number === 2 ? nested(f, typeProto) : null));

// AttributeProto: name=1, i=3, t=5, g=6, tensors=10, graphs=11, tp=14, type_protos=15, sparse_tensor=22, sparse_tensors=23.
function attribute(message: Uint8Array, ofCast: boolean): Parts | null {
  const fields = fieldsOf(message);
  const castTo = ofCast && stringField(fields, 1) === "to";
  return rewrite(
    message,
    (f) => {
      if (f.number === 3 && castTo && f.wire === VARINT && varintValue(f.value) === FLOAT16) return encodeVarintField(3, FLOAT);
      if (f.number === 5 || f.number === 10) return nested(f, tensor);
      if (f.number === 6 || f.number === 11) return nested(f, (m) => graph(m, null));
      if (f.number === 14 || f.number === 15) return nested(f, typeProto);
      if (f.number === 22 || f.number === 23) return nested(f, sparseTensor);
      return null;
    },
    fields,
  );
}

// NodeProto: attribute=5, op_type=4, domain=7.
function node(message: Uint8Array): Parts | null {
  const fields = fieldsOf(message);
  const domain = stringField(fields, 7) ?? "";
  const ofCast = stringField(fields, 4) === "Cast" && (domain === "" || domain === "ai.onnx");
  return rewrite(message, (f) => (f.number === 5 ? nested(f, (m) => attribute(m, ofCast)) : null), fields);
}

// GraphProto: node=1, initializer=5, input=11, output=12, value_info=13, sparse_initializer=15.
// `keep` names the outputs the main graph keeps; a subgraph's outputs are part of its meaning and stay (keep = null).
function graph(message: Uint8Array, keep: Set<string> | null): Parts | null {
  const kept = new Set<string>();
  const out = rewrite(message, (f) => {
    if (f.number === 1) return nested(f, node);
    if (f.number === 5) return nested(f, tensor);
    if (f.number === 15) return nested(f, sparseTensor);
    if (f.number === 11 || f.number === 13) return nested(f, valueInfo);
    if (f.number === 12 && f.wire === LEN && keep) {
      const name = stringField(fieldsOf(f.value), 1) ?? "";
      if (!keep.has(name)) return new Parts();
      kept.add(name);
    }
    if (f.number === 12) return nested(f, valueInfo);
    return null;
  });
  if (keep) {
    const missing = [...keep].filter((name) => !kept.has(name));
    if (missing.length > 0) throw new Error(`the model has no graph output named ${missing.join(", ")}`);
  }
  return out;
}

// FunctionProto: node=7, attribute_proto=11, value_info=12.
function functionProto(message: Uint8Array): Parts | null {
  return rewrite(message, (f) => {
    if (f.number === 7) return nested(f, node);
    if (f.number === 11) return nested(f, (m) => attribute(m, false));
    if (f.number === 12) return nested(f, valueInfo);
    return null;
  });
}

/** float32 bit patterns of every fp16 value, built once on first use. */
let widenTable: Uint32Array | null = null;

/** The float32 bits of an fp16 value: exact, since every half is a float; subnormals, infinities and NaN payloads kept. */
export function halfToFloatBits(h: number): number {
  const sign = (h & 0x8000) << 16;
  const exponent = (h >>> 10) & 0x1f;
  let mantissa = h & 0x3ff;
  if (exponent === 0x1f) return (sign | 0x7f800000 | (mantissa << 13)) >>> 0;
  if (exponent !== 0) return (sign | ((exponent + 112) << 23) | (mantissa << 13)) >>> 0;
  if (mantissa === 0) return sign >>> 0;
  // A subnormal half is a normal float: shift until the leading 1 reaches the implicit bit.
  let e = 113;
  while ((mantissa & 0x400) === 0) {
    mantissa <<= 1;
    e--;
  }
  return (sign | (e << 23) | ((mantissa & 0x3ff) << 13)) >>> 0;
}

function write(parts: Parts): Uint8Array {
  const out = new Uint8Array(parts.length);
  let at = 0;
  for (const p of parts.list) {
    if (p instanceof Uint8Array) {
      out.set(p, at);
      at += p.length;
      continue;
    }
    if (!widenTable) {
      widenTable = new Uint32Array(65536);
      for (let h = 0; h < 65536; h++) widenTable[h] = halfToFloatBits(h);
    }
    const table = widenTable;
    const src = p.halves;
    for (let i = 0; i < src.length; i += 2) {
      const bits = table[src[i] | (src[i + 1] << 8)];
      out[at] = bits & 0xff;
      out[at + 1] = (bits >>> 8) & 0xff;
      out[at + 2] = (bits >>> 16) & 0xff;
      out[at + 3] = bits >>> 24;
      at += 4;
    }
  }
  return out;
}

/**
 * Returns `model` (ONNX ModelProto bytes) with every fp16 tensor widened to fp32 raw_data (initializers, node attributes,
 * subgraphs, functions), every fp16 element type made fp32, every Cast to fp16 made a Cast to fp32, and the main graph's
 * outputs reduced to `keepOutputs`. Fails on a model it cannot convert faithfully (fp16 data stored outside the file, a
 * kept output that does not exist) rather than writing a half-converted one.
 */
export function widenToFp32(model: Uint8Array, keepOutputs: readonly string[]): Uint8Array {
  if (keepOutputs.length === 0) throw new Error("a model needs at least one graph output");
  const keep = new Set(keepOutputs);
  let graphs = 0;
  // ModelProto: graph=7, functions=25.
  const parts = rewrite(model, (f) => {
    if (f.number === 7) {
      // Protobuf would merge two graph fields into one, which the output filter cannot follow.
      if (f.wire !== LEN || ++graphs > 1) throw new Error("the ModelProto's graph field is not a single message");
      return nested(f, (m) => graph(m, keep));
    }
    if (f.number === 25) return nested(f, functionProto);
    return null;
  });
  if (graphs === 0) throw new Error("the ModelProto has no graph");
  return parts ? write(parts) : model.slice();
}
