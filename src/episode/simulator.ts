import {z} from 'zod';
import type {Blueprint} from '../domain/blueprint.js';
import {Decision, type LanguageMode, type Turn} from '../domain/session.js';
import type {Shard} from '../domain/shards.js';
import type {Style} from '../domain/styles.js';
import type {LanguageId} from '../domain/universe.js';
import {renderPrompt} from '../llm/prompts.js';
import type {CallEvent, ModelGateway, ModelResponse} from '../llm/types.js';
import {shardText} from '../pipeline/render.js';
import {simulatorMessageProblems} from './simulatorChecks.js';
import {transcriptForSimulator} from './transcript.js';

/** One simulated user turn (paper Appendix G.4): assessment of the last reply, decision, next message. */
export const SimulatorTurn = z.strictObject({
	reasoning: z.string().min(5).describe('how the last assistant reply measured up against the current phase'),
	decision: Decision,
	message: z.string().describe('the next message to the assistant'),
});
export type SimulatorTurn = z.infer<typeof SimulatorTurn>;

export type SimulatorInput = {
	readonly blueprint: Blueprint;
	readonly shards: readonly Shard[];
	readonly shardIndex: number;
	readonly turns: readonly Turn[];
	readonly style: Style;
	readonly language: LanguageMode;
	readonly nativeLanguage: LanguageId;
	readonly turnsLeft: number;
};

/** What the offline mock provider receives for a simulator call. */
export type SimulatorMockInput = SimulatorInput & {readonly seedId: string};

export function languageDirective(input: Pick<SimulatorInput, 'blueprint' | 'language'>): string {
	return input.language === 'english'
		? `Write every message in English. ${input.blueprint.language.english.directive}`
		: `Write every message in ${input.blueprint.language.nativeName}. ${input.blueprint.language.nativeMode.directive}`;
}

export async function simulateUserTurn(
	input: SimulatorInput & {readonly seedId: string},
	options: {readonly gateway: ModelGateway; readonly step: number; readonly signal?: AbortSignal; readonly onEvent?: (event: CallEvent) => void},
): Promise<ModelResponse<SimulatorTurn>> {
	const {blueprint, shards, shardIndex} = input;
	const current = shards[shardIndex]!;
	const next = shards[shardIndex + 1];
	const hidden = blueprint.private.hiddenConstraints.map((item, index) => `${index + 1}. ${item.constraint} (when: ${item.discloseWhen})`).join('\n');
	const prompt = renderPrompt('simulator', {
		identity: blueprint.private.identity,
		style: blueprint.private.style,
		situation: blueprint.private.situation,
		goal: blueprint.private.goal,
		hidden_constraints: hidden || '(none)',
		language_directive: languageDirective(input),
		transcript: transcriptForSimulator(input.turns),
		shard_number: String(shardIndex + 1),
		shard_count: String(shards.length),
		current_shard: shardText(current, shardIndex, input.language),
		next_shard: next ? shardText(next, shardIndex + 1, input.language) : 'Nothing: this is the last phase. If it is done, close the conversation briefly.',
		response_style: `${input.style.name}: ${input.style.directive}`,
		turns_left: String(input.turnsLeft),
	});
	const lastAssistant = [...input.turns].reverse().find((turn) => turn.role === 'assistant')?.content;
	const expected = input.language === 'english' ? 'english' : input.nativeLanguage;
	return options.gateway.call({
		role: 'simulator',
		stage: 'simulator',
		prompt,
		schema: {name: 'simulator_turn', schema: SimulatorTurn},
		validate: (turn) => simulatorMessageProblems(turn.message, {language: expected, lastAssistant}),
		mock: input satisfies SimulatorMockInput,
		step: options.step,
		signal: options.signal,
		onEvent: options.onEvent,
	});
}
