import {closeSync, constants, existsSync, fstatSync, ftruncateSync, lstatSync, openSync} from 'node:fs';
import path from 'node:path';
import {writeAll, writeFileAtomic} from '../util/atomicWrite.js';
import {formatBytes, readBounded} from '../util/boundedRead.js';
import {UserError} from '../util/errors.js';
import {StorageError, asStorageError} from '../util/storageError.js';
import {ensureDir} from '../util/ensureDir.js';

/*
 * Every append-only JSONL file the tool writes (batch journals, session journals, CRISP items,
 * evaluations and norms) is read and appended through this module, so what a crash or a full disk
 * can leave is handled once:
 *
 * - a last line cut short (kill -9 or a full disk mid-write) is dropped when read;
 * - a cut line that a later run appended after ("{"i":17,"set"{"i":12,...}") is a fragment joined to
 *   a whole record: the fragment is dropped and the record after it kept;
 * - before anything is appended, a file with such damage (or a last line without its newline) is
 *   rewritten atomically with its whole lines only, and what was dropped is said: nothing is ever
 *   appended after a fragment;
 * - every append checks its byte count: a write that fails part-way (ENOSPC) is cut back to the
 *   last whole line, so the file never holds half a record, and is a StorageError; if even that
 *   fails the appender stops taking lines and the next open heals the file;
 * - journals are opened without following symbolic links (one could lead outside the folder).
 *
 * Damage that no crash makes (a line of garbage in the middle: an edit) is an error naming
 * `<file>:<line>`, never skipped silently.
 */

export type JournalLine = {readonly text: string; readonly value: unknown; readonly line: number};

/** A line dropped on reading: cut off at the end, a fragment joined to the next record, or a cut line on its own. */
export type JournalDamage = {readonly line: number; readonly bytes: number; readonly kind: 'cut_tail' | 'joined' | 'cut_line'};

export type JournalRead = {
	readonly lines: readonly JournalLine[];
	readonly damage: readonly JournalDamage[];
	/** Lines after a torn one that were not used ("stop" journals: each line builds on the one before). */
	readonly unused: number;
	/** The file must be rewritten before anything is appended: damage, or a last line without its newline. */
	readonly needsHealing: boolean;
	readonly bytes: number;
};

export type JournalOptions = {
	/** What the file is, for messages: "batch journal", "session journal", "items file". */
	readonly what: string;
	/**
	 * What a torn line in the middle means for the lines after it. `skip`: records stand alone (a
	 * batch's item changes, CRISP records): the later ones are kept. `stop`: each line is a change to
	 * the state before it (a session's patches): nothing after the torn line can be applied, so the
	 * journal ends there (the steps it held run again on resume).
	 */
	readonly afterTorn: 'skip' | 'stop';
	/** Largest file read. */
	readonly maxBytes: number;
	/** Read through a symbolic link (a folder listing); a writer never opens one. */
	readonly followLinks?: boolean;
};

/**
 * True when JSON.parse failed because the text stopped mid-value (what a cut write leaves), not on a
 * character that no JSON has there: the error is "Unexpected end of JSON input", or one found at the
 * very end of the text ("Unterminated string in JSON at position 23" for 23 characters).
 */
function stoppedShort(message: string, text: string): boolean {
	if (message.includes('Unexpected end of JSON input')) return true;
	const at = /at position (\d+)/.exec(message);
	return at !== null && Number(at[1]) >= text.length;
}

function parse(text: string): {ok: true; value: unknown} | {ok: false; cut: boolean} {
	try {
		return {ok: true, value: JSON.parse(text)};
	} catch (error) {
		return {ok: false, cut: text.trimStart().startsWith('{') && stoppedShort((error as Error).message, text)};
	}
}

/**
 * How a record of this file begins (`{"i":`, `{"t":`), from its first whole line: a fragment joined
 * to a record is split where that opening appears again.
 */
