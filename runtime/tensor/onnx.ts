// Serialises a Graph to ONNX (ModelProto bytes, opset 18). Only the nodes the chosen
// outputs depend on are written, so one graph can hold forward, gradients and extras
// and be cut into several models.

import { WEBGPU_LOWERINGS, type LoweringWriter } from './webgpu-lowering.js';
import { FLOAT_DATA_TYPE, type FloatType, HalfPrecisionPlan, halfBits, type Precision } from './mixed-precision.js';
import { ABSENT, CUSTOM_GRADIENT, OUTPUT_OF, type Graph, opOfDomain } from './graph.js';
import { AttributeType, DataType, IR_VERSION, ModelProto, OPSET } from './onnx-schema.js';
import { isUnknownDim } from './shape.js';
import type { AttrValue, ConstValue, Tensor } from './tensor.js';
import { type DType, type HostArray, type Shape, formatShape } from './types.js';
import { halfToFloat32 } from '../../shared/float16.js';

/** Where baked parameter values come from (a WeightStore fits). */
export interface ParamSource {
  /** A weight's values, or (`half`) a frozen weight's float16 bits, whose `data` is then not read. */
  find(name: string): { readonly data: Float32Array | Float64Array; readonly shape: readonly number[]; readonly half?: Uint16Array } | undefined;
}

export interface ModelOptions {
  /** Graph outputs by name. */
  readonly outputs: Readonly<Record<string, Tensor>>;
  /**
   * Bake parameters as initializers with these values, so the model needs only its data
   * inputs (a standalone policy). Without it, parameters are graph inputs fed at each run.
   */
  readonly bake?: ParamSource;
  /**
   * Bake only the parameters `bake` holds; the others stay inputs fed at each run (frozen base
   * weights of a language model baked, its LoRA adapters fed). Default: every parameter must
   * have a value in `bake`.
   */
  readonly bakeFound?: boolean;
  readonly graphName?: string;
  readonly docString?: string;
  /**
   * For the webgpu provider: write the ops it would leave to the CPU as equivalent ops it has
   * kernels for (webgpu-lowering.ts), so no node falls back and copies every run.
   */
  readonly forWebGpu?: boolean;
  /**
   * 'fp16': compute the matrix products in float16 from the float32 inputs and parameters, and
   * what needs float32 in float32, with Casts between (mixed-precision.ts); inputs and outputs
   * keep their types. Default 'fp32': every op as the graph has it.
   */
  readonly precision?: Precision;
  /**
   * Where the initializers hold more bytes than this, they go to a separate weights file
   * (ONNX external data, BuiltModel.externalData) instead of the protobuf, which onnxruntime
   * cannot read past 2 GiB. Default: never (an exported policy is one self-contained file).
   */
  readonly externalDataAbove?: number;
}

/**
 * Initializers past this many bytes are written as external data by the sessions
 * (Session.create, GradientParts): protobuf's limit (2 GiB less a byte), less room for the graph.
 */
export const EXTERNAL_DATA_ABOVE = 2 ** 31 - 64 * 2 ** 20;

/** The name of the weights file of a model with external data, beside the model's file. */
export const EXTERNAL_DATA_FILE = 'weights.bin';

/** A model's external data: its bytes at each offset of the weights file (EXTERNAL_DATA_FILE). */
export interface ExternalData {
  readonly chunks: readonly { readonly offset: number; readonly bytes: Uint8Array }[];
}

export interface ModelIO {
  readonly name: string;
  readonly dtype: DType;
  readonly shape: Shape;
  /** True for a Param fed as an input. */
  readonly isParam: boolean;
}

export interface BuiltModel {
  readonly bytes: Uint8Array;
  /** Set where the initializers went to a weights file (ModelOptions.externalDataAbove): the model then loads from a folder holding both. */
  readonly externalData?: ExternalData;
  readonly inputs: readonly ModelIO[];
  readonly outputs: readonly ModelIO[];
}

// Ops whose axes are an int64 input from opset 13 (ReduceSum, Squeeze, Unsqueeze) or 18 (the other Reduce ops).
const AXES_AS_INPUT = new Set(['ReduceSum', 'ReduceMean', 'ReduceMax', 'Squeeze', 'Unsqueeze']);

