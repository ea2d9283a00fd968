// The chat template of a Hugging Face model folder: the Jinja text that turns a list of messages
// into the one string the model was trained on, rendered by @huggingface/jinja as transformers'
// apply_chat_template renders it with Python's Jinja (trim_blocks and lstrip_blocks on, the
// tokenizer's special tokens and raise_exception in scope, tools and documents None).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Environment, Interpreter, Template } from '@huggingface/jinja';
import { InputError } from '../shared/input-error.js';
import { readInputText } from '../shared/input-files.js';
import { readTokenizerConfig, specialTokenText } from './tokenizer-file.js';

export interface ChatMessage {
  readonly role: string;
  readonly content: string;
}

/** A chat template rlx cannot use or that refused a conversation; the message names the file. */
export class ChatTemplateError extends InputError {
  override name = 'ChatTemplateError';
}

export interface ChatFormat {
  /**
   * The conversation as the model expects it. `variables` are the template's other inputs
   * (`enable_thinking`, `tools`, ...), as keyword arguments of apply_chat_template; they override
   * the special tokens but not `messages` or `add_generation_prompt`.
   */
  render(messages: readonly ChatMessage[], options: { addGenerationPrompt: boolean; variables?: Readonly<Record<string, unknown>> }): string;
  /** The file the template came from. */
  readonly source: string;
  /** Whether the template's text reads a variable of this name anywhere (a variable it never reads changes nothing). */
  reads(name: string): boolean;
}

/** Chat templates of real models are a few KiB; some tool-calling ones reach a few dozen. */
const TEMPLATE_MAX_BYTES = 4 * 2 ** 20;

/** The special tokens transformers passes to every chat template (its special_tokens_map). */
const SPECIAL_TOKEN_KEYS = ['bos_token', 'eos_token', 'unk_token', 'sep_token', 'pad_token', 'cls_token', 'mask_token'];

/** What raise_exception throws: the template's own refusal, told apart from a failure of the engine. */
class TemplateRaised extends Error {}

/**
 * Bounds on the work of one render. A template is a program: `{% for i in range(10**9) %}`, or
 * loops nested over a range kept in a variable, would run for hours, and @huggingface/jinja
 * renders synchronously with no limit of its own, so `rlx check` and `rlx train` would hang.
 * Rendering in a worker with a time limit would stop any template, but costs a thread per render
 * (a run renders every prompt) and fails by the machine's speed, so check and train could
 * disagree. Counting the interpreter's steps is cheap (an increment and a clock read each) and
 * fails a template the same way everywhere: each node evaluated and each block run (every loop
 * iteration runs its body's block, even an empty one) is a step, and range() spends a step per
 * number before it builds its list. Real templates take a few dozen steps per message (Qwen3's:
 * about 54, so a million steps is some 18,000 messages, past the context of the models rlx
 * trains) at 150,000 to 600,000 steps a second. A step of a builtin over a long string or list
 * can take milliseconds, so the text is bounded too and the clock is the backstop, far past
 * any real render (milliseconds).
 */
export const RENDER_LIMITS = { steps: 1_000_000, text: 16 * 2 ** 20, seconds: 10 } as const;

/** One render's spending of RENDER_LIMITS. */
class RenderBudget {
  private steps = 0;
  private readonly deadline = performance.now() + RENDER_LIMITS.seconds * 1000;

  spend(steps: number): void {
    this.steps += steps;
    if (this.steps > RENDER_LIMITS.steps) throw new TemplateTooCostly(`it ran past ${RENDER_LIMITS.steps} steps (a loop that does not end in time?)`);
    if (performance.now() > this.deadline) throw new TemplateTooCostly(`it ran past ${RENDER_LIMITS.seconds} seconds`);
  }

  /** `value`, unless it is text past the bound (one step can double a string). */
  checked<V extends { readonly type: string; readonly value: unknown }>(value: V): V {
    if (value.type === 'StringValue' && (value.value as string).length > RENDER_LIMITS.text) throw new TemplateTooCostly(`its text grew past ${RENDER_LIMITS.text} characters`);
    return value;
  }
}

/** Thrown inside a render that passed a RENDER_LIMITS bound. */
class TemplateTooCostly extends Error {}

/**
 * The names transformers' Jinja environment defines besides the render arguments. Template.render
 * of @huggingface/jinja declares its own raise_exception (a plain Error, not to be told from the
 * engine's failures) and refuses a second declaration, so rlx builds the environment itself:
 * these are the library's globals (0.5.11) with transformers' raise_exception and a
 * strftime_now that, like Python's in the C locale, writes English month and day names.
 */
