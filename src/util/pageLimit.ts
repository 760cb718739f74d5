import {writeFileAtomic} from './atomicWrite.js';
import {formatBytes} from './boundedRead.js';
import {UserError} from './errors.js';

/**
 * Largest HTML page written: 128 MB. A browser struggles long before that; past about 512 MB a
 * JavaScript string cannot even hold the page (a report over 50 MB replies once failed with
 * "Invalid string length"). With the reply-size limits a page is far smaller; this is the backstop.
 */
export const MAX_PAGE_BYTES = 128 * 1024 * 1024;

/** Builds a page and writes it atomically, or says which page is too large and the limit, writing nothing. */
export function writePage(file: string, build: () => string, hint = 'choose fewer sessions (a batch, filters)'): number {
	let html: string;
	try {
		html = build();
	} catch (error) {
		if (error instanceof RangeError && /Invalid string length/.test(error.message)) throw new UserError(`${file}: the page grew past what a string can hold, far over the page limit of ${formatBytes(MAX_PAGE_BYTES)}; nothing was written (${hint}).`);
		throw error;
	}
	const bytes = Buffer.byteLength(html);
	if (bytes > MAX_PAGE_BYTES) throw new UserError(`${file}: the page would be ${formatBytes(bytes)}, over the page limit of ${formatBytes(MAX_PAGE_BYTES)}; nothing was written (${hint}).`);
	writeFileAtomic(file, html);
	return bytes;
}
