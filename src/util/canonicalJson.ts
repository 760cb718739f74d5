/**
 * JSON with object keys sorted and undefined fields left out, so two values that are equal compare
 * equal as text whatever order their keys were built or read in (settings of a batch built from
 * flags against the same settings read back from its manifest). Array order is kept: it means something.
 */
export function canonicalJson(value: unknown): string {
	return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
	if (Array.isArray(value)) return value.map(sortKeys);
	if (value && typeof value === 'object') {
		const out: Record<string, unknown> = {};
		for (const key of Object.keys(value).sort()) {
			const item = (value as Record<string, unknown>)[key];
			if (item !== undefined) out[key] = sortKeys(item);
		}
		return out;
	}
	return value;
}
