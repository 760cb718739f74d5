/*
 * What three trainers do with a preference-pair row, re-implemented line for line so tests can run
 * the written files through them (no Python here). Sources followed:
 *
 * - TRL, trl/data_utils.py (huggingface/trl at commit bc13ae6): `is_conversational`, `extract_prompt`,
 *   `maybe_extract_prompt` (DPOTrainer maps every row through it first), and the key-set and last-role
 *   checks at the top of `apply_chat_template`.
 * - LLaMA-Factory, src/llamafactory/data/converter.py (`SharegptDatasetConverter`, ranking branch,
 *   hiyouga/LLaMA-Factory at commit 908cd68) with the `DatasetAttr` defaults of data/parser.py
 *   (commit 85b0f31), then the drop rule of src/llamafactory/data/processor/pairwise.py
 *   (`PairwiseDatasetProcessor.preprocess_dataset`, commit 5016eb9).
 * - OpenAI's DPO fine-tuning data format (guides/direct-preference-optimization): `input.messages`,
 *   `preferred_output`, `non_preferred_output`.
 */

type Row = Record<string, unknown>;
type Message = {role?: unknown; content?: unknown};

const SUPPORTED = ['prompt', 'chosen', 'rejected', 'completion', 'messages'];

/** trl.data_utils.is_conversational: the first supported key's value is a list whose first item has role and content. */
export function isConversational(example: Row): boolean {
	const keys = Object.keys(example).filter((key) => SUPPORTED.includes(key));
	if (keys.length === 0) return false;
	// Python pops an arbitrary element of a set; every caller below passes a one-key dict.
	const value = example[keys[0]!];
	if (!Array.isArray(value)) return false;
	const first = value[0] as Message | undefined;
	return typeof first === 'object' && first !== null && 'role' in first && 'content' in first;
}

/** trl.data_utils.extract_prompt: the longest common prefix of chosen and rejected becomes the prompt. */
export function extractPrompt(example: {chosen: unknown[] | string; rejected: unknown[] | string}): {prompt: unknown; chosen: unknown; rejected: unknown} {
	const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
	const {chosen, rejected} = example;
	const length = Math.min(chosen.length, rejected.length);
	// Python's `for idx in range(n)` leaves idx at n - 1 when it never breaks, and chosen[-1] is the last item.
	let idx = length - 1;
	for (let i = 0; i < length; i++) {
		if (!same(chosen[i], rejected[i])) {
			idx = i;
			if (chosen.at(i - 1) === ' ') idx -= 1;
			break;
		}
	}
	return {prompt: chosen.slice(0, idx), chosen: chosen.slice(idx), rejected: rejected.slice(idx)};
}

/** trl.data_utils.maybe_extract_prompt, as DPOTrainer applies it to every row. */
export function maybeExtractPrompt(example: Row): Row {
	if (!('chosen' in example) || !('rejected' in example)) return example;
	if ('prompt' in example) {
		const chosenConv = isConversational({chosen: example['chosen']});
		const promptConv = isConversational({prompt: example['prompt']});
		if ((chosenConv && promptConv) || (!chosenConv && !promptConv)) return example;
	}
	return {...example, ...extractPrompt({chosen: example['chosen'] as string, rejected: example['rejected'] as string})};
}

/** The checks `apply_chat_template` makes before templating: the key set, and the prompt's last role. Returns the problems. */
export function chatTemplateProblems(example: Row): string[] {
	const keys = new Set(Object.keys(example).filter((key) => [...SUPPORTED, 'label'].includes(key)));
	const valid = [['messages'], ['prompt'], ['prompt', 'completion'], ['prompt', 'chosen', 'rejected'], ['chosen', 'rejected'], ['prompt', 'completion', 'label']];
	const problems: string[] = [];
	if (!valid.some((set) => set.length === keys.size && set.every((key) => keys.has(key)))) problems.push(`Invalid keys in the example: ${[...keys].join(', ')}`);
	const prompt = example['prompt'];
	if (Array.isArray(prompt)) {
		const last = (prompt.at(-1) as Message | undefined)?.role;
		if (last !== 'user' && last !== 'assistant') problems.push(`Invalid role in the last message: ${String(last)}`);
	}
	return problems;
}

/** A LLaMA-Factory dataset_info.json entry, reduced to the attributes the sharegpt converter reads (with parser.py's defaults). */
export type DatasetAttr = {ranking: boolean; messages: string; chosen: string | null; rejected: string | null; system: string | null; role_tag: string; content_tag: string; user_tag: string; assistant_tag: string; observation_tag: string; function_tag: string; system_tag: string};

