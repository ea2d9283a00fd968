// The text task layer (issue 15): tasks and their held-out split, the character tokenizer,
// the verifiers of reward terms, and held-out evaluation. See README.md.
export { textTaskConfig, type TextTaskConfig, type TextTaskOptions } from './config.js';
export { datasetTask, DatasetError, loadDataset, parseDataset } from './dataset.js';
export { evaluateText, scoreWith, type CompleteBatch, type EvaluateOptions, type ScoreCompletion, type TextEvaluation } from './evaluate.js';
export { addition, reverse, sort } from './generated.js';
export { LinearRegex, MAX_INSTRUCTIONS, PatternError } from '../../shared/regex.js';
export { TEXT_EXTRACTORS, TEXT_FUNCTIONS, TEXT_NAMES, TextVerifiers, type TextFields } from '../rewards/text-terms.js';
export { HELD_OUT_LIMIT, HELD_OUT_PERCENT, promptHash } from './split.js';
export { taskTokenizer, type TextExample, type TextTask } from './task.js';
export { alphabetOf, BOS, CharTokenizer, EOS, PAD, SPECIAL_TOKENS, TokenizerError, type TokenizerJSON } from '../policies/transformer/char-tokenizer.js';
export { boxed, contains, exact, lastNumber, length, numeric, parseNumber, regex, tagged } from '../rewards/verifiers.js';