function openerOf(rows: readonly string[]): string {
	for (const row of rows) {
		if (!row.startsWith('{"')) continue;
		const colon = row.indexOf('":', 2);
		if (colon > 0 && colon < 64 && parse(row).ok) return row.slice(0, colon + 2);
	}
	return '{"';
}

/** The longest tail of `row` that is a whole record (a fragment joined to the record after it), or null. */
function joinedRecord(row: string, opener: string): {offset: number; value: unknown} | null {
	for (let at = row.indexOf(opener, 1); at > 0; at = row.indexOf(opener, at + 1)) {
		const tail = parse(row.slice(at));
		if (tail.ok) return {offset: at, value: tail.value};
	}
	return null;
}

/** Splits a journal's text into whole records and what a crash or a full disk left of others. */
export function parseJournal(text: string, file: string, options: Pick<JournalOptions, 'afterTorn' | 'what'>): Omit<JournalRead, 'bytes'> {
	const rows = text.split('\n');
	const endsWhole = rows.at(-1) === '';
	const opener = openerOf(rows);
	const lines: JournalLine[] = [];
	const damage: JournalDamage[] = [];
	let unused = 0;
	for (let i = 0; i < rows.length; i++) {
		const row = rows[i]!;
		if (row.trim() === '') continue;
		if (damage.length > 0 && options.afterTorn === 'stop') {
			unused++;
			continue;
		}
		const parsed = parse(row);
		if (parsed.ok) {
			lines.push({text: row, value: parsed.value, line: i + 1});
			continue;
		}
		const bytes = Buffer.byteLength(row);
		if (i === rows.length - 1) {
			// The last line, without its newline: cut off mid-write.
			damage.push({line: i + 1, bytes, kind: 'cut_tail'});
			continue;
		}
		const joined = joinedRecord(row, opener);
		if (joined) {
			damage.push({line: i + 1, bytes: Buffer.byteLength(row.slice(0, joined.offset)), kind: 'joined'});
			// Under `stop`, the record after the fragment was a change to a state the fragment never made.
			if (options.afterTorn === 'skip') lines.push({text: row.slice(joined.offset), value: joined.value, line: i + 1});
			else unused++;
			continue;
		}
		if (parsed.cut) {
			damage.push({line: i + 1, bytes, kind: 'cut_line'});
			continue;
		}
		throw new UserError(`${file}:${i + 1}: not a readable ${options.what} line (not JSON, and not what an interrupted write leaves); the lines before it are intact. Remove or fix that line by hand.`);
	}
	return {lines, damage, unused, needsHealing: damage.length > 0 || (!endsWhole && lines.length > 0)};
}

/** Reads a journal (bounded, its type checked, no links unless `followLinks`); missing: empty. */
export function readJournal(file: string, options: JournalOptions): JournalRead {
	if (!existsSync(file) && !isLink(file)) return {lines: [], damage: [], unused: 0, needsHealing: false, bytes: 0};
	const bytes = readBounded(file, {what: options.what, maxBytes: options.maxBytes, followLinks: options.followLinks});
	return {...parseJournal(bytes.toString('utf8'), file, options), bytes: bytes.byteLength};
}

function isLink(file: string): boolean {
	try {
		return lstatSync(file).isSymbolicLink();
	} catch {
		return false;
	}
}

/** One sentence on what healing dropped (for the caller's notice). */
export function describeDamage(file: string, read: Pick<JournalRead, 'damage' | 'unused' | 'lines'>): string {
	const parts = read.damage.map((one) =>
		one.kind === 'cut_tail'
			? `line ${one.line} (${formatBytes(one.bytes)}, cut off by an interrupted write)`
			: one.kind === 'joined'
				? `the first ${formatBytes(one.bytes)} of line ${one.line} (a cut write that the next one was appended to; the record after it is kept)`
				: `line ${one.line} (${formatBytes(one.bytes)}, cut short)`,
	);
	const unused = read.unused > 0 ? `, and ${read.unused} later line(s) that built on it (their steps run again)` : '';
	return `${file}: dropped ${parts.join(', ')}${unused}; ${read.lines.length} whole line(s) kept`;
}