function transformersGlobals(budget: RenderBudget): Record<string, unknown> {
  return {
    false: false,
    true: true,
    none: null,
    False: false,
    True: true,
    None: null,
    range: (start: number, stop?: number, step?: number) => pythonRange(budget, start, stop, step),
    strftime_now: (format: string) => strftime(new Date(), String(format)),
    raise_exception: (message: unknown) => {
      throw new TemplateRaised(String(message));
    },
  };
}

function pythonRange(budget: RenderBudget, start: number, stop?: number, step = 1): number[] {
  if (stop === undefined) [start, stop] = [0, start];
  if (step === 0) throw new Error('range() arg 3 must not be zero');
  const count = Math.ceil((stop - start) / step);
  if (count > RENDER_LIMITS.steps) throw new TemplateTooCostly(`range() of ${count} numbers (rlx stops a render at ${RENDER_LIMITS.steps} steps)`);
  if (count > 0) budget.spend(count);
  const values: number[] = [];
  for (let i = start; step > 0 ? i < stop : i > stop; i += step) values.push(i);
  return values;
}

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const pad2 = (n: number) => String(n).padStart(2, '0');

/** Python's datetime.strftime for the directives chat templates use (Llama 3's "%d %b %Y"); others stay as written. */
function strftime(date: Date, format: string): string {
  return format.replace(/%[YmdbBaAHMS%]/g, (directive) => {
    switch (directive) {
      case '%Y': return String(date.getFullYear());
      case '%m': return pad2(date.getMonth() + 1);
      case '%d': return pad2(date.getDate());
      case '%b': return MONTHS[date.getMonth()]!.slice(0, 3);
      case '%B': return MONTHS[date.getMonth()]!;
      case '%a': return DAYS[date.getDay()]!.slice(0, 3);
      case '%A': return DAYS[date.getDay()]!;
      case '%H': return pad2(date.getHours());
      case '%M': return pad2(date.getMinutes());
      case '%S': return pad2(date.getSeconds());
      default: return '%';
    }
  });
}

/** Renders a parsed template as Template.render does, in an environment with transformers' globals, within RENDER_LIMITS. */
function renderWithGlobals(template: Template, context: Record<string, unknown>): string {
  const budget = new RenderBudget();
  const env = new Environment();
  for (const [name, value] of Object.entries({ ...transformersGlobals(budget), ...context })) env.set(name, value);
  const interpreter = new Interpreter(env);
  countSteps(interpreter, budget);
  return interpreter.run(template.parsed).value as string;
}

/**
 * Makes `interpreter` spend a step of `budget` per call of `evaluate`, the public method every
 * node goes through, and of `evaluateBlock`, private in the library's types but what a loop
 * runs once per iteration (so an empty loop body still counts). They are wrapped on this
 * instance, the library's class left alone; test/runtime/lm/chat-template.test.ts renders an
 * endless template of each kind, so an upgrade that renames them fails a test, not a user.
 */
function countSteps(interpreter: Interpreter, budget: RenderBudget): void {
  type Value = { readonly type: string; readonly value: unknown };
  const methods = interpreter as unknown as Record<'evaluate' | 'evaluateBlock', (...args: unknown[]) => Value>;
  for (const name of ['evaluate', 'evaluateBlock'] as const) {
    const original = methods[name];
    if (typeof original !== 'function') continue;
    methods[name] = function (this: unknown, ...args: unknown[]) {
      budget.spend(1);
      return budget.checked(original.apply(this, args));
    };
  }
}

/**
 * The chat template: chat_template.jinja if present, else tokenizer_config.json's chat_template
 * (a string, or a list of {name, template}: take "default"); undefined when the model has none.
 * bos_token/eos_token etc. from tokenizer_config are passed to the template as transformers does.
 */
