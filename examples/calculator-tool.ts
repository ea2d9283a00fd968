// A multi-turn tool task: the env asks for a product ("37*58"); the agent may call a calculator
// ("calc 37*58", the env answers "2146") and ends the dialogue with "answer 2146" (reward 1 if
// right, 0 otherwise). examples/calculator-tool.rlx trains a small transformer on it.
//
// A text env module: the spec declares the dialogue's bounds (rlx reads it without running this
// file), reset(seed) opens a dialogue, step(text) answers the agent's turn, and expert() writes a
// good next turn (calc, then answer), which SFT imitates.
export const spec = {
  actions: 'text',
  max_turns: 3,
  max_observation: 10, // the longest message this env writes: a calculator result such as "-9998" or "error"
  max_action: 11,      // "answer 9801"
  alphabet: '0123456789+-* abcdefghijklmnopqrstuvwxyz',
  info: ['success', 'calls'],
};

interface Params {
  /** Smallest and largest factor of the question. */
  low?: number;
  high?: number;
}

/** mulberry32: a small seeded generator, so that a seed gives the same question everywhere. */
function generator(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The value of "A+B", "A-B" or "A*B" with whole numbers of at most four digits; null for anything else. */
export function calculate(expression: string): number | null {
  const match = /^(\d{1,4})([+\-*])(\d{1,4})$/.exec(expression.replace(/ /g, ''));
  if (!match) return null;
  const [a, b] = [Number(match[1]), Number(match[3])];
  return match[2] === '+' ? a + b : match[2] === '-' ? a - b : a * b;
}

export default class CalculatorTool {
  private readonly low: number;
  private readonly high: number;
  private a = 0;
  private b = 0;
  /** The calculator's last result, and how many times the agent called it. */
  private last: number | null = null;
  private calls = 0;

  constructor(params: Params) {
    this.low = params.low ?? 10;
    this.high = params.high ?? 99;
  }

  reset(seed: number) {
    const random = generator(seed);
    const factor = () => this.low + Math.floor(random() * (this.high - this.low + 1));
    this.a = factor();
    this.b = factor();
    this.last = null;
    this.calls = 0;
    return { observation: `${this.a}*${this.b}`, info: {} };
  }

  step(text: string) {
    const [command, ...rest] = text.trim().split(' ');
    const argument = rest.join(' ');
    if (command === 'answer') {
      const success = argument === String(this.a * this.b);
      return { observation: '', reward: success ? 1 : 0, done: true, info: { success, calls: this.calls } };
    }
    if (command === 'calc') {
      this.calls++;
      this.last = calculate(argument);
      return { observation: this.last === null ? 'error' : String(this.last), reward: 0, done: false, info: { success: false, calls: this.calls } };
    }
    return { observation: 'error', reward: 0, done: false, info: { success: false, calls: this.calls } };
  }

  /** Calls the calculator on the question, then answers with its result. */
  expert(): string {
    const product = this.a * this.b;
    return this.last === product ? `answer ${product}` : `calc ${this.a}*${this.b}`;
  }
}
