/**
 * `pagewise demo`: a run on the offline model that needs no API key.
 */
import { Agent, Runner, escalateTool } from '../index.js';
import { parseCommand } from './args.js';

export const DEMO_HELP = `Usage: pagewise demo [options]

Runs a small agent on the offline model (deterministic rules, not an LLM) and prints its answer and
token summary. Needs no API key.

Options:
  -h, --help   Show this help
`;

/** Runs the demo command. */
export async function demoCommand(argv: string[], out: (s: string) => void): Promise<number> {
  const { values } = parseCommand('demo', argv, { help: { type: 'boolean', short: 'h' } });
  if (values.help) {
    out(DEMO_HELP);
    return 0;
  }
  const agent = new Agent({ name: 'assistant', instruction: 'You are a helpful assistant.', tools: [escalateTool], model: 'offline' });
  const result = await new Runner({ agent }).run({ userId: 'demo', message: 'Hello! What can pagewise do?' });
  out(result.text);
  const s = result.ledger.summary;
  out(`tokens: peak ${s.peakPromptTokens}, cumulative ${s.cumulativePromptTokens}, calls ${s.modelCalls}`);
  return 0;
}
