// The chat template of a model folder, rendered as transformers' apply_chat_template renders it:
// hf-tiny's ChatML template against reference.json, Qwen3's real template (in its
// tokenizer_config.json) against strings transformers 5.17 rendered from the same files.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, describe, it } from 'node:test';
import { isInputError } from '../../../shared/input-error.js';
import { ChatTemplateError, loadChatFormat, type ChatFormat, type ChatMessage } from '../../../hf/chat-template.js';
import { loadModelTokenizer } from '../../../runtime/lm/tokenizer.js';
import { HF_TINY, modelFolder, qwen3Links, reference, scratch } from './model-folder.js';

after(() => fs.rmSync(scratch, { recursive: true, force: true }));

const qwen3 = loadChatFormat(modelFolder({}, qwen3Links))!;
const systemAndUser: ChatMessage[] = [
  { role: 'system', content: 'You are helpful.' },
  { role: 'user', content: 'Hi' },
];

/** The chat format of a folder whose tokenizer_config.json is `config` (and other files as given). */
function formatOf(config: object, files: Record<string, string> = {}): ChatFormat | undefined {
  return loadChatFormat(modelFolder({ 'tokenizer_config.json': config, ...files }));
}

function assertChatError(run: () => unknown, message: RegExp): void {
  assert.throws(run, (err: unknown) => err instanceof ChatTemplateError && isInputError(err) && message.test(err.message), String(message));
}

describe('hf-tiny qwen2: chat_template.jinja agrees with transformers (reference.json)', () => {
  const dir = path.join(HF_TINY, 'qwen2');
  const format = loadChatFormat(dir)!;

  it('renders the conversation with the generation prompt to the same text, which encodes to the same ids', () => {
    const rendered = format.render(reference.chat.messages, { addGenerationPrompt: true });
    assert.equal(rendered, reference.chat.rendered);
    assert.deepEqual(loadModelTokenizer(dir).encode(rendered), reference.chat.ids);
    assert.equal(format.source, path.join(dir, 'chat_template.jinja'));
  });

  it('renders a role it does not know as it renders any other (the template has no list of roles)', () => {
    assert.equal(format.render([{ role: 'narrator', content: 'Once' }], { addGenerationPrompt: false }), '<|im_start|>narrator\nOnce<|im_end|>\n');
  });
});

describe('Qwen3\'s chat template (tokenizer_config.json) renders as transformers 5.17 renders it', () => {
  it('enable_thinking false: the generation prompt closes an empty think block', () => {
    const rendered = qwen3.render(systemAndUser, { addGenerationPrompt: true, variables: { enable_thinking: false } });
    assert.equal(rendered, '<|im_start|>system\nYou are helpful.<|im_end|>\n<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n');
  });

  it('enable_thinking true or absent: the generation prompt leaves the thinking to the model', () => {
    for (const variables of [{ enable_thinking: true }, {}]) {
      const rendered = qwen3.render(systemAndUser, { addGenerationPrompt: true, variables });
      assert.equal(rendered, '<|im_start|>system\nYou are helpful.<|im_end|>\n<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n');
    }
    assert.equal(qwen3.render(systemAndUser, { addGenerationPrompt: false }), '<|im_start|>system\nYou are helpful.<|im_end|>\n<|im_start|>user\nHi<|im_end|>\n');
  });

  it('keeps the reasoning of the last assistant turn only', () => {
    const messages = [
      { role: 'user', content: '2+2?' },
      { role: 'assistant', content: '<think>\nsimple\n</think>\n\n4' },
      { role: 'user', content: 'and 3+3?' },
    ];
    assert.equal(qwen3.render(messages, { addGenerationPrompt: true }), '<|im_start|>user\n2+2?<|im_end|>\n<|im_start|>assistant\n4<|im_end|>\n<|im_start|>user\nand 3+3?<|im_end|>\n<|im_start|>assistant\n');
    assert.equal(qwen3.render(messages.slice(0, 2), { addGenerationPrompt: false }), '<|im_start|>user\n2+2?<|im_end|>\n<|im_start|>assistant\n<think>\nsimple\n</think>\n\n4<|im_end|>\n');
  });

  it('writes tools and tool calls with tojson as Python\'s json.dumps does (non-ASCII kept, ", " and ": ")', () => {
    const tools = [{ type: 'function', function: { name: 'get_weather', description: 'Weather in a city — 東京 ok', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } } }];
    const messages = [
      { role: 'user', content: 'weather?' },
      { role: 'assistant', content: '', tool_calls: [{ type: 'function', function: { name: 'get_weather', arguments: { city: 'Paris' } } }] },
      { role: 'tool', content: 'sunny' },
    ];
    assert.equal(
      qwen3.render(messages, { addGenerationPrompt: true, variables: { tools } }),
      '<|im_start|>system\n# Tools\n\nYou may call one or more functions to assist with the user query.\n\nYou are provided with function signatures within <tools></tools> XML tags:\n<tools>\n' +
        '{"type": "function", "function": {"name": "get_weather", "description": "Weather in a city — 東京 ok", "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}\n' +
        '</tools>\n\nFor each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:\n<tool_call>\n{"name": <function-name>, "arguments": <args-json-object>}\n</tool_call><|im_end|>\n' +
        '<|im_start|>user\nweather?<|im_end|>\n<|im_start|>assistant\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call><|im_end|>\n' +
        '<|im_start|>user\n<tool_response>\nsunny\n</tool_response><|im_end|>\n<|im_start|>assistant\n',
    );
  });

  it('leaves out a message whose role it does not know, as the template does', () => {
    const withNarrator = [{ role: 'narrator', content: 'Once' }, { role: 'user', content: 'Hi' }];
    assert.equal(qwen3.render(withNarrator, { addGenerationPrompt: true }), '<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n');
  });
});

