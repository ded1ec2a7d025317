/**
 * Test helpers for users' own tests: the strict scripted model.
 */
export {
  ScriptedModel,
  ScriptedModelError,
  scriptedModel,
  type ScriptedResponse,
  type ScriptedStep,
} from './models/scripted.js';
export { viewPrompt, type PromptView, type PromptTurn } from './models/prompt-view.js';
