// Where onnxruntime put the nodes of each session: read from its verbose log, which a process
// writes when RLX_ORT_PLACEMENT=1 (session.ts). A GPU provider leaves the ops it has no kernel
// for to the CPU; that costs a copy each way per run where such a node sits between GPU nodes.
// onnxruntime also puts small shape computations (Shape, Size, a Div of two sizes) on the CPU on
// purpose; those are listed too, but are not fallbacks to restructure.

/** One node as the log names it: its op type and its node name. */
export interface PlacedNode {
  readonly op: string;
  readonly name: string;
}

/**
 * One session's placement, per execution provider: how many nodes it runs and which (the log
 * lists them only when the session uses several providers).
 */
export type SessionPlacement = ReadonlyMap<string, { readonly count: number; readonly nodes: readonly PlacedNode[] }>;

export const CPU_PROVIDER = 'CPUExecutionProvider';

/** Ops that only compute shapes or sizes, which onnxruntime keeps on the CPU deliberately. */
const SHAPE_OPS = new Set(['Shape', 'Size', 'Cast', 'Concat', 'ConstantOfShape', 'Div', 'Mul', 'Sub', 'Add', 'Unsqueeze', 'Squeeze', 'Gather', 'Slice', 'Reshape', 'Range']);

/** The onnxruntime nodes that move a tensor between host and device inside a run. */
const COPY_OPS = new Set(['MemcpyFromHost', 'MemcpyToHost']);

/**
 * Every "Node placements" block of an onnxruntime verbose log, one per session created, in
 * order. Lines of other loggers in between are skipped.
 */
export function parsePlacements(log: string): SessionPlacement[] {
  const sessions: Map<string, { count: number; nodes: PlacedNode[] }>[] = [];
  let current: Map<string, { count: number; nodes: PlacedNode[] }> | null = null;
  let nodes: PlacedNode[] | null = null;
  for (const line of log.split('\n')) {
    if (!line.includes('VerifyEachNodeIsAssignedToAnEp]')) {
      continue;
    }
    const text = line.slice(line.indexOf('VerifyEachNodeIsAssignedToAnEp]') + 'VerifyEachNodeIsAssignedToAnEp]'.length);
    if (/^\s*Node placements\s*$/.test(text)) {
      current = new Map();
      sessions.push(current);
      nodes = null;
      continue;
    }
    // "Node(s) placed on [X]. Number of nodes: N", or "All nodes placed on [X]. Number of nodes: N".
    const placed = /placed on \[(\w+)\]\. Number of nodes: (\d+)/.exec(text);
    if (placed) {
      if (!current) {
        current = new Map();
        sessions.push(current);
      }
      nodes = [];
      current.set(placed[1]!, { count: Number(placed[2]), nodes });
      continue;
    }
    const node = /^\s+(\w+) \((.*)\)\s*$/.exec(text);
    if (node && nodes) nodes.push({ op: node[1]!, name: node[2]! });
    else if (!/^\s*$/.test(text)) nodes = null; // the warning after the list, and the like
  }
  return sessions;
}

/** What a placement means for speed: the CPU nodes that are real fallbacks, and the copies per run. */
export interface PlacementSummary {
  /** Nodes on the CPU besides onnxruntime's own shape computations. */
  readonly fallbacks: readonly PlacedNode[];
  /** Shape computations onnxruntime kept on the CPU. */
  readonly shapeNodes: readonly PlacedNode[];
  /** Host-device copies inside one run (Memcpy nodes onnxruntime inserted). */
  readonly copies: number;
  /** Nodes on the accelerator (copies not counted). */
  readonly onDevice: number;
}

/**
 * Splits a session's placement. A CPU node whose op is one onnxruntime computes shapes with
 * (Shape, Size, and small arithmetic, casts and concatenations on their outputs) counts as a
 * shape computation: the WebGPU provider has kernels for all of these, so one on the CPU was put
 * there by onnxruntime's preference for shape work on the host. Any other op on the CPU is a fallback.
 */
export function summarize(placement: SessionPlacement): PlacementSummary {
  const fallbacks: PlacedNode[] = [];
  const shapeNodes: PlacedNode[] = [];
  let copies = 0;
  let onDevice = 0;
  for (const [provider, { count, nodes }] of placement) {
    if (provider !== CPU_PROVIDER) onDevice += count;
    for (const node of nodes) {
      if (COPY_OPS.has(node.op)) {
        copies++;
        if (provider !== CPU_PROVIDER) onDevice--;
      } else if (provider === CPU_PROVIDER) (SHAPE_OPS.has(node.op) ? shapeNodes : fallbacks).push(node);
    }
  }
  return { fallbacks, shapeNodes, copies, onDevice };
}
