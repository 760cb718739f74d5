import {z} from 'zod';
import {registerSchema} from '../domain/registry.js';
import {ChatMessage, type Session} from '../domain/session.js';
import {buildAssistantPrompt} from '../episode/assistant.js';
import {publicView} from '../episode/views.js';
import {summarize} from '../store/sessionStore.js';
import {type SftFilter, SftExample, pickMetadata} from './sft.js';

/**
 * One preference pair from a best-of-N turn, in the prompt / chosen / rejected layout DPO trainers
 * read: the chat up to the turn, the best-rated candidate and the worst-rated one.
 */
export const PreferencePair = z.strictObject({
	prompt: z.array(ChatMessage).min(2),
	chosen: z.array(ChatMessage).length(1),
	rejected: z.array(ChatMessage).length(1),
	scoreChosen: z.number(),
	scoreRejected: z.number(),
	metadata: SftExample.shape.metadata.extend({t: z.number().int().nonnegative()}),
});
export type PreferencePair = z.infer<typeof PreferencePair>;
registerSchema('preference-pair', PreferencePair, 'one line of `export pairs`: the chat so far, the best- and worst-rated best-of-N candidates');

export type PairFilter = Omit<SftFilter, 'minThreeH' | 'minTdq'> & {
	/** Fewest rating points between chosen and rejected. @default 1 */
	readonly minMargin: number;
};

/**
 * The pairs of one session, or why it has none. Like SFT examples, the prompt is the public chat under
 * the eval-mode system prompt, never the gold briefing. The session's own outcome is not a filter by
 * default (a failed dialogue still holds turns where one reply was clearly better), but `clean` is.
 */
export function preferencePairs(session: Session, filter: PairFilter): {pairs: PreferencePair[]} | {skip: string} {
	if (session.config.rejudgeOf) return {skip: 're-judged copy'};
	if (session.config.mock && !filter.includeMock) return {skip: 'offline mock'};
	if (filter.mode !== 'any' && session.config.mode !== filter.mode) return {skip: `mode ${session.config.mode}`};
	if (filter.split !== 'any' && session.seed.split !== filter.split) return {skip: `${session.seed.split} split`};
	if (filter.clean && session.judge?.clean !== true) return {skip: 'not clean'};
	if (!session.turns.some((turn) => turn.candidates && turn.candidates.length >= 2)) return {skip: 'no best-of-N turns'};
	const metadata = pickMetadata(summarize(session, ''));
	const pairs: PreferencePair[] = [];
	session.turns.forEach((turn, index) => {
		if (turn.role !== 'assistant' || !turn.candidates || turn.candidates.length < 2) return;
		const ranked = [...turn.candidates].sort((a, b) => b.score - a.score);
		const best = ranked[0]!;
		const worst = ranked.at(-1)!;
		if (best.score - worst.score < filter.minMargin || best.content === worst.content) return;
		const before = session.turns.slice(0, index).filter((earlier) => !earlier.closing);
		pairs.push({
			prompt: [...buildAssistantPrompt(publicView({turns: before})).messages],
			chosen: [{role: 'assistant', content: best.content}],
			rejected: [{role: 'assistant', content: worst.content}],
			scoreChosen: best.score,
			scoreRejected: worst.score,
			metadata: {...metadata, t: turn.t},
		});
	});
	return pairs.length > 0 ? {pairs} : {skip: 'no candidates far enough apart'};
}
