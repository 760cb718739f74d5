import {ModelCallError} from '../llm/types.js';
import type {Norm, RejectedRow} from '../domain/situated.js';
import {eachLimited} from '../util/limited.js';
import {type CallContext, extractNorm} from './agents.js';
import {type SourceRow, normFromExtraction} from './normSources.js';
import {type FailureBreaker, breakerFailure} from './run.js';

/*
 * `crisp norms extract`: one norm per source row, appended as each is made, so an interrupted run
 * keeps what it extracted and a rerun continues after it. Rows a model read and found no norm in, and
 * rows that cannot be read, are recorded as rejected (with their line and why) and not asked again; a
 * model call that failed for good is reported and retried by the next run.
 */

export type ExtractInput = {
	readonly rows: readonly SourceRow[];
	/** Norm ids already in the output file (their rows are done). */
	readonly done: ReadonlySet<string>;
	/** `row@line` keys already in the rejected file. */
	readonly rejectedBefore: ReadonlySet<string>;
	readonly parallel: number;
	readonly context: CallContext;
	readonly saveNorm: (norm: Norm) => void;
	readonly saveRejected: (row: RejectedRow) => void;
	/** Stops the extraction after repeated set-up failures; none = never. */
	readonly breaker?: FailureBreaker;
};

export type ExtractResult = {
	/** Norms a model wrote from a question row. */
	readonly extracted: Norm[];
	/** Norms taken as they are (NormAd's rules of thumb, full Norm objects). */
	readonly adopted: Norm[];
	readonly rejected: RejectedRow[];
	/** Rows already done by an earlier run. */
	readonly skipped: number;
	readonly errors: Array<{readonly row: string; readonly line: number; readonly error: string}>;
	readonly stopped: boolean;
};

export const rejectedKey = (row: {readonly row: string; readonly line: number}) => `${row.row}@${row.line}`;

export async function extractNorms(input: ExtractInput): Promise<ExtractResult> {
	const extracted: Norm[] = [];
	const adopted: Norm[] = [];
	const rejected: RejectedRow[] = [];
	const errors: ExtractResult['errors'] = [];
	const breaker = input.breaker;
	const signal = breaker ? (input.context.signal ? AbortSignal.any([input.context.signal, breaker.signal]) : breaker.signal) : input.context.signal;
	let skipped = 0;
	const reject = (entry: RejectedRow) => {
		input.saveRejected(entry);
		rejected.push(entry);
	};
	// Rows sharing a norm id (NormAd stories of one rule) are one norm: the first row makes it.
	const claimed = new Set(input.done);
	const todo: SourceRow[] = [];
	for (const row of input.rows) {
		if (row.kind === 'rejected') {
			if (input.rejectedBefore.has(rejectedKey(row))) skipped++;
			else reject({row: row.row, line: row.line, reason: row.reason, byModel: false});
			continue;
		}
		const id = row.kind === 'direct' ? row.norm.id : row.normId;
		if (input.rejectedBefore.has(rejectedKey(row)) || claimed.has(id)) {
			skipped++;
			continue;
		}
		claimed.add(id);
		if (row.kind === 'direct') {
			input.saveNorm(row.norm);
			adopted.push(row.norm);
		} else todo.push(row);
	}
	await eachLimited(todo, input.parallel, signal, async (row) => {
		if (row.kind !== 'extract') return;
		try {
			const {value} = await extractNorm(row, input.context);
			if (!value.statesNorm) {
				reject({row: row.row, line: row.line, reason: `the model found no norm in it: ${value.norm.trim() || '(no reason given)'}`, byModel: true});
				return;
			}
			const norm = normFromExtraction(row, value);
			input.saveNorm(norm);
			extracted.push(norm);
			breaker?.success();
		} catch (error) {
			if (input.context.signal?.aborted) return;
			if (!(error instanceof ModelCallError) || error.kind === 'aborted') throw error;
			errors.push({row: row.row, line: row.line, error: error.message});
			breaker?.failure(breakerFailure(error, `${row.row}@${row.line}`));
		}
	});
	return {extracted, adopted, rejected, skipped, errors, stopped: Boolean(breaker?.stopped)};
}
