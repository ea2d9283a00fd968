import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, describe, it } from 'node:test';
import { isInputError } from '../../../shared/input-error.js';
import { indexModelWeights, readSafetensorsHeader, readTensor, readTensors, SafetensorsError, type StoredTensor } from '../../../hf/safetensors.js';
import { writeSafetensors, writeShardedSafetensors, type TensorToWrite } from '../../../runtime/lm/safetensors-writer.js';
import { readLmConfig } from '../../../hf/config.js';
import { loadLmWeights } from '../../../runtime/lm/load.js';
import { repoRoot } from '../../helpers/repo.js';

const FIXTURES = path.join(repoRoot(), 'test', 'fixtures', 'hf-tiny');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'rlx-safetensors-'));
let fresh = 0;
const tmpPath = (name: string) => path.join(tmp, `${fresh++}-${name}`);
after(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** A second parse of a safetensors file, sharing no code with the module: the whole file, Buffer reads. */
function parseIndependently(file: string) {
  const bytes = fs.readFileSync(file);
  const headerLength = Number(bytes.readBigUInt64LE(0));
  const header = JSON.parse(bytes.subarray(8, 8 + headerLength).toString('utf8')) as Record<string, { dtype: string; shape: number[]; data_offsets: [number, number] }>;
  const values = (name: string) => {
    const [begin, end] = header[name]!.data_offsets;
    return Array.from({ length: (end - begin) / 4 }, (_, i) => bytes.readFloatLE(8 + headerLength + begin + 4 * i));
  };
  return { bytes, headerLength, header, values };
}

interface Config { [key: string]: number | boolean | null | undefined }
const config = (model: string) => JSON.parse(fs.readFileSync(path.join(FIXTURES, model, 'config.json'), 'utf8')) as Config;

/** The parameters transformers' Qwen2/Llama modules hold, from config.json alone. */
function decoderShapes(c: Config, bias: boolean): Map<string, number[]> {
  const hidden = c.hidden_size as number;
  const headDim = (c.head_dim as number | undefined) ?? hidden / (c.num_attention_heads as number);
  const q = (c.num_attention_heads as number) * headDim;
  const kv = (c.num_key_value_heads as number) * headDim;
  const inter = c.intermediate_size as number;
  const shapes = new Map<string, number[]>([['model.embed_tokens.weight', [c.vocab_size as number, hidden]], ['model.norm.weight', [hidden]]]);
  if (!c.tie_word_embeddings) shapes.set('lm_head.weight', [c.vocab_size as number, hidden]);
  for (let l = 0; l < (c.num_hidden_layers as number); l++) {
    const p = `model.layers.${l}.`;
    for (const [name, shape] of [['self_attn.q_proj', [q, hidden]], ['self_attn.k_proj', [kv, hidden]], ['self_attn.v_proj', [kv, hidden]]] as const) {
      shapes.set(`${p}${name}.weight`, [...shape]);
      if (bias) shapes.set(`${p}${name}.bias`, [shape[0]]);
    }
    shapes.set(`${p}self_attn.o_proj.weight`, [hidden, q]);
    shapes.set(`${p}mlp.gate_proj.weight`, [inter, hidden]);
    shapes.set(`${p}mlp.up_proj.weight`, [inter, hidden]);
    shapes.set(`${p}mlp.down_proj.weight`, [hidden, inter]);
    shapes.set(`${p}input_layernorm.weight`, [hidden]);
    shapes.set(`${p}post_attention_layernorm.weight`, [hidden]);
  }
  return shapes;
}

/** GPT-2's parameters (Conv1D weights are [in, out]). */
function gpt2Shapes(c: Config): Map<string, number[]> {
  const e = c.n_embd as number;
  const shapes = new Map<string, number[]>([
    ['transformer.wte.weight', [c.vocab_size as number, e]], ['transformer.wpe.weight', [c.n_positions as number, e]],
    ['transformer.ln_f.weight', [e]], ['transformer.ln_f.bias', [e]],
  ]);
  for (let l = 0; l < (c.n_layer as number); l++) {
    const p = `transformer.h.${l}.`;
    for (const [name, inOut] of [['attn.c_attn', [e, 3 * e]], ['attn.c_proj', [e, e]], ['mlp.c_fc', [e, 4 * e]], ['mlp.c_proj', [4 * e, e]]] as const) {
      shapes.set(`${p}${name}.weight`, [...inOut]);
      shapes.set(`${p}${name}.bias`, [inOut[1]]);
    }
    for (const ln of ['ln_1', 'ln_2']) for (const w of ['weight', 'bias']) shapes.set(`${p}${ln}.${w}`, [e]);
  }
  return shapes;
}

const shapesOf = (tensors: Iterable<StoredTensor>) => new Map([...tensors].map((t) => [t.name, [...t.shape]]));

/** Asserts `act` throws a SafetensorsError (an InputError) whose message names `file` and matches `message`. */
function assertRefused(act: () => unknown, file: string, message: RegExp | string): void {
  assert.throws(act, (err: unknown) => {
    assert.ok(err instanceof SafetensorsError && isInputError(err), `not a SafetensorsError: ${String(err)}`);
    assert.equal(err.name, 'SafetensorsError');
    assert.ok(err.message.includes(file), `${err.message} does not name ${file}`);
    if (typeof message === 'string') assert.ok(err.message.includes(message), `${err.message} lacks ${message}`);
    else assert.match(err.message, message);
    return true;
  });
}

describe('safetensors: reading the fixtures', () => {
  it('finds the tensors config.json describes, with their shapes, as F32', () => {
    const qwen2 = indexModelWeights(path.join(FIXTURES, 'qwen2'));
    assert.deepEqual(shapesOf(qwen2.tensors.values()), decoderShapes(config('qwen2'), true));
    assert.deepEqual(qwen2.tensors.get('model.embed_tokens.weight')?.shape, [400, 64]);
    assert.deepEqual(qwen2.tensors.get('model.layers.0.self_attn.q_proj.bias')?.shape, [64]);
    assert.deepEqual(shapesOf(indexModelWeights(path.join(FIXTURES, 'llama')).tensors.values()), decoderShapes(config('llama'), false));
    assert.deepEqual(shapesOf(indexModelWeights(path.join(FIXTURES, 'gpt2')).tensors.values()), gpt2Shapes(config('gpt2')));
    for (const model of ['qwen2', 'llama', 'gpt2']) {
      const file = path.join(FIXTURES, model, 'model.safetensors');
      const index = indexModelWeights(path.join(FIXTURES, model));
      const { headerLength } = parseIndependently(file);
      assert.deepEqual(index.files, [file]);
      assert.deepEqual([...index.dtypes], ['F32']);
      assert.equal(index.storedBytes, fs.statSync(file).size - 8 - headerLength, model);
      assert.deepEqual(readSafetensorsHeader(file).metadata, { format: 'pt' });
    }
  });

  it('reads each PEFT adapter: lora_A [r, in] and lora_B [out, r] for q_proj and v_proj of both layers', () => {
    for (const model of ['qwen2-lora', 'llama-lora']) {
      const { tensors } = readSafetensorsHeader(path.join(FIXTURES, model, 'adapter_model.safetensors'));
      const expected = new Map<string, number[]>();
      for (const l of [0, 1]) {
        const p = `base_model.model.model.layers.${l}.self_attn.`;
        expected.set(`${p}q_proj.lora_A.weight`, [4, 64]).set(`${p}q_proj.lora_B.weight`, [64, 4]);
        expected.set(`${p}v_proj.lora_A.weight`, [4, 64]).set(`${p}v_proj.lora_B.weight`, [32, 4]);
      }
      assert.deepEqual(shapesOf(tensors), expected, model);
    }
  });

  it('reads every tensor\'s values as a second, independent parse of the file does', () => {
    const files = [...['qwen2', 'llama', 'gpt2'].map((m) => path.join(FIXTURES, m, 'model.safetensors')),
      ...['qwen2-lora', 'llama-lora'].map((m) => path.join(FIXTURES, m, 'adapter_model.safetensors'))];
    for (const file of files) {
      const { tensors } = readSafetensorsHeader(file);
      const independent = parseIndependently(file);
      const values = readTensors(tensors);
      assert.equal(values.size, tensors.length);
      for (const t of tensors) {
        assert.deepEqual(Array.from(values.get(t.name)!), independent.values(t.name), `${file} ${t.name}`);
      }
      assert.deepEqual(Array.from(readTensor(tensors[1]!)), independent.values(tensors[1]!.name));
    }
    const embed = indexModelWeights(path.join(FIXTURES, 'qwen2')).tensors.get('model.embed_tokens.weight')!;
    assert.ok(readTensor(embed).some((v) => v !== 0), 'the weights are not all zero');
  });

  it('follows a symbolic link into a Hugging Face cache\'s blobs/ folder', () => {
    const cache = tmpPath('hub');
    fs.mkdirSync(path.join(cache, 'blobs'), { recursive: true });
    fs.mkdirSync(path.join(cache, 'snapshots', 'abc'), { recursive: true });
    fs.copyFileSync(path.join(FIXTURES, 'qwen2', 'model.safetensors'), path.join(cache, 'blobs', '5e1f'));
    fs.symlinkSync('../../blobs/5e1f', path.join(cache, 'snapshots', 'abc', 'model.safetensors'));
    const index = indexModelWeights(path.join(cache, 'snapshots', 'abc'));
    assert.equal(index.tensors.size, 26);
    assert.equal(readTensor(index.tensors.get('model.norm.weight')!).length, 64);
  });
});

describe('safetensors: writing', () => {
  it('writes F32 exactly; rewriting the qwen2 fixture gives the safetensors library\'s bytes', () => {
    const source = path.join(FIXTURES, 'qwen2', 'model.safetensors');
    const { tensors } = readSafetensorsHeader(source);
    const values = readTensors(tensors);
    // Given in reverse order: the writer sorts by name as the library does.
    const toWrite: TensorToWrite[] = tensors.map((t) => ({ name: t.name, shape: t.shape, data: values.get(t.name)! })).reverse();
    const copy = tmpPath('qwen2.safetensors');
    writeSafetensors(copy, toWrite);
    assert.ok(fs.readFileSync(copy).equals(fs.readFileSync(source)), 'byte for byte the file torch + safetensors wrote');

    const odd = Float32Array.from([0, -0, 1.5, -3.25e-38, 1e-45, 3.4028234663852886e38, Infinity, -Infinity]);
    const file = tmpPath('odd.safetensors');
    writeSafetensors(file, [{ name: 'x', shape: [2, 4], data: odd }], { note: 'kept' });
    assert.deepEqual(readSafetensorsHeader(file).metadata, { format: 'pt', note: 'kept' });
    const back = readTensor(readSafetensorsHeader(file).tensors[0]!);
    assert.ok(Buffer.from(back.buffer).equals(Buffer.from(odd.buffer)), 'the same bits, -0 included');
    const headerLength = Number(fs.readFileSync(file).readBigUInt64LE(0));
    assert.equal(headerLength % 8, 0, 'the header is padded to a multiple of 8');
  });

  // Inputs and the bits torch gives for them (x.to(torch.bfloat16) / .half(): round to nearest even).
  const inputs = [1, -2, 65504, 1e-8, 1e-7, Infinity, -Infinity, NaN, 0, -0, 65520, 1 + 2 ** -8, 1 + 3 * 2 ** -8, 1 + 2 ** -11, 1 + 3 * 2 ** -11, 2 ** -25, 3 * 2 ** -25, 6e-5, 65519];
  const bf16 = [0x3f80, 0xc000, 0x4780, 0x322c, 0x33d7, 0x7f80, 0xff80, 0x7fc0, 0x0000, 0x8000, 0x4780, 0x3f80, 0x3f82, 0x3f80, 0x3f80, 0x3300, 0x33c0, 0x387c, 0x4780];
  const f16 = [0x3c00, 0xc000, 0x7bff, 0x0000, 0x0002, 0x7c00, 0xfc00, 0x7e00, 0x0000, 0x8000, 0x7c00, 0x3c04, 0x3c0c, 0x3c00, 0x3c02, 0x0000, 0x0002, 0x03ef, 0x7bff];

  for (const [dtype, expected] of [['BF16', bf16], ['F16', f16]] as const) {
    it(`writes ${dtype} rounding to nearest even (1, -2, 65504, 1e-8, subnormals, inf, NaN, ties) and reads the values back exactly`, () => {
      const file = tmpPath(`${dtype}.safetensors`);
      writeSafetensors(file, [{ name: 'v', shape: [inputs.length], data: Float32Array.from(inputs), dtype }]);
      const { header, bytes, headerLength } = parseIndependently(file);
      assert.equal(header.v!.dtype, dtype);
      const start = 8 + headerLength + header.v!.data_offsets[0];
      const bits = inputs.map((_, i) => bytes.readUInt16LE(start + 2 * i));
      assert.deepEqual(bits.map((b) => b.toString(16)), expected.map((b) => b.toString(16)));
      const back = readTensor(readSafetensorsHeader(file).tensors[0]!);
      assert.deepEqual(Array.from(back), expected.map((b) => (dtype === 'BF16' ? bf16Value(b) : f16Value(b))));
    });
  }

  it('reads every one of the 65536 BF16 and F16 bit patterns exactly, and F16 -> float32 -> F16 gives the same bits', () => {
    const all = Uint16Array.from({ length: 65536 }, (_, i) => i);
    for (const dtype of ['BF16', 'F16'] as const) {
      const file = tmpPath(`all-${dtype}.safetensors`);
      fs.writeFileSync(file, rawFile({ all: { dtype, shape: [65536], data_offsets: [0, 131072] } }, Buffer.from(all.buffer)));
      const values = readTensor(readSafetensorsHeader(file).tensors[0]!);
      const decode = dtype === 'BF16' ? bf16Value : f16Value;
      for (let h = 0; h < 65536; h++) {
        if (!Object.is(values[h], decode(h))) assert.fail(`${dtype} 0x${h.toString(16)}: read ${values[h]}, is ${decode(h)}`);
      }
      const bits = new Uint32Array(values.buffer);
      if (dtype === 'BF16') assert.equal(bits[0x7fc1], 0x7fc10000, 'a NaN keeps its payload');
      if (dtype === 'F16') {
        assert.equal(bits[0x7e01], 0x7fc02000, 'a NaN keeps its payload');
        const again = tmpPath('f16-again.safetensors');
        const finite = values.filter((v) => !Number.isNaN(v));
        writeSafetensors(again, [{ name: 'x', shape: [finite.length], data: finite, dtype: 'F16' }]);
        const { bytes, headerLength } = parseIndependently(again);
        const expected = Array.from(all).filter((h) => !Number.isNaN(f16Value(h)));
        assert.deepEqual(Array.from({ length: finite.length }, (_, i) => bytes.readUInt16LE(8 + headerLength + 2 * i)), expected);
      }
    }
  });

  it('a sharded copy of qwen2 (index as transformers writes it) reads back identical to the single file', () => {
    const source = indexModelWeights(path.join(FIXTURES, 'qwen2'));
    const values = readTensors(source.tensors.values());
    const dir = tmpPath('sharded');
    fs.mkdirSync(dir);
    fs.writeFileSync(path.join(dir, 'model-00001-of-00009.safetensors'), 'a shard of an earlier save');
    const max = 120_000;
    writeShardedSafetensors(dir, [...source.tensors.values()].map((t) => ({ name: t.name, shape: t.shape, data: values.get(t.name)! })), max);

    const files = fs.readdirSync(dir).sort();
    const count = files.length - 1;
    assert.ok(count >= 3, `${count} shards`);
    const shardName = (i: number) => `model-0000${i}-of-0000${count}.safetensors`;
    assert.deepEqual(files, [...Array.from({ length: count }, (_, i) => shardName(i + 1)), 'model.safetensors.index.json'], 'the earlier save\'s shard is gone');
    const index = JSON.parse(fs.readFileSync(path.join(dir, 'model.safetensors.index.json'), 'utf8')) as { metadata: Record<string, number>; weight_map: Record<string, string> };
    assert.equal(index.metadata.total_size, source.storedBytes);
    assert.deepEqual(Object.keys(index.weight_map), [...source.tensors.keys()].sort());
    assert.equal(index.weight_map['model.embed_tokens.weight'], shardName(1));
    assert.equal(index.weight_map['model.norm.weight'], shardName(count));
    for (const file of files.filter((f) => f.endsWith('.safetensors'))) {
      const { headerLength } = parseIndependently(path.join(dir, file));
      assert.ok(fs.statSync(path.join(dir, file)).size - 8 - headerLength <= max, `${file} holds at most ${max} bytes of data`);
    }

    const sharded = indexModelWeights(dir);
    assert.equal(sharded.files.length, count);
    assert.equal(sharded.storedBytes, source.storedBytes);
    assert.deepEqual(shapesOf(sharded.tensors.values()), shapesOf(source.tensors.values()));
    const back = readTensors(sharded.tensors.values());
    for (const [name, v] of values) assert.deepEqual(back.get(name), v, name);

    // What fits in one shard is model.safetensors, and the shards and index of before go.
    writeShardedSafetensors(dir, [{ name: 'x', shape: [1], data: Float32Array.of(7) }], max);
    assert.deepEqual(fs.readdirSync(dir), ['model.safetensors']);
    assert.deepEqual(Array.from(readTensor(indexModelWeights(dir).tensors.get('x')!)), [7]);
  });
});

/** A safetensors file from a header (object, raw text or bytes), spaces up to `padTo` bytes, and data bytes. */
function rawFile(header: unknown, data: Buffer, padTo = 0): Buffer {
  const text = typeof header === 'string' || Buffer.isBuffer(header) ? header : JSON.stringify(header);
  const json = Buffer.isBuffer(text) ? text : Buffer.from(text.padEnd(padTo), 'utf8');
  const length = Buffer.alloc(8);
  length.writeBigUInt64LE(BigInt(json.length));
  return Buffer.concat([length, json, data]);
}

/** float16 bits -> value, by the definition (not the module's table). */
function f16Value(h: number): number {
  const sign = h & 0x8000 ? -1 : 1;
  const exponent = (h >> 10) & 0x1f;
  const mantissa = h & 0x3ff;
  if (exponent === 0x1f) return mantissa ? NaN : sign * Infinity;
  return sign * (exponent === 0 ? mantissa * 2 ** -24 : (1 + mantissa / 1024) * 2 ** (exponent - 15));
}

/** bfloat16 bits -> value, by the definition (8-bit exponent, 7-bit mantissa). */
function bf16Value(h: number): number {
  const sign = h & 0x8000 ? -1 : 1;
  const exponent = (h >> 7) & 0xff;
  const mantissa = h & 0x7f;
  if (exponent === 0xff) return mantissa ? NaN : sign * Infinity;
  return sign * (exponent === 0 ? mantissa * 2 ** -133 : (1 + mantissa / 128) * 2 ** (exponent - 127));
}

describe('safetensors: refusing bad files, naming the file, the tensor and what to do', () => {
  const qwen2 = parseIndependently(path.join(FIXTURES, 'qwen2', 'model.safetensors'));
  const data = qwen2.bytes.subarray(8 + qwen2.headerLength);
  const NAME = 'model.layers.0.self_attn.q_proj.bias';
  /** The qwen2 fixture with its header changed by `edit`, written to a new file. */
  const edited = (edit: (header: Record<string, Record<string, unknown>>) => void, tail: Buffer = data): string => {
    const header = structuredClone(qwen2.header) as unknown as Record<string, Record<string, unknown>>;
    edit(header);
    return writeBad(rawFile(header, tail, qwen2.headerLength)); // the fixture's offsets in the file, where the header is no longer
  };
  const writeBad = (bytes: Buffer | string): string => {
    const file = tmpPath('bad.safetensors');
    fs.writeFileSync(file, bytes);
    return file;
  };
  const refuses = (file: string, message: RegExp | string) => assertRefused(() => readSafetensorsHeader(file), file, message);

  it('a file shorter than 8 bytes', () => refuses(writeBad(Buffer.alloc(5)), /5 bytes, too short for a safetensors file.*download it again/));

  it('a header length larger than the file', () => {
    const bytes = Buffer.from(qwen2.bytes.subarray(0, 4096));
    bytes.writeBigUInt64LE(1_000_000n);
    refuses(writeBad(bytes), /the header length 1000000 is larger than the file \(4096 bytes\).*truncated\? download it again/);
  });

  it('a header length beyond the 100 MB the format allows', () => {
    const file = writeBad(rawFile('{}', Buffer.alloc(0)));
    const length = Buffer.alloc(8);
    length.writeBigUInt64LE(100_000_256n);
    fs.writeFileSync(file, length);
    fs.truncateSync(file, 200_000_000); // sparse: no disk used
    refuses(file, /the header length 100000256 is more than the 100000000 bytes safetensors allows/);
  });

  it('a Git LFS pointer in place of the weights', () => {
    refuses(writeBad('version https://git-lfs.github.com/spec/v1\noid sha256:4d7a\nsize 451432\n'), /a Git LFS pointer, not the weights: fetch them/);
  });

  it('a header that is not JSON, or not a JSON object', () => {
    refuses(writeBad(rawFile('{"a": ', data)), /the header is not valid JSON/);
    refuses(writeBad(rawFile('[1, 2]', data)), /the header is not a JSON object/);
    refuses(writeBad(rawFile(Buffer.from([0x7b, 0xff, 0x7d]), data)), /the header is not valid JSON \(.*encoded data was not valid/);
  });

  it('an entry without dtype, shape or data_offsets, or with the wrong types', () => {
    for (const key of ['dtype', 'shape', 'data_offsets']) refuses(edited((h) => delete h[NAME]![key]), `tensor ${NAME} has no ${key}`);
    refuses(edited((h) => { h[NAME] = [1, 2] as never; }), `tensor ${NAME} is not a JSON object`);
    refuses(edited((h) => { h[NAME]!.dtype = 32; }), `tensor ${NAME} has dtype 32, not a string`);
    refuses(edited((h) => { h[NAME]!.shape = '64'; }), `tensor ${NAME} has shape "64"; a shape is a list of whole numbers >= 0`);
    refuses(edited((h) => { h[NAME]!.data_offsets = [250496]; }), `tensor ${NAME} has data_offsets [250496]; they are [begin, end]`);
    refuses(edited((h) => { h[NAME]!.data_offsets = [250496, '250752']; }), `tensor ${NAME} has data_offsets [250496,"250752"]`);
    refuses(edited((h) => { (h.__metadata__ as Record<string, unknown>).format = 1; }), '__metadata__ "format" is not a string');
  });

  it('a shape with a negative or fractional dimension', () => {
    refuses(edited((h) => { h[NAME]!.shape = [-64]; }), `tensor ${NAME} has shape [-64]; a shape is a list of whole numbers >= 0`);
    refuses(edited((h) => { h[NAME]!.shape = [32.5, 2]; }), `tensor ${NAME} has shape [32.5,2]`);
  });

  it('a dtype rlx does not read: the header reads, and the tensor is refused, named, when it is read', () => {
    // I32 has F32's width, so the fixture's bytes fit the entry; Q4_K is no dtype of the format (its size cannot be checked).
    for (const [dtype, stored] of [['I32', 'is stored as I32'], ['Q4_K', 'has an unknown dtype "Q4_K"']]) {
      const file = edited((h) => { h[NAME]!.dtype = dtype; });
      const tensors = readSafetensorsHeader(file).tensors;
      const odd = tensors.find((t) => t.name === NAME)!;
      assert.equal(odd.dtype, dtype);
      assertRefused(() => readTensor(odd), file, `tensor ${NAME} ${stored}; rlx reads F32, BF16 and F16`);
      assertRefused(() => readTensors(tensors), file, `tensor ${NAME} ${stored}`);
      const other = tensors.find((t) => t.name === 'model.norm.weight')!;
      assert.deepEqual([...readTensor(other)], qwen2.values('model.norm.weight'));
    }
    // A dtype of the format is still held to its width: 64 I64 values need 512 bytes.
    refuses(edited((h) => { h[NAME]!.dtype = 'I64'; }), `tensor ${NAME} holds 256 bytes but its shape [64] of I64 needs 512`);
  });

  it('a model whose checkpoint holds extra tensors of other dtypes loads; one whose weight is of such a dtype is refused before a byte is read', () => {
    const folder = (edit: (h: Record<string, Record<string, unknown>>) => void, tail: Buffer): string => {
      const dir = tmpPath('odd-dtypes');
      fs.cpSync(path.join(FIXTURES, 'qwen2'), dir, { recursive: true });
      const header = structuredClone(qwen2.header) as unknown as Record<string, Record<string, unknown>>;
      edit(header);
      fs.writeFileSync(path.join(dir, 'model.safetensors'), rawFile(header, tail));
      return dir;
    };
    const at = data.length;
    // As real checkpoints have them: I64 position ids, an F8 scale of a quantizer, a packed F4 block.
    const extra = folder((h) => {
      h['model.rotary_emb.position_ids'] = { dtype: 'I64', shape: [1, 4], data_offsets: [at, at + 32] };
      h['model.quant.scale'] = { dtype: 'F8_E4M3', shape: [4], data_offsets: [at + 32, at + 36] };
      h['model.quant.packed'] = { dtype: 'F4', shape: [8], data_offsets: [at + 36, at + 40] };
    }, Buffer.concat([data, Buffer.alloc(40)]));
    const c = readLmConfig(extra);
    const loaded = loadLmWeights(extra, c);
    const plain = loadLmWeights(path.join(FIXTURES, 'qwen2'), c);
    assert.deepEqual(loaded.names, plain.names);
    for (const name of plain.names) assert.deepEqual(loaded.get(name).data, plain.get(name).data, name);

    const needed = folder((h) => { h['model.norm.weight'] = { dtype: 'F64', shape: [64], data_offsets: [at, at + 512] }; }, Buffer.concat([data, Buffer.alloc(512)]));
    assertRefused(() => loadLmWeights(needed, c), path.join(needed, 'model.safetensors'), 'tensor model.norm.weight is stored as F64; rlx reads F32, BF16 and F16 (a quantized checkpoint?');
  });

  it('data_offsets that end before they begin, or that disagree with the shape', () => {
    refuses(edited((h) => { h[NAME]!.data_offsets = [250752, 250496]; }), `tensor ${NAME} has data_offsets [250752, 250496], ending before they begin`);
    refuses(edited((h) => { h[NAME]!.shape = [65]; }), `tensor ${NAME} holds 256 bytes but its shape [65] of F32 needs 260`);
    refuses(edited((h) => { h[NAME]!.dtype = 'BF16'; }), `tensor ${NAME} holds 256 bytes but its shape [64] of BF16 needs 128`);
  });

  it('data beyond the end of the file (a truncated download)', () => {
    refuses(edited(() => {}, data.subarray(0, data.length - 100)), /tensor model\.norm\.weight ends at byte 451432 but the file has only 451332 bytes: truncated\? download it again/);
  });

  it('overlapping tensors', () => {
    refuses(edited((h) => { h[NAME]!.data_offsets = [250500, 250756]; }), `tensors ${NAME} [250500, 250756] and model.layers.0.self_attn.q_proj.weight [250752, 267136] overlap`);
  });

  it('a file cut short after its header was read', () => {
    const file = writeBad(qwen2.bytes);
    const { tensors } = readSafetensorsHeader(file);
    fs.truncateSync(file, 300_000);
    const last = tensors.find((t) => t.name === 'model.norm.weight')!;
    assertRefused(() => readTensor(last), file, /model\.norm\.weight ends at byte 451432 but the file has only 300000 bytes now/);
  });
});

describe('safetensors: refusing bad model folders and indexes', () => {
  const qwen2File = path.join(FIXTURES, 'qwen2', 'model.safetensors');
  const modelDir = (files: Record<string, string | Buffer | ((dir: string) => void)>): string => {
    const dir = tmpPath('model');
    fs.mkdirSync(dir);
    for (const [name, content] of Object.entries(files)) {
      if (typeof content === 'function') content(path.join(dir, name));
      else fs.writeFileSync(path.join(dir, name), content);
    }
    return dir;
  };
  const shard = (dir: string) => { fs.copyFileSync(qwen2File, dir); };
  const indexOf = (weightMap: Record<string, string>) => JSON.stringify({ metadata: {}, weight_map: weightMap });
  const refuses = (dir: string, named: string[], message: RegExp | string) => {
    assertRefused(() => indexModelWeights(dir), path.join(dir, named[0]!), message);
    for (const name of named.slice(1)) assertRefused(() => indexModelWeights(dir), name, message);
  };
  const INDEX = 'model.safetensors.index.json';

  it('a FIFO or a link to /dev/zero as model.safetensors is refused at once', { timeout: 10_000 }, () => {
    refuses(modelDir({ 'model.safetensors': (f) => execFileSync('mkfifo', [f]) }), ['model.safetensors'], 'is not a regular file');
    refuses(modelDir({ 'model.safetensors': (f) => fs.symlinkSync('/dev/zero', f) }), ['model.safetensors'], 'is not a regular file');
  });

  it('a folder without weights, or that does not exist', () => {
    const empty = modelDir({ 'config.json': '{}' });
    assertRefused(() => indexModelWeights(empty), empty, /has neither model\.safetensors nor model\.safetensors\.index\.json/);
    assertRefused(() => indexModelWeights(path.join(empty, 'nope')), path.join(empty, 'nope'), 'does not exist');
  });

  it('an index that is not JSON, or has no weight_map', () => {
    refuses(modelDir({ [INDEX]: '{"weight_map": ' }), [INDEX], 'is not valid JSON');
    refuses(modelDir({ [INDEX]: '{"metadata": {}}' }), [INDEX], 'has no weight_map object');
    refuses(modelDir({ [INDEX]: indexOf({ a: 7 } as never) }), [INDEX], 'maps tensor a to 7, not a shard file name');
  });

  it('a shard that does not exist, or is not a regular file, named with the index', { timeout: 10_000 }, () => {
    const weightMap = { 'model.norm.weight': 'model-00001-of-00001.safetensors' };
    refuses(modelDir({ [INDEX]: indexOf(weightMap) }), [INDEX, 'model-00001-of-00001.safetensors'], 'which does not exist');
    const fifo = modelDir({ [INDEX]: indexOf(weightMap), 'model-00001-of-00001.safetensors': (f) => execFileSync('mkfifo', [f]) });
    refuses(fifo, [INDEX, 'model-00001-of-00001.safetensors'], 'is not a regular file');
  });

  it('a tensor the index puts in a shard whose header lacks it', () => {
    const dir = modelDir({ [INDEX]: indexOf({ 'model.norm.weight': 'a.safetensors', 'lm_head.weight': 'a.safetensors' }), 'a.safetensors': shard });
    refuses(dir, [INDEX, 'a.safetensors'], 'puts tensor lm_head.weight in the shard a.safetensors, whose header lacks it');
  });

  it('a shard path outside the model folder', () => {
    for (const outside of ['../x.safetensors', 'sub/../../x.safetensors', '/etc/passwd']) {
      refuses(modelDir({ [INDEX]: indexOf({ 'model.norm.weight': outside }) }), [INDEX, outside], 'outside the model folder');
    }
  });

  it('reads an index whose shards are good', () => {
    const dir = modelDir({ [INDEX]: indexOf({ 'model.norm.weight': 'a.safetensors', 'model.embed_tokens.weight': 'a.safetensors' }), 'a.safetensors': shard });
    const index = indexModelWeights(dir);
    assert.deepEqual([...index.tensors.keys()], ['model.norm.weight', 'model.embed_tokens.weight']);
    assert.equal(index.storedBytes, 256 + 102400);
  });
});
