import {existsSync} from 'node:fs';
import path from 'node:path';
import {type Rating, RatingsError, parseRatings} from '../domain/ratings.js';
import type {Metric} from '../domain/session.js';
import {writeFileAtomic} from '../util/atomicWrite.js';
import {readBoundedText} from '../util/boundedRead.js';
import {UserError} from '../util/errors.js';

/*
 * Human ratings made in the TUI, in the JSONL format `report agreement --ratings` reads
 * (`schema human-rating`). Rating a session again replaces that rater's earlier scores for it, so the
 * file never holds two ratings of one metric by one rater (which readRatings rejects). The file is
 * rewritten atomically; a file that does not parse is left exactly as it is and the error shown.
 */

/** Reads a ratings file (JSONL, or CSV by its name), naming file and line of anything malformed. */
export function readRatings(file: string): Rating[] {
	if (!existsSync(file)) throw new UserError(`File not found: ${file}`);
	try {
		// Bounded and type-checked: a folder, a FIFO or /dev/zero named as the ratings file is a clear error.
		return parseRatings(readBoundedText(file, {what: 'ratings file', maxBytes: 256 * 1024 * 1024, followLinks: true}), file);
	} catch (error) {
		if (error instanceof RatingsError) throw new UserError(error.message);
		throw error;
	}
}

export const ratingsFile = (sessionsDir: string) => path.join(sessionsDir, 'ratings.jsonl');

export type Scores = Partial<Record<Metric, number>>;

/** This rater's current scores for the session (empty when none, or no file yet). */
export function ratingsOf(file: string, session: string, rater: string): Scores {
	if (!existsSync(file)) return {};
	const scores: Scores = {};
	for (const rating of readRatings(file)) if (rating.session === session && rating.rater === rater) scores[rating.metric] = rating.score;
	return scores;
}

/** Replaces the rater's scores for the session with `scores` (metrics left out are removed). */
export function saveRatings(file: string, session: string, rater: string, scores: Scores): number {
	const kept = existsSync(file) ? readRatings(file).filter((rating) => !(rating.session === session && rating.rater === rater)) : [];
	const added: Rating[] = Object.entries(scores)
		.filter((entry): entry is [Metric, number] => typeof entry[1] === 'number')
		.map(([metric, score]) => ({session, metric, score, rater}));
	const lines = [...kept, ...added].map((rating) => JSON.stringify({session: rating.session, metric: rating.metric, score: rating.score, rater: rating.rater}));
	writeFileAtomic(file, lines.length > 0 ? `${lines.join('\n')}\n` : '');
	return added.length;
}
