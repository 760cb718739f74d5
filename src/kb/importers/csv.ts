/**
 * An RFC 4180 CSV reader: quoted fields may hold commas, doubled quotes and line breaks (NormAd's
 * Background column is multi-line Markdown). Each record remembers the line it starts on, so a bad
 * row is reported as file:line. No dependency: the format is small and the edge cases are few.
 */

export type CsvRecord = {
	/** 1-based line where the record starts. */
	line: number;
	fields: string[];
	/** Set when the record is malformed (e.g. a quote never closed); fields are then best effort. */
	error?: string;
};

export function parseCsv(text: string): CsvRecord[] {
	const records: CsvRecord[] = [];
	let i = text.charCodeAt(0) === 0xfeff ? 1 : 0;
	let line = 1;
	const n = text.length;
	while (i < n) {
		const start = line;
		const fields: string[] = [];
		let error: string | undefined;
		// One record: fields until an unquoted line break or the end of the text.
		for (;;) {
			let field = '';
			if (text[i] === '"') {
				const opened = line;
				i++;
				let closed = false;
				while (i < n) {
					const char = text[i]!;
					if (char === '"') {
						if (text[i + 1] === '"') {
							field += '"';
							i += 2;
							continue;
						}
						i++;
						closed = true;
						break;
					}
					if (char === '\n') line++;
					field += char;
					i++;
				}
				if (!closed) error = `quoted field opened on line ${opened} is never closed`;
				// Text between a closing quote and the next separator is kept rather than lost.
				while (i < n && text[i] !== ',' && text[i] !== '\n' && text[i] !== '\r') {
					if (!error) error = 'characters after a closing quote';
					field += text[i];
					i++;
				}
			} else {
				while (i < n && text[i] !== ',' && text[i] !== '\n' && text[i] !== '\r') {
					field += text[i];
					i++;
				}
			}
			fields.push(field);
			if (i < n && text[i] === ',') {
				i++;
				continue;
			}
			break;
		}
		if (text[i] === '\r') i++;
		if (text[i] === '\n') {
			i++;
			line++;
		}
		// A blank line is no record (a trailing newline at the end of the file is common).
		if (fields.length === 1 && fields[0] === '' && !error) continue;
		records.push(error ? {line: start, fields, error} : {line: start, fields});
	}
	return records;
}
