/**
 * Instruction paging on Google ADK JS: a planner searches the reports and transfers to an analyst, which
 * reads them in batches through pagewise's paging tools (working set in ADK `temp:` state), saves its
 * running result and escalates. ADK runs the agents and stores the session; the model is ADK's BaseLlm
 * over a scripted model that follows the report-analysis rules (not an LLM), so this runs offline:
 * npx tsx examples/adk-paging.ts
 */
import { InMemorySessionService, LlmAgent, Runner, type Event } from '@google/adk';
import { adkInstruction, adkTool, AiSdkLlm, PagewiseAdkPlugin } from '@pagewise/adk';
import type { InstructionProvider } from 'pagewise';
import { compactPagingTurns } from 'pagewise/paging';
import {
  createReportAnalyst,
  generateQuestions,
  generateReports,
  inMemoryCorpus,
  isCorrect,
  reportOfflinePolicy,
} from '@pagewise/lab/scenarios/report-analysis';
import { ScriptedModel, type ScriptedStep } from 'pagewise/testing';

const reports = generateReports(40, 3);
const corpus = inMemoryCorpus(reports);
const question = generateQuestions(reports, 3, 1)[0]!;

// Each step applies the report-analysis rules to the prompt ADK sent; ADK names the transfer argument agentName.
const step: ScriptedStep = ({ view }) => {
  const decision = reportOfflinePolicy.decide(view);
  return {
    ...(decision.text ? { text: decision.text } : {}),
    toolCalls: (decision.toolCalls ?? []).map((call) =>
      call.toolName === 'transfer_to_agent' ? { ...call, input: { agentName: 'analyst' } } : call,
    ),
  };
};
const model = new AiSdkLlm(new ScriptedModel(Array.from({ length: 3 + 4 + 2 }, () => step)));

// The agents, tools and instructions of pagewise's report analyst, run by ADK.
const ra = createReportAnalyst({ ...corpus, strategy: 'paging' });
const analyst = new LlmAgent({
  name: 'analyst',
  description: ra.analyst.description,
  model,
  instruction: adkInstruction(ra.analyst.instruction as InstructionProvider),
  tools: ra.analyst.tools.map((t) => adkTool(t)),
});
const planner = new LlmAgent({
  name: 'planner',
  description: ra.planner.description,
  model,
  instruction: adkInstruction(() => ra.planner.instruction as string),
  tools: ra.planner.tools.map((t) => adkTool(t)),
  subAgents: [analyst],
});
const plugin = new PagewiseAdkPlugin({ processors: [compactPagingTurns({ keepLast: 1 })], agents: ['analyst'] });
const sessionService = new InMemorySessionService();
const runner = new Runner({ appName: 'reports', agent: planner, sessionService, plugins: [plugin] });
const session = await sessionService.createSession({ appName: 'reports', userId: 'me' });

let answer = '';
for await (const event of runner.runAsync({
  userId: 'me',
  sessionId: session.id,
  newMessage: { role: 'user', parts: [{ text: question.text }] },
}) as AsyncIterable<Event>) {
  for (const part of event.content?.parts ?? [])
    if (part.functionCall?.name === 'escalate') answer = String((part.functionCall.args as { reason: string }).reason);
}
const stored = (await sessionService.getSession({ appName: 'reports', userId: 'me', sessionId: session.id }))!;
const json = JSON.stringify(stored.events);
const summary = plugin.ledger.summary;
console.log(`Question: ${question.text}`);
console.log(`Answer:   ${answer}`);
console.log(`Correct:  ${isCorrect(answer, question.gold)}`);
console.log(
  `ADK stored ${stored.events.length} events; report bodies in them: ${reports.filter((r) => json.includes(JSON.stringify(r.body.slice(r.body.indexOf('## Key figures'))).slice(1, -1))).length}`,
);
console.log(
  `temp: keys stored: ${Object.keys(stored.state).filter((k) => k.startsWith('temp:')).length}; saved result: ${String(stored.state['result:answer-partial']).slice(0, 80)}`,
);
console.log(
  `Model calls ${summary.modelCalls}, peak prompt ${summary.peakPromptTokens} tokens, cumulative ${summary.cumulativePromptTokens}.`,
);