describe('where the template comes from', () => {
  const listed = (templates: { name: string; template: string }[]) => ({ eos_token: '</s>', chat_template: templates });

  it('chat_template.jinja before tokenizer_config.json\'s chat_template; none at all is undefined', () => {
    const dir = modelFolder({ 'tokenizer_config.json': { chat_template: 'from config' }, 'chat_template.jinja': 'from file\n' });
    assert.equal(loadChatFormat(dir)!.render([], { addGenerationPrompt: false }), 'from file');
    assert.equal(loadChatFormat(dir)!.source, path.join(dir, 'chat_template.jinja'));
    assert.equal(formatOf({ eos_token: '</s>' }), undefined);
    assert.equal(loadChatFormat(modelFolder({})), undefined);
  });

  it('a list of named templates: the one named "default"; none so named is an error listing the names', () => {
    const format = formatOf(listed([{ name: 'tool_use', template: 'tools' }, { name: 'default', template: 'chat' }]))!;
    assert.equal(format.render([], { addGenerationPrompt: false }), 'chat');
    assertChatError(() => formatOf(listed([{ name: 'tool_use', template: 'tools' }, { name: 'rag', template: 'rag' }])), /lists chat templates \("tool_use", "rag"\) but none named "default"/);
  });

  it('passes the special tokens of tokenizer_config.json (strings or AddedToken objects); a null one is undefined, as in transformers', () => {
    const format = formatOf({
      bos_token: { __type: 'AddedToken', content: '<s>', lstrip: false },
      eos_token: '</s>',
      pad_token: null,
      chat_template: '{{ bos_token }}{% for m in messages %}{{ m.content }}{{ eos_token }}{% endfor %}{% if pad_token is defined %} pad{% endif %}{% if tools is none %} no tools{% endif %}',
    })!;
    assert.equal(format.render([{ role: 'user', content: 'hi' }], { addGenerationPrompt: false }), '<s>hi</s> no tools');
  });

  it('passes strftime_now with English month names, as Python\'s strftime writes them', () => {
    const format = formatOf({ chat_template: '{{ strftime_now("%d %b %Y") }}' })!;
    const rendered = format.render([], { addGenerationPrompt: false });
    const now = new Date();
    const month = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'][now.getMonth()];
    assert.equal(rendered, `${String(now.getDate()).padStart(2, '0')} ${month} ${now.getFullYear()}`);
  });
});

describe('known differences from Python\'s Jinja (runtime/lm/README.md): values that are not strings print differently', () => {
  // Chat templates of real models print strings only; these pin the library's behaviour so that a
  // change of it shows here. transformers would print "True|None|[1, 'a', None]".
  it('booleans print lowercase, None prints nothing, lists print as JSON', () => {
    const format = formatOf({ chat_template: "{{ 1 == 1 }}|{{ none }}|{{ [1, 'a', none] }}" })!;
    assert.equal(format.render([], { addGenerationPrompt: false }), 'true||[1, "a", null]');
  });
});

