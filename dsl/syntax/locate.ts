// Finding what is under a cursor: the chain of syntax nodes that contain an offset, outermost
// first. Editor features (hover, completion, definition) start from here.
import type * as A from './ast.js';

/** A node and the nodes around it, outermost first: `[file, declaration, body, property, ...]`. */
export type NodePath = A.Node[];

function contains(range: A.Range, offset: number): boolean {
  // The end is included so that a cursor right after a name (`lea|`) still finds the name.
  return range.start <= offset && offset <= range.end;
}

/** The children of a node that carry ranges, in source order. */
export function childrenOf(node: A.Node): A.Node[] {
  switch (node.kind) {
    case 'File': return [...node.imports, ...node.declarations].sort((a, b) => a.range.start - b.range.start);
    case 'Import': return [];
    case 'Declaration': return compact([node.name, node.base, node.over, node.body]);
    case 'BaseRef': return compact([node.name, ...(node.args ?? [])]);
    case 'Body': return node.members;
    case 'Property': return compact([...node.path, node.value]);
    case 'Block': return [node.name, node.body];
    case 'Named': return compact([node.name, node.value, node.base, node.body]);
    case 'Name': return node.parts;
    case 'Call': return [node.callee, ...node.args];
    case 'Argument': return compact([node.name, node.value]);
    case 'List': return node.items;
    case 'Unary': return compact([node.operand]);
    case 'Binary': return compact([node.left, node.right]);
    case 'Paren': return compact([node.expression]);
    default: return [];
  }
}

function compact<T>(items: (T | undefined)[]): T[] {
  return items.filter((i): i is T => i !== undefined);
}

/** The innermost chain of nodes containing `offset`; at a boundary the later node wins. */
export function nodePathAt(file: A.SourceFile, offset: number): NodePath {
  const path: NodePath = [file];
  for (let node: A.Node = file; ;) {
    const children = childrenOf(node);
    let next: A.Node | undefined;
    for (const child of children) {
      if (contains(child.range, offset)) next = child; // keep going: the last match is the later node
      else if (child.range.start > offset) break;
    }
    if (!next) return path;
    path.push(next);
    node = next;
  }
}

/** The nearest node of a kind on a path, innermost first. */
export function innermost<K extends A.Node['kind']>(path: NodePath, kind: K): Extract<A.Node, { kind: K }> | undefined {
  for (let i = path.length - 1; i >= 0; i--) {
    if (path[i].kind === kind) return path[i] as Extract<A.Node, { kind: K }>;
  }
  return undefined;
}

/** Every node of a subtree, parents before children. */
export function* walk(node: A.Node): Generator<A.Node> {
  yield node;
  for (const child of childrenOf(node)) yield* walk(child);
}