/**
 * Rewrites a damaged journal atomically with its whole lines only (or leaves a sound one alone).
 * Returns the sentence saying what was dropped, or null when nothing was.
 */
export function healJournal(file: string, read: JournalRead): string | null {
	if (!read.needsHealing) return null;
	writeFileAtomic(file, read.lines.length > 0 ? `${read.lines.map((line) => line.text).join('\n')}\n` : '');
	return read.damage.length > 0 || read.unused > 0 ? describeDamage(file, read) : null;
}

/**
 * Appends whole lines to one journal, through a descriptor held open (one write per line). Opened
 * with O_NOFOLLOW: a journal that is a symbolic link is refused.
 */
export class JournalAppender {
	private fd: number;
	private size: number;
	private broken: StorageError | null = null;

	private constructor(
		readonly file: string,
		fd: number,
	) {
		this.fd = fd;
		this.size = fstatSync(fd).size;
	}

	/**
	 * Opens `file` for appending: a damaged one is healed first (see healJournal; `onHealed` hears what
	 * was dropped). Returns the appender and what the file held. The caller holds the file's lock.
	 */
	static open(file: string, options: JournalOptions & {readonly onHealed?: (message: string) => void}): {appender: JournalAppender; read: JournalRead} {
		ensureDir(path.dirname(file));
		const read = readJournal(file, {...options, followLinks: false});
		const healed = healJournal(file, read);
		if (healed) options.onHealed?.(`healed ${healed}`);
		return {appender: JournalAppender.attach(file), read};
	}

	/** Starts `file` afresh with `first` (written atomically: a reader never meets a journal without its first line). */
	static create(file: string, first: string): JournalAppender {
		writeFileAtomic(file, first.endsWith('\n') ? first : `${first}\n`);
		return JournalAppender.attach(file);
	}

	/** Appends to a journal this process opened (and healed) before, without reading it again. */
	static reopen(file: string): JournalAppender {
		return JournalAppender.attach(file);
	}

	private static attach(file: string): JournalAppender {
		let fd: number;
		try {
			fd = openSync(file, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW, 0o644);
		} catch (error) {
			if ((error as NodeJS.ErrnoException).code === 'ELOOP') throw new UserError(`${file} is a symbolic link; a journal is never written through a link (it could lead outside its folder): replace the link with the file itself.`);
			throw asStorageError(error, file, 'open for appending') ?? error;
		}
		return new JournalAppender(file, fd);
	}

	/** Bytes in the file, as this appender knows it. */
	get bytes(): number {
		return this.size;
	}

	/**
	 * Appends one line (a newline is added when missing). All of it or none: a write that fails
	 * part-way is cut back, and the failure is a StorageError.
	 */
	append(line: string): void {
		if (this.broken) throw this.broken;
		if (this.fd < 0) throw new Error(`${this.file}: the journal is closed`);
		const bytes = Buffer.from(line.endsWith('\n') ? line : `${line}\n`);
		const before = this.size;
		try {
			writeAll(this.fd, bytes);
			this.size += bytes.byteLength;
		} catch (error) {
			const failure = asStorageError(error, this.file, 'append to') ?? new StorageError('EIO', this.file, path.dirname(path.resolve(this.file)), 'append to', error);
			try {
				// Back to the last whole line: the next append (or run) never writes after a fragment.
				ftruncateSync(this.fd, before);
			} catch {
				// Not even that: no more lines through this descriptor; the next open heals the file.
				this.broken = failure;
			}
			throw failure;
		}
	}

	close(): void {
		if (this.fd < 0) return;
		try {
			closeSync(this.fd);
		} finally {
			this.fd = -1;
		}
	}
}
