// The worker thread that runs a user env module (module-host.ts starts it). User code runs
// here and not on the trainer's thread, so that a step that never returns, a process.exit()
// or a throw of anything cannot take the trainer down: the trainer waits for each answer with
// a timeout and stops this thread when it is late.
//
// It loads the module, checks a first copy (module-env.ts), says hello, then answers
// create/reset/step requests through the shared channel (module-protocol.ts) for ever; the
// trainer terminates it.
import { parentPort, workerData } from 'node:worker_threads';
import { pathToFileURL } from 'node:url';
import { moduleMaker, probe, type ModuleEnv } from './module-env.js';
import { describeThrown } from './module-errors.js';
import { probeText, type TextModuleEnv } from './module-text-env.js';
import { spaceSize } from './types.js';
import { Channel, FLAG, OP, recordLayout, SLOT, STATUS, type WorkerHello, type WorkerSetup } from './module-protocol.js';

const setup = workerData as WorkerSetup;
const copies: ModuleEnv[] = [];
/** A text module's copies (the module is one kind or the other). */
const textCopies: TextModuleEnv[] = [];
let channel: Channel | undefined;
/** The request being answered (0: none), and what it runs, for a process.exit() inside it. */
let current = 0;
let currentWhat = '';

function hello(message: WorkerHello): void {
  parentPort!.postMessage(message);
}

// A module that calls process.exit() ends this thread only; the trainer hears why.
process.on('exit', (code) => {
  if (channel && current !== 0) answer(current, STATUS.exited, `${setup.origin}: ${currentWhat} called process.exit(${code})`);
});

function answer(request: number, status: number, message?: string): void {
  const c = channel!;
  c.control[SLOT.status] = status;
  if (message !== undefined) c.writeText(message);
  Atomics.store(c.control, SLOT.answer, request);
  Atomics.notify(c.control, SLOT.answer);
}

function serve(c: Channel): void {
  const op = c.control[SLOT.op];
  if (op === OP.create) {
    currentWhat = 'the constructor';
    const params = JSON.parse(c.readText()) as Record<string, unknown>;
    if (makeText) {
      textCopies.push(makeText(params));
      c.control[SLOT.copy] = textCopies.length - 1;
      return;
    }
    const env = make(params);
    copies.push(env);
    c.control[SLOT.copy] = copies.length - 1;
    c.scalars[0] = env.maxSteps;
    return;
  }
  if (op === OP.reset) {
    const env = copies[c.control[SLOT.copy]];
    currentWhat = 'reset()';
    const seeded = (c.control[SLOT.flags] & FLAG.seeded) !== 0;
    writeObs(c, env.reset(seeded ? c.scalars[0] : undefined).obs);
    return;
  }
  if (op === OP.textReset || op === OP.textStep || op === OP.expert) {
    const env = textCopies[c.control[SLOT.copy]];
    currentWhat = op === OP.textReset ? 'reset()' : op === OP.textStep ? 'step()' : 'expert()';
    const result = op === OP.textReset ? env.reset(c.scalars[0]) : op === OP.textStep ? env.step(JSON.parse(c.readText()) as string) : env.expert();
    c.writeText(JSON.stringify(result));
    return;
  }
  currentWhat = 'step()';
  const numbers = c.numbers;
  const count = c.control[SLOT.count];
  for (let j = 0; j < count; j++) {
    const at = j * layout!.width;
    const copy = numbers[at];
    // Set before the call: a failure names the copy that failed.
    c.control[SLOT.copy] = copy;
    const env = copies[copy];
    const action = env.actionSpace.kind === 'discrete' ? numbers[at + 1] : Array.from(numbers.subarray(at + 1, at + 1 + spaceSize(env.actionSpace)));
    const result = env.step(action);
    writeObs(c, result.obs, at);
    numbers[at + layout!.reward] = result.reward;
    numbers[at + layout!.flags] = (result.terminated ? FLAG.terminated : 0) | (result.truncated ? FLAG.truncated : 0) | (result.info.success === true ? FLAG.success : 0);
    const info = env.infoValues(result.info);
    for (let k = 0; k < info.length; k++) numbers[at + layout!.info + k] = info[k];
  }
}

function writeObs(c: Channel, obs: ArrayLike<number>, at = 0): void {
  for (let k = 0; k < obs.length; k++) c.numbers[at + k] = obs[k];
}

function loop(c: Channel): never {
  let last = 0;
  for (;;) {
    Atomics.wait(c.control, SLOT.request, last);
    const request = Atomics.load(c.control, SLOT.request);
    if (request === last) continue;
    last = request;
    current = request;
    try {
      serve(c);
      answer(request, STATUS.ok);
    } catch (err) {
      answer(request, STATUS.failed, describeThrown(err));
    }
    current = 0;
  }
}

let make: (params: Record<string, unknown>) => ModuleEnv;
let makeText: ((params: Record<string, unknown>) => TextModuleEnv) | undefined;
let layout: ReturnType<typeof recordLayout> | undefined;
try {
  let exports: Record<string, unknown>;
  try {
    exports = (await import(pathToFileURL(setup.file).href)) as Record<string, unknown>;
  } catch (err) {
    throw new Error(`the env module ${setup.origin} failed while loading: ${describeThrown(err)}`);
  }
  const maker = moduleMaker(exports, setup.origin);
  if (maker.text) {
    makeText = maker.make;
    const first = makeText(setup.params);
    probeText(first);
    hello({ type: 'ready-text', kind: first.kind, bounds: first.bounds, infoFields: first.infoFields, hasExpert: first.hasExpert });
  } else {
    make = maker.make;
    const first = make(setup.params);
    probe(first, setup.origin);
    layout = recordLayout(spaceSize(first.observationSpace), spaceSize(first.actionSpace), first.infoFields.length);
    hello({ type: 'ready', kind: first.kind, observationSpace: first.observationSpace, actionSpace: first.actionSpace, obsFields: first.obsFields, infoFields: first.infoFields, ...(first.goal ? { goal: first.goal } : {}) });
  }
} catch (err) {
  hello({ type: 'failed', message: describeThrown(err) });
}
parentPort!.once('message', (buffer: SharedArrayBuffer) => {
  channel = Channel.over(buffer);
  loop(channel);
});
