/**
 * Placeholder for H6b's dialogue and judge figures (the simulated user's disclosures, public copies of
 * private wording, the rubric judge's spread); H6b's version replaces this file at merge.
 */
export async function dialogueFigures(_seedIds: readonly string[]): Promise<Array<[label: string, value: string]>> {
	return [];
}
