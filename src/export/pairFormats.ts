import {z} from 'zod';
import {registerSchema} from '../domain/registry.js';
import {ChatMessage} from '../domain/session.js';

/*
 * One preference pair in the three layouts trainers read. Each keeps the prompt apart from the two
 * completions, so no trainer has to guess where the prompt ends:
 *
 * - trl: TRL's conversational preference format, `prompt`, `chosen` and `rejected` all message lists
 *   (trl/data_utils.py: `maybe_extract_prompt` keeps the prompt only when prompt and completions are
 *   both conversational; a string completion next to a message-list prompt makes it cut a common
 *   prefix out of the two answers instead).
 * - openai-dpo: OpenAI's DPO fine-tuning JSONL, `input.messages`, `preferred_output`,
 *   `non_preferred_output`, and nothing else.
 * - sharegpt: LLaMA-Factory's ranking data, `conversations` (system first, then alternating human /
 *   gpt turns ending on human) with `chosen` and `rejected` as single gpt messages (its
 *   SharegptDatasetConverter drops a pair whose completions are not single messages).
 */

export const PAIR_FORMATS = ['trl', 'openai-dpo', 'sharegpt'] as const;
export type PairFormat = (typeof PAIR_FORMATS)[number];

const Assistant = z.strictObject({role: z.literal('assistant'), content: z.string()});

export const TrlPair = z.object({prompt: z.array(ChatMessage).min(1), chosen: z.array(Assistant).length(1), rejected: z.array(Assistant).length(1)}).describe('TRL conversational preference example; other keys (id, scores, metadata) ride along');
export const OpenAiDpoPair = z.strictObject({
	input: z.strictObject({messages: z.array(ChatMessage).min(1)}),
	preferred_output: z.array(Assistant).length(1),
	non_preferred_output: z.array(Assistant).length(1),
});
const ShareGptMessage = z.strictObject({from: z.enum(['system', 'human', 'gpt']), value: z.string()});
export const ShareGptPair = z.object({conversations: z.array(ShareGptMessage).min(1), chosen: ShareGptMessage, rejected: ShareGptMessage}).describe('LLaMA-Factory sharegpt ranking example; other keys ride along');
registerSchema('pair-openai-dpo', OpenAiDpoPair, 'one line of `crisp pairs` / `export pairs` with --format openai-dpo (OpenAI DPO fine-tuning JSONL)');
registerSchema('pair-sharegpt', ShareGptPair, 'one line of `crisp pairs` / `export pairs` with --format sharegpt (LLaMA-Factory ranking data)');

/** The parts of a pair, before a layout is chosen. `extra` (ids, scores, metadata) is kept where the layout allows it. */
export type PairParts = {
	readonly prompt: readonly ChatMessage[];
	readonly chosen: string;
	readonly rejected: string;
	readonly extra: Readonly<Record<string, unknown>>;
};

const SHAREGPT_ROLE = {system: 'system', user: 'human', assistant: 'gpt'} as const;

/** A pair in one layout, as the JSON object written on its line. */
export function formatPair(parts: PairParts, format: PairFormat): Record<string, unknown> {
	switch (format) {
		case 'trl':
			return {prompt: parts.prompt, chosen: [{role: 'assistant', content: parts.chosen}], rejected: [{role: 'assistant', content: parts.rejected}], ...parts.extra};
		case 'openai-dpo':
			// OpenAI's validator knows these three fields only, so ids and scores stay out.
			return {input: {messages: parts.prompt}, preferred_output: [{role: 'assistant', content: parts.chosen}], non_preferred_output: [{role: 'assistant', content: parts.rejected}]};
		case 'sharegpt':
			return {conversations: parts.prompt.map((message) => ({from: SHAREGPT_ROLE[message.role], value: message.content})), chosen: {from: 'gpt', value: parts.chosen}, rejected: {from: 'gpt', value: parts.rejected}, ...parts.extra};
		default: {
			const never: never = format;
			throw new Error(`unknown pair format ${String(never)}`);
		}
	}
}

/** The `dataset_info.json` entry LLaMA-Factory needs for a sharegpt pairs file (printed by the export). */
export function llamaFactoryDatasetInfo(name: string, file: string): Record<string, unknown> {
	return {[name]: {file_name: file, formatting: 'sharegpt', ranking: true, columns: {messages: 'conversations', chosen: 'chosen', rejected: 'rejected'}}};
}
