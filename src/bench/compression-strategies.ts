/**
 * Registers the compression strategies with the benchmark: the prompting baseline (`summarize`) and
 * ACON's observation (`acon-obs`), history (`acon-hist`) and combined (`acon`) compression. They apply
 * to the tool-use scenarios; report-analysis compares paging with the naive strategy.
 */
import {
  aconHistoryStrategy,
  aconObservationStrategy,
  aconStrategy,
  promptingStrategy,
} from '../compression/strategies.js';
import { registerStrategy } from './strategies.js';

const TOOL_USE = ['retail-tool-use', 'multi-objective-qa'];

registerStrategy('summarize', (ctx) => promptingStrategy(ctx), {
  description: 'one generic "summarize the conversation" prompt when history exceeds T_hist (the prompting baseline)',
  scenarios: TOOL_USE,
});
registerStrategy('acon-obs', (ctx) => aconObservationStrategy(ctx), {
  description: 'ACON observation compression above T_obs, guided by the observation guideline; raw kept as a page',
  scenarios: TOOL_USE,
});
registerStrategy('acon-hist', (ctx) => aconHistoryStrategy(ctx), {
  description: 'ACON history compression above T_hist into a structured summary behind a compaction event',
  scenarios: TOOL_USE,
});
registerStrategy('acon', (ctx) => aconStrategy(ctx), {
  description: 'ACON observation and history compression together',
  scenarios: TOOL_USE,
});
registerStrategy('paging+acon', (ctx) => aconStrategy(ctx, { pageIn: true }), {
  description: 'ACON with paging: raw observations are pages the model can page back in by their handles',
  scenarios: TOOL_USE,
});