/** Builds the ONNX model computing `outputs` from the graph's inputs (and parameters). */
export function buildModel(graph: Graph, options: ModelOptions): BuiltModel {
  const outputs = Object.entries(options.outputs);
  if (outputs.length === 0) throw new Error('buildModel: no outputs given');
  for (const [name, t] of outputs) {
    if (t.graph !== graph) throw new Error(`buildModel: output '${name}' is ${t.describe()} of another graph`);
    if (name === '' || name.startsWith('_')) throw new Error(`buildModel: output name '${name}' must be non-empty and not start with '_'`);
    if (graph.byName(name)) throw new Error(`buildModel: output name '${name}' is already an input or parameter name`);
  }

  const writer = new ModelWriter(options.bake, options.forWebGpu ?? false, options.bakeFound ?? false, options.precision ?? 'fp32');
  const needed = reachableFrom(outputs.map(([, t]) => t));

  // An op computing exactly one output writes it under the output's name; other outputs
  // (inputs, constants, a tensor asked for twice) get an Identity.
  const claimed = new Map<Tensor, string>();
  const identities: [string, Tensor][] = [];
  for (const [name, t] of outputs) {
    if (!t.isLeaf && !claimed.has(t)) claimed.set(t, name);
    else identities.push([name, t]);
  }
  const nameOf = (t: Tensor): string => (t.op === ABSENT ? '' : (claimed.get(t) ?? t.name ?? (t.op === 'Const' ? `_c${t.id}` : `_t${t.id}`)));

  writer.outputNames = new Set(claimed.values());
  // A multi-output node writes its later outputs under their own tensors' names (Graph.customOutputs).
  for (const t of needed) {
    if (t.op !== OUTPUT_OF) continue;
    const main = t.inputs[0]!;
    const later = writer.laterOutputs.get(main.id) ?? [];
    later[(t.attrs.index as number) - 1] = t;
    writer.laterOutputs.set(main.id, later);
  }
  for (const t of needed) writer.add(t, nameOf);
  for (const [name, t] of identities) writer.node('Identity', [nameOf(t)], name, `Identity_${name}`, []);
  writer.bakeHalfCasts();
  writer.bakeCastsUp();

  const externalData = options.externalDataAbove !== undefined ? moveToExternalData(writer.initializers as InitializerProto[], options.externalDataAbove) : undefined;
  const outputIO: ModelIO[] = outputs.map(([name, t]) => ({ name, dtype: t.dtype, shape: t.shape, isParam: false }));
  const model = {
    ir_version: IR_VERSION,
    opset_import: [{ domain: '', version: OPSET }, ...[...writer.domains].map((domain) => ({ domain, version: 1 }))],
    producer_name: 'rlx',
    producer_version: '0.1.0',
    doc_string: options.docString,
    graph: {
      name: options.graphName ?? 'rlx',
      node: writer.nodes,
      initializer: writer.initializers,
      input: writer.inputs.map(valueInfo),
      output: outputIO.map(valueInfo),
    },
  };
  const bytes = ModelProto.encode(model).finish();
  return { bytes, inputs: writer.inputs, outputs: outputIO, ...(externalData ? { externalData } : {}) };
}

interface InitializerProto {
  raw_data?: Uint8Array;
  external_data?: { key: string; value: string }[];
  data_location?: number;
}

/** Initializers of a kilobyte or more at this alignment in the weights file (onnxruntime may map it into memory). */
const EXTERNAL_MIN_BYTES = 1024;
const EXTERNAL_ALIGNMENT = 4096;

/** Moves the large initializers' bytes to external data where all of them hold more than `above` bytes; undefined where they do not. */
function moveToExternalData(initializers: InitializerProto[], above: number): ExternalData | undefined {
  const total = initializers.reduce((n, t) => n + (t.raw_data?.byteLength ?? 0), 0);
  if (total <= above) return undefined;
  const chunks: { offset: number; bytes: Uint8Array }[] = [];
  let offset = 0;
  for (const t of initializers) {
    const bytes = t.raw_data;
    if (!bytes || bytes.byteLength < EXTERNAL_MIN_BYTES) continue;
    offset = Math.ceil(offset / EXTERNAL_ALIGNMENT) * EXTERNAL_ALIGNMENT;
    chunks.push({ offset, bytes });
    t.external_data = [
      { key: 'location', value: EXTERNAL_DATA_FILE },
      { key: 'offset', value: String(offset) },
      { key: 'length', value: String(bytes.byteLength) },
    ];
    t.data_location = 1;
    delete t.raw_data;
    offset += bytes.byteLength;
  }
  return { chunks };
}