export function loadChatFormat(modelDir: string): ChatFormat | undefined {
  if (!fs.existsSync(modelDir)) throw new ChatTemplateError(`the model folder ${modelDir} does not exist`);
  const config = readTokenizerConfig(modelDir);
  const found = findTemplate(modelDir, config);
  if (found === undefined) return undefined;
  const { text, source, where } = found;
  let template: Template;
  try {
    template = new Template(text);
  } catch (err) {
    // @huggingface/jinja reports no line or column; its message names the token it stopped at.
    throw new ChatTemplateError(`the chat template in ${where} does not parse: ${(err as Error).message}; fix the template (Jinja syntax) or remove it`);
  }
  const specialTokens: Record<string, string> = {};
  for (const key of SPECIAL_TOKEN_KEYS) {
    const token = specialTokenText(config[key]);
    if (token !== undefined) specialTokens[key] = token;
  }
  const names = namesRead(template.parsed);
  return {
    source,
    reads: (name) => names.has(name),
    render(messages, options) {
      const context = {
        ...specialTokens,
        tools: null,
        documents: null,
        ...options.variables,
        messages,
        add_generation_prompt: options.addGenerationPrompt,
      };
      try {
        return renderWithGlobals(template, context);
      } catch (err) {
        if (err instanceof TemplateRaised) throw new ChatTemplateError(`the chat template in ${where} refused the conversation: ${err.message}`);
        if (err instanceof TemplateTooCostly) {
          throw new ChatTemplateError(`the chat template in ${where} did not finish rendering: ${err.message}; rlx stops a template there, where real ones take a few dozen steps per message: fix the template's loops`);
        }
        throw new ChatTemplateError(`the chat template in ${where} failed while rendering: ${(err as Error).message}`);
      }
    },
  };
}

/**
 * Every name the parsed template refers to: its identifiers, less the attribute names of
 * `x.name` (an attribute is no variable). Walked with a stack, not recursion, since a 4 MiB
 * template may nest deeply. Over-inclusive (a keyword argument's name counts): a variable it
 * lists may still go unused, but one it does not list is never read.
 */
function namesRead(root: unknown): Set<string> {
  const names = new Set<string>();
  const stack: unknown[] = [root];
  const seen = new Set<object>();
  while (stack.length > 0) {
    const node = stack.pop();
    if (node === null || typeof node !== 'object' || seen.has(node)) continue;
    seen.add(node);
    const record = node as Record<string, unknown>;
    if (record.type === 'Identifier' && typeof record.value === 'string') names.add(record.value);
    for (const [key, child] of Object.entries(record)) {
      if (record.type === 'MemberExpression' && key === 'property' && record.computed === false) continue;
      if (child !== null && typeof child === 'object') stack.push(child);
    }
  }
  return names;
}

/** The conversation the checks render: a user's question, the least a chat template must take. */
export const PROBE_MESSAGES: readonly ChatMessage[] = [{ role: 'user', content: 'What is 1+1?' }];

/**
 * Refuses (ChatTemplateError naming the file) a model folder whose chat template does not parse,
 * or throws (raise_exception, an error of the engine) when it renders `messages` with the
 * generation prompt: found before a run begins, not at its first prompt. The template, where the folder has one.
 */
export function checkChatTemplate(modelDir: string, messages: readonly ChatMessage[] = PROBE_MESSAGES, variables?: Readonly<Record<string, unknown>>): ChatFormat | undefined {
  const format = loadChatFormat(modelDir);
  format?.render(messages, { addGenerationPrompt: true, variables });
  return format;
}

interface FoundTemplate {
  readonly text: string;
  /** The file. */
  readonly source: string;
  /** The file and, inside tokenizer_config.json, which template. */
  readonly where: string;
}

function findTemplate(modelDir: string, config: Record<string, unknown>): FoundTemplate | undefined {
  const jinjaFile = path.join(modelDir, 'chat_template.jinja');
  if (fs.existsSync(jinjaFile)) {
    return { text: readInputText(jinjaFile, { what: 'chat template', maxBytes: TEMPLATE_MAX_BYTES }), source: jinjaFile, where: jinjaFile };
  }
  const configFile = path.join(modelDir, 'tokenizer_config.json');
  const value = config.chat_template;
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string') return { text: value, source: configFile, where: configFile };
  if (Array.isArray(value)) {
    const named = value.filter((t): t is { name: string; template: string } => typeof t?.name === 'string' && typeof t?.template === 'string');
    const chosen = named.find((t) => t.name === 'default');
    if (chosen === undefined) {
      throw new ChatTemplateError(
        `${configFile} lists chat templates (${named.map((t) => `"${t.name}"`).join(', ') || 'none with a name and a template'}) but none named "default"; name the one to use "default"`,
      );
    }
    return { text: chosen.template, source: configFile, where: `${configFile} (chat_template "default")` };
  }
  throw new ChatTemplateError(`${configFile}: chat_template is ${typeof value}, not a template (a string, or a list of {name, template})`);
}
