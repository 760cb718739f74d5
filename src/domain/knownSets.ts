import {z} from 'zod';

/*
 * Per-call schema pieces for values that can only be one of a set known when the call is made (the
 * oracle's tripwire and taboo ids, the evidence ids a blueprint may cite, the candidates a rater
 * scores). Sent as JSON schema `enum`s, so a server that decodes by grammar (llama.cpp, vLLM, OpenAI
 * strict) cannot write anything else; every other server's reply is still validated by the same
 * schema and re-asked with the problems.
 */

/**
 * A string that must be one of `ids`, or null when there are none (the caller then allows no value at
 * all). `problem` words the re-ask for a value outside the set (default: zod's "expected one of").
 */
export function oneOf(ids: readonly string[], problem?: (value: unknown) => string): z.ZodType<string> | null {
	const unique = [...new Set(ids)];
	if (unique.length === 0) return null;
	return problem ? z.enum(unique as [string, ...string[]], {error: (issue) => problem(issue.input)}) : z.enum(unique as [string, ...string[]]);
}

/** A whole number from 1 to `count` (candidate numbers as the prompt shows them), as an enum. */
export function numberFrom1To(count: number): z.ZodType<number> {
	if (!Number.isInteger(count) || count < 1) throw new Error(`numberFrom1To needs a positive count (got ${count})`);
	return z.literal(Array.from({length: count}, (_, i) => i + 1) as [number, ...number[]]);
}