/** The nodes `roots` depend on, in topological (id) order. */
function reachableFrom(roots: readonly Tensor[]): Tensor[] {
  const seen = new Set<Tensor>();
  const stack = [...roots];
  while (stack.length > 0) {
    const t = stack.pop()!;
    if (seen.has(t)) continue;
    seen.add(t);
    stack.push(...(t.op === CUSTOM_GRADIENT ? t.inputs.slice(0, 1) : t.inputs));
  }
  return [...seen].sort((a, b) => a.id - b.id);
}

class ModelWriter implements LoweringWriter {
  readonly nodes: object[] = [];
  readonly initializers: object[] = [];
  readonly inputs: ModelIO[] = [];
  private readonly axesNames = new Map<string, string>();
  /** Names of the nodes and initializers a lowering adds (`_l0`, `_l1`, ...). */
  private lowered = 0;
  /** Where the model computes in float16: which type each float is written in (precision fp16). */
  private readonly half: HalfPrecisionPlan | null;
  /** The names of graph outputs that nodes write: these keep the graph's float32. */
  outputNames: ReadonlySet<string> = new Set();
  /** The float32 parameters baked as initializers, by name (bakeHalfCasts). */
  private readonly baked = new Map<string, Float32Array>();
  /** The float16 parameters baked as initializers, by name (bakeCastsUp). */
  private readonly bakedHalf = new Map<string, Uint16Array>();
  /** The operator domains besides the default one that nodes use (ORT_DOMAIN), each imported at version 1. */
  readonly domains = new Set<string>();
  /** A multi-output node's later outputs that the model reads, by the node's id, at their index - 1 (others left out). */
  readonly laterOutputs = new Map<number, (Tensor | undefined)[]>();

  constructor(
    private readonly bake: ParamSource | undefined,
    private readonly forWebGpu: boolean,
    private readonly bakeFound: boolean,
    precision: Precision,
  ) {
    this.half = precision === 'fp16' ? new HalfPrecisionPlan(this) : null;
  }

  add(t: Tensor, nameOf: (t: Tensor) => string): void {
    if (t.isLeaf && (t.dtype === 'float32' || t.dtype === 'float16')) this.half?.declare(nameOf(t), t.dtype);
    switch (t.op) {
      case 'Input':
        this.inputs.push({ name: t.name!, dtype: t.dtype, shape: t.shape, isParam: false });
        return;
      case 'Param':
        return this.addParam(t);
      case 'Const':
        this.initializers.push(tensorProto(nameOf(t), t.value!));
        return;
      case ABSENT:
      case OUTPUT_OF:
        return; // an empty input name; an output its node names (writeNode)
    }
    if (t.op === CUSTOM_GRADIENT) {
      // Only y is computed; the rule's targets are inputs for the gradient walk alone.
      const y = nameOf(t.inputs[0]!);
      const type = this.half?.typeOf(y);
      const output = this.halfOutput(t, nameOf(t), type);
      this.node('Identity', [y], output, `${t.op}_${t.id}`, []);
      this.finishHalfOutput(nameOf(t), output, type);
      return;
    }
    let inputs = t.inputs.map(nameOf);
    let type: FloatType | undefined;
    if (this.half) ({ inputs, type } = this.half.inputsFor(t, inputs));
    // Every output of the node computes in the type the plan chose for it (a multi-output custom op).
    const outputs = [t, ...(this.laterOutputs.get(t.id) ?? [])].map((o) => (o ? { name: nameOf(o), written: this.halfOutput(o, nameOf(o), type) } : undefined));
    this.writeNode(t, inputs, outputs.map((o) => o?.written ?? ''));
    for (const o of outputs) if (o) this.finishHalfOutput(o.name, o.written, type);
    // A float16 input cast to float32 (a cache fed in half the bytes): a node that needs it in float16 reads the input.
    if (this.half && t.op === 'Cast' && t.dtype === 'float32' && t.inputs[0]!.dtype === 'float16') this.half.exactly(nameOf(t), 'float16', inputs[0]!);
  }