export function datasetAttr(info: {ranking?: boolean; columns?: Record<string, string>; tags?: Record<string, string>}): DatasetAttr {
	const columns = info.columns ?? {};
	const tags = info.tags ?? {};
	return {
		ranking: info.ranking ?? false,
		messages: columns['messages'] ?? 'conversations',
		chosen: columns['chosen'] ?? null,
		rejected: columns['rejected'] ?? null,
		system: columns['system'] ?? null,
		role_tag: tags['role_tag'] ?? 'from',
		content_tag: tags['content_tag'] ?? 'value',
		user_tag: tags['user_tag'] ?? 'human',
		assistant_tag: tags['assistant_tag'] ?? 'gpt',
		observation_tag: tags['observation_tag'] ?? 'observation',
		function_tag: tags['function_tag'] ?? 'function_call',
		system_tag: tags['system_tag'] ?? 'system',
	};
}

type Aligned = {role: string; content: unknown};

/**
 * SharegptDatasetConverter.__call__ followed by PairwiseDatasetProcessor's drop rule: the row kept as
 * {prompt, response, system}, or `dropped` with the reason LLaMA-Factory would log.
 */
export function llamaFactoryPairwise(example: Row, attr: DatasetAttr): {kept: {prompt: Aligned[]; response: Aligned[]; system: unknown}} | {dropped: string} {
	const tagMapping: Record<string, string> = {[attr.user_tag]: 'user', [attr.assistant_tag]: 'assistant', [attr.observation_tag]: 'observation', [attr.function_tag]: 'function', [attr.system_tag]: 'system'};
	const oddTags = [attr.user_tag, attr.observation_tag];
	const evenTags = [attr.assistant_tag, attr.function_tag];
	const acceptTags = [oddTags, evenTags];
	let messages = example[attr.messages] as Array<Record<string, unknown>> | undefined;
	if (!Array.isArray(messages)) return {dropped: `KeyError: ${attr.messages}`};
	let system: unknown;
	if (attr.system_tag && messages.length !== 0 && messages[0]![attr.role_tag] === attr.system_tag) {
		system = messages[0]![attr.content_tag];
		messages = messages.slice(1);
	} else system = attr.system ? example[attr.system] : '';
	const aligned: Aligned[] = [];
	let broken = false;
	for (const [turn, message] of messages.entries()) {
		if (!acceptTags[turn % 2]!.includes(String(message[attr.role_tag]))) {
			broken = true;
			break;
		}
		aligned.push({role: tagMapping[String(message[attr.role_tag])]!, content: message[attr.content_tag]});
	}
	if ((!attr.ranking && aligned.length % 2 !== 0) || (attr.ranking && aligned.length % 2 === 0)) broken = true;
	let prompt: Aligned[];
	let response: Aligned[];
	const chosen = attr.chosen ? example[attr.chosen] : undefined;
	const rejected = attr.rejected ? example[attr.rejected] : undefined;
	const isDict = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
	if (broken) {
		prompt = [];
		response = [];
	} else if (attr.ranking && isDict(chosen) && isDict(rejected)) {
		if (!evenTags.includes(String(chosen[attr.role_tag])) || !evenTags.includes(String(rejected[attr.role_tag]))) broken = true;
		prompt = aligned;
		response = [
			{role: tagMapping[String(chosen[attr.role_tag])] ?? '?', content: chosen[attr.content_tag]},
			{role: tagMapping[String(rejected[attr.role_tag])] ?? '?', content: rejected[attr.content_tag]},
		];
	} else {
		// The "normal example" branch: for a ranking dataset this leaves one response, which the processor drops.
		prompt = aligned.slice(0, -1);
		response = aligned.slice(-1);
	}
	if (prompt.length % 2 !== 1 || response.length < 2) return {dropped: `Dropped invalid example (prompt ${prompt.length}, response ${response.length}${broken ? ', broken data' : ''})`};
	return {kept: {prompt, response, system}};
}

/** OpenAI's DPO line: exactly input / preferred_output / non_preferred_output; problems found. */
export function openAiDpoProblems(row: Row): string[] {
	const problems: string[] = [];
	const keys = Object.keys(row).sort().join(',');
	if (keys !== 'input,non_preferred_output,preferred_output') problems.push(`keys ${keys}`);
	const input = row['input'] as {messages?: Message[]} | undefined;
	const messages = input?.messages;
	if (!Array.isArray(messages) || messages.length === 0) problems.push('input.messages is not a non-empty list');
	else {
		if (!messages.every((message) => ['system', 'user', 'assistant'].includes(String(message.role)) && typeof message.content === 'string')) problems.push('a message without a valid role and string content');
		if (messages.at(-1)!.role !== 'user') problems.push('the prompt does not end with a user message');
	}
	for (const key of ['preferred_output', 'non_preferred_output']) {
		const output = row[key] as Message[] | undefined;
		if (!Array.isArray(output) || output.length === 0 || !output.every((message) => message.role === 'assistant' && typeof message.content === 'string')) problems.push(`${key} is not a list of assistant messages`);
	}
	return problems;
}
