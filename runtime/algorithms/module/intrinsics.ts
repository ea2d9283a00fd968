// A learner module runs on the trainer's thread, in rlx's own JavaScript realm: were it to
// replace a built-in rlx uses (`JSON.stringify = ...`, `Array.prototype.push = ...`), rlx would
// break later, far from the cause, as an internal error. So around each call into the module
// (watchdog.ts) the built-ins' properties are compared with what they were before it; a change
// is put back at once (rlx's own reporting needs them) and refused, naming what was changed.
import { LearnerModuleError } from './errors.js';

/** The built-ins rlx's own code leans on; a module's new globals of its own are no concern. */
const HOLDERS: readonly (readonly [string, object])[] = [
  ['JSON', JSON], ['Math', Math], ['Object', Object], ['Array', Array], ['Number', Number], ['String', String],
  ['Reflect', Reflect], ['Promise', Promise], ['Symbol', Symbol], ['Date', Date],
  ['Object.prototype', Object.prototype], ['Array.prototype', Array.prototype], ['Function.prototype', Function.prototype],
  ['String.prototype', String.prototype], ['Number.prototype', Number.prototype], ['Map.prototype', Map.prototype],
  ['Set.prototype', Set.prototype], ['Promise.prototype', Promise.prototype], ['Error.prototype', Error.prototype],
  ['RegExp.prototype', RegExp.prototype], ['TypedArray.prototype', Object.getPrototypeOf(Float32Array.prototype) as object],
  ['Float32Array.prototype', Float32Array.prototype],
];

type Snapshot = { readonly globals: Map<PropertyKey, PropertyDescriptor>; readonly holders: Map<PropertyKey, PropertyDescriptor>[] };

function descriptors(of: object): Map<PropertyKey, PropertyDescriptor> {
  return new Map(Reflect.ownKeys(of).map((k) => [k, Object.getOwnPropertyDescriptor(of, k)!]));
}

/** The built-ins as they are now. */
export function snapshotIntrinsics(): Snapshot {
  return { globals: descriptors(globalThis), holders: HOLDERS.map(([, of]) => descriptors(of)) };
}

function same(a: PropertyDescriptor, b: PropertyDescriptor | undefined): boolean {
  return b !== undefined && Object.is(a.value, b.value) && a.get === b.get && a.set === b.set;
}

function keyName(holder: string, key: PropertyKey): string {
  const name = typeof key === 'symbol' ? `[${key.description ?? 'symbol'}]` : String(key);
  return holder ? `${holder}.${name}` : name;
}

/**
 * Puts back every built-in changed since `before` and names them (e.g. ['JSON.stringify']);
 * [] when none was. A global the module added is left, as is a property added to a namespace
 * (JSON, Math); one added to a prototype is taken away, since every object would inherit it.
 */
export function restoreIntrinsics(before: Snapshot): string[] {
  const changed: string[] = [];
  const restore = (holder: string, of: object, was: Map<PropertyKey, PropertyDescriptor>, addedCount: boolean, valuesOnly: boolean) => {
    for (const [key, descriptor] of was) {
      // Node defines some globals (crypto, fetch, ...) by a getter that becomes a value when first read.
      if (valuesOnly && !('value' in descriptor)) continue;
      if (same(descriptor, Object.getOwnPropertyDescriptor(of, key))) continue;
      changed.push(keyName(holder, key));
      try {
        Object.defineProperty(of, key, descriptor);
      } catch {
        // frozen or made non-configurable by the module: reported all the same
      }
    }
    if (!addedCount) return;
    for (const key of Reflect.ownKeys(of)) {
      if (was.has(key)) continue;
      changed.push(keyName(holder, key));
      Reflect.deleteProperty(of, key);
    }
  };
  restore('', globalThis, before.globals, false, true);
  HOLDERS.forEach(([name, of], i) => restore(name, of, before.holders[i]!, name.endsWith('.prototype'), false));
  return changed;
}

/** The error for built-ins `changed` by `what` (a call of the module `label`), once they are put back. */
export function changedIntrinsicsError(changed: readonly string[], label: string, what: string): LearnerModuleError {
  const names = changed.length > 3 ? `${changed.slice(0, 3).join(', ')} and ${changed.length - 3} more` : changed.join(', ');
  return new LearnerModuleError(`${label}: ${what} changed JavaScript's built-in ${names}, which rlx uses too; a learner module must leave the built-ins as they are (keep its own helpers under its own names)`);
}