  /** Where node t writes: its name, or a temporary where it computes float16 but is a graph output (float32). */
  private halfOutput(t: Tensor, name: string, type: FloatType | undefined): string {
    return type === 'float16' && this.outputNames.has(name) ? `_h${t.id}` : name;
  }

  /** Records the type `name` holds; a graph output computed in float16 is cast up to it. */
  private finishHalfOutput(name: string, written: string, type: FloatType | undefined): void {
    if (!this.half || type === undefined) return;
    this.half.declare(written, type);
    if (written !== name) {
      this.node('Cast', [written], name, `Cast${name}`, [['to', FLOAT_DATA_TYPE.float32]]);
      this.half.declare(name, 'float32');
    }
  }

  private writeNode(t: Tensor, inputs: string[], outputs: string[]): void {
    const output = outputs[0]!;
    const lowering = this.forWebGpu ? WEBGPU_LOWERINGS[t.op] : undefined;
    if (lowering) {
      lowering(t, inputs, output, this);
      return;
    }
    const attrs: [string, AttrValue][] = [];
    let op = t.op;
    for (const [key, value] of Object.entries(t.attrs)) {
      if (key === 'axes' && AXES_AS_INPUT.has(op)) inputs.push(this.axes(value as number[]));
      else if (key === 'to' && op === 'Cast') attrs.push([key, DataType[value as DType]]);
      else attrs.push([key, value]);
    }
    if (op === 'StopGradient') op = 'Identity';
    const { domain, opType } = opOfDomain(op);
    if (domain !== '') this.domains.add(domain);
    this.node(opType, inputs, outputs, `${opType}_${t.id}`, attrs, domain);
  }

  node(opType: string, inputs: string[], output: string | readonly string[], name: string, attrs: readonly [string, AttrValue][], domain = ''): void {
    this.nodes.push({ op_type: opType, input: inputs, output: typeof output === 'string' ? [output] : [...output], name, attribute: attrs.map(([k, v]) => attribute(k, v, name)), ...(domain ? { domain } : {}) });
  }

  emit(op: string, inputs: readonly string[], attrs: readonly [string, AttrValue][] = [], output?: string): string {
    const name = output ?? `_l${this.lowered++}`;
    this.node(op, [...inputs], name, `${op}${name}`, attrs);
    return name;
  }

  constant(value: ConstValue): string {
    const name = `_l${this.lowered++}`;
    this.initializers.push(tensorProto(name, value));
    return name;
  }

  private addParam(t: Tensor): void {
    const found = this.bake?.find(t.name!);
    if (!this.bake || (!found && this.bakeFound)) {
      this.inputs.push({ name: t.name!, dtype: t.dtype, shape: t.shape, isParam: true });
      return;
    }
    if (!found) throw new Error(`buildModel: no value to bake for param '${t.name}'`);
    if (found.shape.join(',') !== t.shape.join(',')) {
      throw new Error(`buildModel: param '${t.name}' is ${formatShape(t.shape)} in the graph but ${formatShape(found.shape)} in the store`);
    }
    if (t.dtype === 'float16') {
      if (!found.half) throw new Error(`buildModel: param '${t.name}' is float16 in the graph but float32 in the store`);
      this.initializers.push({ name: t.name!, dims: [...found.shape], data_type: FLOAT_DATA_TYPE.float16, raw_data: bytesOf(found.half) });
      this.bakedHalf.set(t.name!, found.half);
      return;
    }
    const data = t.dtype === 'float32' ? Float32Array.from(found.data) : Float64Array.from(found.data);
    this.initializers.push(tensorProto(t.name!, { dtype: t.dtype, shape: found.shape, data }));
    if (t.dtype === 'float32') this.baked.set(t.name!, data as Float32Array);
  }

  /**
   * A baked float16 weight (a frozen base kept in half precision: weights.ts addHalf) that the
   * model reads only through its cast up to float32 is baked as float32 under the cast's name,
   * and the cast goes: a session that bakes (a GPU's) holds its base on the device and would
   * otherwise cast it again at every run. In precision fp16, where products read the float16
   * weight itself, the cast is left for the others.
   */
  bakeCastsUp(): void {
    if (!this.half) this.bakeThroughCasts(this.bakedHalf, 'float32', halfToFloat32);
  }

