// A minimal WebAssembly assembler: bytes for modules, sections and the instructions our SIMD
// kernels use, and nothing else. Kernels are assembled from these at run time rather than
// shipped as binaries, so they can be read (and changed) as code. Opcodes are from the core
// spec (binary format, "Instructions"); SIMD ones are prefixed 0xfd and their number is LEB128.
// A new opcode that is wrong shows up as validate() failing, i.e. the JS fallback running: the
// kernels' tests check that the kernel is in use.

/** Value types. */
export const I32 = 0x7f;
export const F32 = 0x7d;
export const F64 = 0x7c;
export const V128 = 0x7b;

export function uleb(n: number): number[] {
  const out: number[] = [];
  do {
    let byte = n & 0x7f;
    n >>>= 7;
    if (n !== 0) byte |= 0x80;
    out.push(byte);
  } while (n !== 0);
  return out;
}

export function sleb(n: number): number[] {
  const out: number[] = [];
  for (;;) {
    const byte = n & 0x7f;
    n >>= 7;
    if ((n === 0 && (byte & 0x40) === 0) || (n === -1 && (byte & 0x40) !== 0)) {
      out.push(byte);
      return out;
    }
    out.push(byte | 0x80);
  }
}

export const section = (id: number, body: number[]): number[] => [id, ...uleb(body.length), ...body];
export const vector = (items: number[][]): number[] => [...uleb(items.length), ...items.flat()];
export const name = (s: string): number[] => [...uleb(s.length), ...Array.from(s, (c) => c.charCodeAt(0))];

/** A function type entry: params -> results. */
export const funcType = (params: number[], results: number[] = []): number[] => [0x60, ...vector(params.map((t) => [t])), ...vector(results.map((t) => [t]))];

/** A code entry: locals as [count, type] runs, then the body (which must end with op.end). */
export function funcBody(locals: [number, number][], code: number[]): number[] {
  const body = [...vector(locals.map(([count, type]) => [...uleb(count), type])), ...code];
  return [...uleb(body.length), ...body];
}

/** The import of `env.memory`, at least `pages` pages, no maximum. */
export const memoryImport = (pages = 1): number[] => [...name('env'), ...name('memory'), 0x02, 0x00, ...uleb(pages)];

/** The import of a shared `env.memory` (one several threads use), at least `pages` and at most `maxPages` pages. */
export const sharedMemoryImport = (pages: number, maxPages: number): number[] => [...name('env'), ...name('memory'), 0x02, 0x03, ...uleb(pages), ...uleb(maxPages)];

export interface ModuleParts {
  readonly types: number[][];
  readonly imports: number[][];
  /** The type index of each function. */
  readonly functions: number[];
  /** [export name, function index]. */
  readonly exports: [string, number][];
  /** funcBody() of each function. */
  readonly bodies: number[][];
}

export function assembleModule(parts: ModuleParts): Uint8Array {
  return new Uint8Array([
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
    ...section(1, vector(parts.types)),
    ...section(2, vector(parts.imports)),
    ...section(3, vector(parts.functions.map((t) => uleb(t)))),
    ...section(7, vector(parts.exports.map(([n, i]) => [...name(n), 0x00, ...uleb(i)]))),
    ...section(10, vector(parts.bodies)),
  ]);
}

/** Instruction emitters (bytes). */
export const op = {
  get: (i: number) => [0x20, ...uleb(i)],
  set: (i: number) => [0x21, ...uleb(i)],
  tee: (i: number) => [0x22, ...uleb(i)],
  i32: (v: number) => [0x41, ...sleb(v)],
  add: [0x6a],
  sub: [0x6b],
  mul: [0x6c],
  ltU: [0x49],
  block: [0x02, 0x40],
  loop: [0x03, 0x40],
  brIf: (depth: number) => [0x0d, ...uleb(depth)],
  br: (depth: number) => [0x0c, ...uleb(depth)],
  end: [0x0b],
  eqz: [0x45],
  /** select a b cond: a if cond != 0, else b. */
  select: [0x1b],
  f32Load: [0x2a, 0x02, 0x00],
  f64Add: [0xa0],
  simd: (code: number, ...immediates: number[]) => [0xfd, ...uleb(code), ...immediates],
};

// Memory arguments carry log2(alignment) = 4 (16 bytes): a hint only, unaligned access is legal.
export const v128Load = (offset: number) => op.simd(0x00, 0x04, ...uleb(offset));
export const v128Store = (offset: number) => op.simd(0x0b, 0x04, ...uleb(offset));
/** i8x16.shuffle a b: byte lanes picked from the 32 bytes of a then b. */
export const i8x16Shuffle = (lanes: readonly number[]) => op.simd(0x0d, ...lanes);
export const f32x4Splat = op.simd(0x13);
export const f64x2ExtractLane = (lane: number) => op.simd(0x21, lane);
export const f64x2PromoteLow = op.simd(0x5f);
export const f32x4Sqrt = op.simd(0xe3);
export const f32x4Add = op.simd(0xe4);
export const f32x4Sub = op.simd(0xe5);
export const f32x4Mul = op.simd(0xe6);
export const f32x4Div = op.simd(0xe7);
export const f32x4Min = op.simd(0xe8);
export const f32x4Max = op.simd(0xe9);
export const f64x2Add = op.simd(0xf0);

export function f32x4Const(value: number): number[] {
  const bytes = new Uint8Array(new Float32Array([value, value, value, value]).buffer);
  return op.simd(0x0c, ...bytes);
}

/** v128.const of zeros. */
export const v128Zero = (): number[] => op.simd(0x0c, ...new Array<number>(16).fill(0));

/** The part of the WebAssembly API used by the kernels (the project's TypeScript libs do not declare it). */
export interface WasmApi {
  validate(bytes: Uint8Array): boolean;
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: Record<string, unknown> };
  /** (A shared memory's buffer is a SharedArrayBuffer; views over it work alike.) */
  Memory: new (descriptor: { initial: number; maximum?: number; shared?: boolean }) => { buffer: ArrayBuffer };
}

/** The host's WebAssembly, or undefined where there is none. */
export const wasm = (globalThis as { WebAssembly?: WasmApi }).WebAssembly;

/** Compiles `binary` once it validates; null where WebAssembly (or an opcode it uses, e.g. SIMD) is missing. */
export function compile(binary: Uint8Array): object | null {
  return wasm !== undefined && wasm.validate(binary) ? new wasm.Module(binary) : null;
}
