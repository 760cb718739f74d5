import {z} from 'zod';
import {registerSchema} from '../domain/registry.js';
import {ChatMessage, type Session} from '../domain/session.js';
import {SessionSummary} from '../domain/sessionSummary.js';
import {summarize} from '../store/sessionStore.js';
import {buildAssistantPrompt} from '../episode/assistant.js';
import {publicView} from '../episode/views.js';

/** Where an example came from: the session's id, seed, persona, settings and scores. */
const METADATA = {id: true, seedId: true, personaId: true, region: true, identity: true, templateId: true, tier: true, split: true, language: true, mode: true, assistantModel: true, judgeModel: true, threeH: true, tdq: true, clean: true, mock: true} as const;

/** One supervised fine-tuning example: the chat as the assistant saw it, ending on an assistant turn. */
export const SftExample = z.strictObject({
	messages: z.array(ChatMessage).min(3),
	metadata: SessionSummary.pick(METADATA),
});
export type SftExample = z.infer<typeof SftExample>;

export const pickMetadata = (summary: SessionSummary): SftExample['metadata'] => Object.fromEntries(Object.keys(METADATA).map((key) => [key, summary[key as keyof typeof METADATA]])) as SftExample['metadata'];
registerSchema('sft-example', SftExample, 'one line of `export sft`: chat messages (system, user, assistant, ...) and where they came from');

export type SftFilter = {
	/** gold (default: dialogues written with the oracle briefing), eval, or any. */
	readonly mode: 'gold' | 'eval' | 'any';
	/** train (default), test, or any: test-split seeds never become training data unless asked. */
	readonly split: 'train' | 'test' | 'any';
	readonly clean: boolean;
	readonly minThreeH: number | null;
	readonly minTdq: number | null;
	readonly includeMock: boolean;
};

export type SftOutcome = {readonly example: SftExample} | {readonly skip: string};

/**
 * A session as a training example, or why it is not one. The messages come from the public view
 * through the eval-mode assistant prompt, so a gold dialogue teaches the behaviour without the
 * oracle briefing that produced it: the trained model must do without the briefing, too.
 */
export function sftExample(session: Session, filter: SftFilter): SftOutcome {
	if (session.status !== 'completed' || !session.judge) return {skip: 'not completed'};
	if (session.config.rejudgeOf) return {skip: 're-judged copy'};
	if (session.config.mock && !filter.includeMock) return {skip: 'offline mock'};
	if (filter.mode !== 'any' && session.config.mode !== filter.mode) return {skip: `mode ${session.config.mode}`};
	if (filter.split !== 'any' && session.seed.split !== filter.split) return {skip: `${session.seed.split} split`};
	if (session.config.assistant === 'human' && filter.mode === 'gold') return {skip: 'human assistant'};
	if (filter.clean && session.judge.clean !== true) return {skip: 'not clean'};
	if (filter.minThreeH !== null && (session.judge.threeH ?? 0) < filter.minThreeH) return {skip: '3H below the minimum'};
	if (filter.minTdq !== null && (session.judge.tdq ?? 0) < filter.minTdq) return {skip: 'TDQ below the minimum'};
	// An example ends on the assistant's last word: the user's closing or unanswered turns are dropped.
	const turns = session.turns.filter((turn) => !turn.closing);
	while (turns.length > 0 && turns.at(-1)!.role !== 'assistant') turns.pop();
	if (turns.length === 0) return {skip: 'no assistant turn'};
	const prompt = buildAssistantPrompt(publicView({turns}));
	return {
		example: {
			messages: [...prompt.messages],
			metadata: pickMetadata(summarize(session, '')),
		},
	};
}