  /**
   * precision fp16: a baked weight that the model reads only through its cast to float16 (a frozen
   * weight of a product) is baked as float16 under the cast's name, and the cast goes: half the
   * model's bytes for it, the same values (halfBits rounds as onnxruntime's Cast does).
   */
  bakeHalfCasts(): void {
    if (this.half) this.bakeThroughCasts(this.baked, 'float16', halfBits);
  }

  /** Each of `baked` read only by one Cast to `to` is baked as `convert` of it under the cast's output, and that cast dropped. */
  private bakeThroughCasts<T extends Float32Array | Uint16Array>(baked: ReadonlyMap<string, T>, to: 'float16' | 'float32', convert: (values: T) => HostArray): void {
    if (baked.size === 0) return;
    const nodes = this.nodes as NodeProto[];
    const readers = new Map<string, NodeProto[]>();
    for (const node of nodes) for (const input of node.input) if (baked.has(input)) readers.set(input, [...(readers.get(input) ?? []), node]);
    const dropped = new Set<NodeProto>();
    for (const [name, list] of readers) {
      const cast = list[0]!;
      if (list.length !== 1 || cast.op_type !== 'Cast' || castTarget(cast) !== FLOAT_DATA_TYPE[to]) continue;
      const index = this.initializers.findIndex((t) => (t as { name: string }).name === name);
      const proto = this.initializers[index] as { dims: number[] };
      this.initializers[index] = { name: cast.output[0]!, dims: proto.dims, data_type: FLOAT_DATA_TYPE[to], raw_data: bytesOf(convert(baked.get(name)!)) };
      dropped.add(cast);
    }
    if (dropped.size > 0) this.nodes.splice(0, this.nodes.length, ...nodes.filter((n) => !dropped.has(n)));
  }

  /** One shared int64 initializer per distinct axes list. */
  axes(axes: readonly number[]): string {
    const key = axes.join(',');
    let name = this.axesNames.get(key);
    if (!name) {
      name = `_axes${this.axesNames.size}`;
      this.axesNames.set(key, name);
      this.initializers.push(tensorProto(name, { dtype: 'int64', shape: [axes.length], data: BigInt64Array.from(axes, BigInt) }));
    }
    return name;
  }
}

interface NodeProto {
  readonly op_type: string;
  readonly input: string[];
  readonly output: string[];
  readonly attribute: { readonly name: string; readonly i?: number }[];
}

/** A Cast node's `to`. */
function castTarget(node: NodeProto): number | undefined {
  return node.attribute.find((a) => a.name === 'to')?.i;
}

function bytesOf(data: HostArray): Uint8Array {
  // raw_data is little-endian; typed arrays are in platform order, little-endian on x86 and ARM.
  return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
}

function tensorProto(name: string, value: ConstValue): object {
  return { name, dims: [...value.shape], data_type: DataType[value.dtype], raw_data: bytesOf(value.data) };
}

function attribute(name: string, value: AttrValue, nodeName: string): object {
  if (typeof value === 'number') {
    return Number.isInteger(value) ? { name, type: AttributeType.INT, i: value } : { name, type: AttributeType.FLOAT, f: value };
  }
  if (typeof value === 'string') return { name, type: AttributeType.STRING, s: new TextEncoder().encode(value) };
  if (Array.isArray(value)) {
    const ints = value as readonly number[];
    return ints.every(Number.isInteger) ? { name, type: AttributeType.INTS, ints } : { name, type: AttributeType.FLOATS, floats: ints };
  }
  if ('float' in value) return { name, type: AttributeType.FLOAT, f: value.float };
  if ('floats' in value) return { name, type: AttributeType.FLOATS, floats: value.floats };
  if ('tensor' in value) return { name, type: AttributeType.TENSOR, t: tensorProto('', value.tensor) };
  throw new Error(`buildModel: attribute '${name}' of ${nodeName} has an unsupported value`);
}

function valueInfo(io: ModelIO): object {
  const dim = io.shape.map((d) =>
    typeof d === 'number' ? { dim_value: d } : isUnknownDim(d) ? {} : { dim_param: d },
  );
  return { name: io.name, type: { tensor_type: { elem_type: DataType[io.dtype], shape: { dim } } } };
}
