/**
 * `pagewise/context`: the request pipeline a model call goes through. The request type processors rewrite, the
 * rendering of a request into the prompt sent (with the per-step block after the history), and the simple history
 * processors (`fifoHistory`, `clearToolResults`, `naiveHistory`).
 */
export {
  isPerStep,
  instructionText,
  splitInstruction,
  type SplitInstruction,
  renderPrompt,
  STEP_BLOCK_HEADER,
  stepBlockText,
  systemText,
  type ContextItem,
  type ContextProcessor,
  type ContextRequest,
  type InstructionSection,
  type ProcessorContext,
  type RequestField,
  type ToolDefinition,
} from './context/request.js';
export { isStepBlock, STEP_BLOCK_MARK } from './models/step-block.js';
export type { ObservationContext, ObservationProcessor, ToolObservation } from './context/observation.js';
export {
  clearToolResults,
  fifoHistory,
  naiveHistory,
  type ClearToolResultsOptions,
  type FifoOptions,
} from './context/processors.js';
