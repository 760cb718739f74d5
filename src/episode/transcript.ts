import type {Turn} from '../domain/session.js';

/**
 * The role flip, in one place: the simulator reads the dialogue from the user's side, so its own
 * messages are "YOU" and the assistant's are "ASSISTANT". Rendering the dialogue as labelled text
 * (rather than swapping chat roles) keeps the request valid for servers whose chat templates demand
 * strict user/assistant alternation.
 */
export function transcriptForSimulator(turns: readonly Pick<Turn, 'role' | 'content' | 'closing'>[]): string {
	const lines = turns.filter((turn) => !turn.closing).map((turn) => `${turn.role === 'user' ? 'YOU' : 'ASSISTANT'}: ${turn.content}`);
	return lines.length > 0 ? lines.join('\n\n') : '(nothing yet)';
}

/** The full transcript for the judge, closing messages included and numbered by turn. */
export function transcriptForJudge(turns: readonly Pick<Turn, 'role' | 'content' | 't' | 'closing'>[]): string {
	if (turns.length === 0) return '(empty)';
	return turns.map((turn) => `[${turn.role === 'user' ? `USER t=${turn.t}` : `ASSISTANT t=${turn.t}`}${turn.closing ? ', closing' : ''}] ${turn.content}`).join('\n\n');
}
