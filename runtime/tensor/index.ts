// runtime/tensor: graphs that compile to ONNX, reverse-mode autodiff, onnxruntime sessions,
// parameters and optimisers. See README.md in this folder.

export type { DType, Dim, Shape, HostArray } from './types.js';
export { Tensor, type Attrs, type AttrValue, type ConstValue } from './tensor.js';
export { Graph, type Operand, type ReduceOptions, type ConstOptions, type GemmOptions } from './graph.js';
export { grad, paramsReachedByGradient, type GradOptions } from './grad.js';
export { GRADIENTS, type GradientRule, unbroadcast } from './gradients.js';
export { buildModel, type BuiltModel, type ModelIO, type ModelOptions, type ParamSource } from './onnx.js';
export { Session, sessionTraffic, resetSessionTraffic, type SessionOptions, type SessionTraffic, type ExecutionProvider, type Feed, type HostTensor } from './session.js';
export { GradientSession, type GradientSessionOptions, type LossAndGrads } from './gradient-session.js';
export { PRECISIONS, type Precision } from './mixed-precision.js';
export { LossScaler, LOSS_SCALE_DEFAULTS, type LossScaleState, type LossScalerOptions } from './loss-scale.js';
export { GradientParts, LOSS_SCALE, MIN_CORES_FOR_THREADS, type GradientPart, type GradientPartsOptions, type PartsResult, type ThreadStats } from './gradient-parts.js';
export { GradientStep, type GradientStepOptions, type StepPart, type StepResult } from './gradient-step.js';
export { opThreadsFor, warmUpCompute, type Compute, type ComputeOptions } from './compute.js';
export { WorkerSession, type WorkerSessionOptions } from './worker-session.js';
export { WeightStore, type Weight, type WeightSnapshot } from './weights.js';
export { markWritten, writeCount } from './weight-writes.js';
export type { GradientHandover } from './gradient-handover.js';
export { Adam, SGD, clipGradNorm, gradNorm, type AdamOptions, type AdamState, type AdamStepOptions, type SGDOptions, type SGDState } from './optim.js';
export * as nn from './nn.js';
export * as init from './init.js';