describe('a template that cannot be used, or that refuses the conversation, is a ChatTemplateError naming the file', () => {
  it('a template that does not parse', () => {
    assertChatError(() => formatOf({ chat_template: 'line 1\n{% if %}\nline 3' }), /the chat template in .*tokenizer_config\.json does not parse: Unexpected token/);
    assertChatError(() => loadChatFormat(modelFolder({ 'chat_template.jinja': '{{ messages[0 }}' })), /the chat template in .*chat_template\.jinja does not parse/);
  });

  it('raise_exception: the template\'s own message', () => {
    const format = loadChatFormat(modelFolder({ 'chat_template.jinja': "{{ raise_exception('Conversation roles must alternate user/assistant') }}" }))!;
    assertChatError(() => format.render(systemAndUser, { addGenerationPrompt: true }), /the chat template in .*chat_template\.jinja refused the conversation: Conversation roles must alternate user\/assistant$/);
  });

  it('an unknown role, where the template refuses it', () => {
    const template = "{% for m in messages %}{% if m.role not in ['user', 'assistant'] %}{{ raise_exception('Unknown role: ' + m.role) }}{% endif %}{{ m.content }}{% endfor %}";
    const format = formatOf({ chat_template: template })!;
    assert.equal(format.render([{ role: 'user', content: 'hi' }], { addGenerationPrompt: false }), 'hi');
    assertChatError(() => format.render([{ role: 'narrator', content: 'Once' }], { addGenerationPrompt: false }), /refused the conversation: Unknown role: narrator/);
  });

  it('a failure of the template engine while rendering', () => {
    const format = formatOf({ chat_template: '{{ messages | no_such_filter }}' })!;
    assertChatError(() => format.render(systemAndUser, { addGenerationPrompt: false }), /the chat template in .*tokenizer_config\.json failed while rendering: .*no_such_filter/);
  });

  it('a template that does not end in time is refused, naming the file, within a few seconds, not a hang', () => {
    const endless = [
      // One range of a trillion numbers: refused before its list is built.
      ['{% for i in range(10**12) %}x{% endfor %}', /range\(\) of 1000000000000 numbers/],
      // Loops nested over a range kept in a variable (one range, 10^6 iterations of empty bodies; with 10^6 numbers, 10^18).
      ['{% set r = range(100) %}{% for a in r %}{% for b in r %}{% for c in r %}{% endfor %}{% endfor %}{% endfor %}', /it ran past (1000000 steps|10 seconds)/], // on a loaded machine the clock may stop it first
      // A string doubled in a loop: past the limit on text long before memory runs out.
      ["{% set ns = namespace(s='x') %}{% for i in range(60) %}{% set ns.s = ns.s + ns.s %}{% endfor %}{{ ns.s }}", /its text grew past \d+ characters/],
    ] as const;
    for (const [template, why] of endless) {
      const format = loadChatFormat(modelFolder({ 'chat_template.jinja': template }))!;
      const started = performance.now();
      assertChatError(() => format.render(systemAndUser, { addGenerationPrompt: true }), new RegExp(`the chat template in .*chat_template\\.jinja did not finish rendering: ${why.source}`));
      assert.ok(performance.now() - started < 20_000, `${template}: ${performance.now() - started} ms`);
    }
  });

  it('a real template\'s long conversation is well within the limits', () => {
    const turns: ChatMessage[] = Array.from({ length: 2000 }, (_, i) => ({ role: i % 2 === 0 ? 'user' : 'assistant', content: `turn ${i}` }));
    const rendered = qwen3.render(turns, { addGenerationPrompt: true });
    assert.ok(rendered.includes('turn 1999'));
  });

  it('a model folder that does not exist (rather than "no template")', () => {
    assertChatError(() => loadChatFormat(path.join(scratch, 'nowhere')), /the model folder .*nowhere does not exist/);
  });

  it('a chat_template that is no template', () => {
    assertChatError(() => formatOf({ chat_template: 42 }), /chat_template is number, not a template/);
  });
});
