// Binding call arguments to parameters: positional first, then by name, as in Python.
import type { Argument, Range } from '../syntax/ast.js';

export interface ParamLike {
  name: string;
  required?: boolean;
}

export interface Binding {
  bound: Map<string, Argument>;
  problems: { message: string; range: Range }[];
}

export function bindArguments(args: Argument[], params: ParamLike[], callName: string, callRange: Range): Binding {
  const bound = new Map<string, Argument>();
  const problems: Binding['problems'] = [];
  let position = 0;
  let sawNamed = false;
  for (const arg of args) {
    if (arg.name) {
      sawNamed = true;
      const param = params.find((p) => p.name === arg.name!.text);
      if (!param) {
        const valid = params.map((p) => p.name).join(', ');
        problems.push({ message: `${callName} has no argument '${arg.name.text}'${valid ? `; its arguments are: ${valid}` : ''}`, range: arg.name.range });
      } else if (bound.has(param.name)) {
        problems.push({ message: `argument '${param.name}' of ${callName} is given twice`, range: arg.range });
      } else {
        bound.set(param.name, arg);
      }
      continue;
    }
    if (sawNamed) {
      problems.push({ message: `a positional argument cannot follow named ones in ${callName}`, range: arg.range });
      continue;
    }
    const param = params[position++];
    if (!param) {
      problems.push({ message: `${callName} takes at most ${params.length} argument${params.length === 1 ? '' : 's'}`, range: arg.range });
      continue;
    }
    bound.set(param.name, arg);
  }
  const missing = params.filter((p) => p.required && !bound.has(p.name)).map((p) => p.name);
  if (missing.length > 0) {
    problems.push({ message: `${callName} needs ${missing.map((m) => `'${m}'`).join(' and ')}: ${callName}(${params.map((p) => p.name).join(', ')})`, range: callRange });
  }
  return { bound, problems };
}
