/**
 * Thinking text that servers leave in `content`, and how to take it out.
 *
 * - Qwen3 / DeepSeek-R1 served by vLLM without `--reasoning-parser`, by llama.cpp with
 *   `--reasoning-format none`, or by older Ollama, put `<think>...</think>` before the answer.
 * - DeepSeek-R1 distills open the block in their chat template, so the reply holds only the
 *   closing tag: `...reasoning...</think>answer`.
 * - A reply cut off by the token cap can end inside an unclosed block.
 * - gpt-oss in raw harmony format marks channels: `<|channel|>analysis<|message|>...` before
 *   `<|channel|>final<|message|>answer`.
 * - Gemini's OpenAI compatibility with thought summaries on (`include_thoughts`) wraps them in
 *   `<thought>...</thought>` ahead of the answer (ai.google.dev/gemini-api/docs/openai).
 *
 * Everything removed is returned as `reasoning`, so it can be kept on the call record and never
 * reaches transcripts, the simulator, the judge, exports or JSON extraction.
 */

const TAGS = ['think', 'thinking', 'thought', 'reasoning'] as const;
const OPEN = new RegExp(`<(${TAGS.join('|')})>`, 'i');
const BLOCK = new RegExp(`<(${TAGS.join('|')})>([\\s\\S]*?)</\\1>`, 'gi');
const CLOSE_ONLY = new RegExp(`^([\\s\\S]*?)</(${TAGS.join('|')})>`, 'i');
const OPENING_TAGS = TAGS.map((tag) => `<${tag}>`);
const LEADING_OPEN = new RegExp(`^<(${TAGS.join('|')})>`, 'i');
const HARMONY_FINAL = '<|channel|>final<|message|>';

export type SplitReply = {
	/** The reply with every thinking block removed (trimmed at the start, where the blocks were). */
	readonly content: string;
	/** What was removed, blocks joined by a blank line; null when there was none. */
	readonly reasoning: string | null;
};

/** Separates thinking from answer in one complete reply (idempotent: a clean reply comes back unchanged). */
export function splitReasoning(text: string): SplitReply {
	const parts: string[] = [];
	let rest = text;
	const harmony = rest.lastIndexOf(HARMONY_FINAL);
	if (harmony !== -1) {
		parts.push(stripHarmony(rest.slice(0, harmony)));
		rest = rest.slice(harmony + HARMONY_FINAL.length).replace(/<\|(?:end|return)\|>\s*$/, '');
	}
	// A closing tag with no opening one before it: the template opened the block (R1 distills).
	const closeOnly = CLOSE_ONLY.exec(rest);
	if (closeOnly && !OPEN.test(closeOnly[1]!)) {
		parts.push(closeOnly[1]!);
		rest = rest.slice(closeOnly[0].length);
	}
	rest = rest.replace(BLOCK, (_whole, _tag: string, inner: string) => {
		parts.push(inner);
		return '';
	});
	// An opening tag left without its close: the reply was cut off while thinking.
	const dangling = OPEN.exec(rest);
	if (dangling) {
		parts.push(rest.slice(dangling.index + dangling[0].length));
		rest = rest.slice(0, dangling.index);
	}
	const reasoning = parts.map((part) => part.trim()).filter((part) => part.length > 0);
	if (parts.length === 0) return {content: text, reasoning: null};
	return {content: rest.replace(/^\s+/, ''), reasoning: reasoning.length > 0 ? reasoning.join('\n\n') : null};
}

function stripHarmony(text: string): string {
	return text.replace(/<\|[a-z_]+\|>/g, ' ').replace(/\b(?:analysis|commentary)\b/g, '').trim();
}

/** Joins reasoning from several places (a server field and stripped blocks), skipping empty ones. */
export function joinReasoning(...parts: ReadonlyArray<string | null | undefined>): string | null {
	const kept = parts.map((part) => part?.trim() ?? '').filter((part) => part.length > 0);
	return kept.length > 0 ? kept.join('\n\n') : null;
}

/**
 * Routes streamed content deltas: text inside a leading thinking block goes to `onReasoning`, the
 * answer to `onContent`. Only a block at the very start is recognised while streaming (the usual
 * case); the complete reply is split again by `splitReasoning` when the stream ends, which also
 * catches a close-only block, so what the transcript keeps is always clean.
 */
export function reasoningStreamSplitter(handlers: {onContent: (delta: string) => void; onReasoning?: (delta: string) => void}): (delta: string) => void {
	let state: 'start' | 'thinking' | 'answer' = 'start';
	let buffer = '';
	let closeTag = '';
	return (delta) => {
		buffer += delta;
		for (;;) {
			if (state === 'start') {
				const trimmed = buffer.replace(/^\s+/, '');
				const open = LEADING_OPEN.exec(trimmed);
				if (open) {
					state = 'thinking';
					closeTag = `</${open[1]!.toLowerCase()}>`;
					buffer = trimmed.slice(open[0].length);
					continue;
				}
				// Undecided while the text could still grow into an opening tag.
				const lower = trimmed.toLowerCase();
				if (lower.length === 0 || OPENING_TAGS.some((tag) => tag.startsWith(lower))) return;
				state = 'answer';
				buffer = trimmed;
				continue;
			}
			if (state === 'thinking') {
				const end = buffer.toLowerCase().indexOf(closeTag);
				if (end === -1) {
					// Keep a possible partial closing tag in the buffer.
					const keep = Math.min(buffer.length, closeTag.length - 1);
					const out = buffer.slice(0, buffer.length - keep);
					if (out) handlers.onReasoning?.(out);
					buffer = buffer.slice(buffer.length - keep);
					return;
				}
				if (end > 0) handlers.onReasoning?.(buffer.slice(0, end));
				buffer = buffer.slice(end + closeTag.length).replace(/^\s+/, '');
				state = 'start';
				continue;
			}
			if (buffer) handlers.onContent(buffer);
			buffer = '';
			return;
		}
	};
}
