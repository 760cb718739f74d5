import type {SituatedItem} from '../../domain/situated.js';

/** One line per built item in the TUI list: status, id, rounds and the router's path. */
export function itemRow(item: SituatedItem): string {
	const path = item.rounds.map((round) => (round.decision === 'revise-question' ? 'revise' : round.decision === 'rerun-answer' ? 'rerun' : 'keep')).join('→') || '–';
	return `${item.status.padEnd(9)}  ${item.id.padEnd(30)}  ${String(item.rounds.length).padStart(2)} round(s)  ${path}  ${item.culture}`;
}

/** Counts by status, for the list's title. */
export function itemCounts(items: readonly SituatedItem[]): string {
	const count = (status: SituatedItem['status']) => items.filter((item) => item.status === status).length;
	return `${count('kept')} kept · ${count('discarded')} discarded · ${count('failed')} failed`;
}
