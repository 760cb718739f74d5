import {createRequire} from 'node:module';
import path from 'node:path';
import type * as Vectra from 'vectra';

/*
 * The three Vectra classes this tool uses, loaded from their own files. Vectra's entry point loads
 * everything it has: a gRPC server, cheerio and turndown for web pages, wink's NLP model, a GPT-3
 * tokenizer. Measured on Node 20 here: 786 ms of CPU for `require('vectra')` against 130 ms for
 * LocalIndex (which brings ItemSelector, its storage and codecs). The package's export map only
 * offers the entry point, so the files are required by path from the package's own folder.
 */
const require = createRequire(import.meta.url);
const lib = path.dirname(require.resolve('vectra'));

// LocalIndex.js also loads wink's NLP model and BM25 at the top, for keyword queries
// (`queryItems(..., isBm25=true)`), which this tool never makes: it ranks with its own BM25
// (bm25.ts). Loading them cost another 120 ms (61 ms for LocalIndex without them, 184 ms with).
// Stand-ins are put in the module cache first; they throw if anything ever calls them.
const fromVectra = createRequire(path.join(lib, 'LocalIndex.js'));
for (const name of ['wink-nlp', 'wink-eng-lite-web-model', 'wink-bm25-text-search']) {
	const file = fromVectra.resolve(name);
	require.cache[file] ??= {
		id: file,
		filename: file,
		loaded: true,
		exports: () => {
			throw new Error(`cultureconverse does not load ${name}: Vectra's keyword (BM25) queries are not used; src/kb/bm25.ts ranks keywords`);
		},
	} as unknown as NodeJS.Module;
}

export const {LocalIndex} = require(path.join(lib, 'LocalIndex.js')) as Pick<typeof Vectra, 'LocalIndex'>;
export const {ItemSelector} = require(path.join(lib, 'ItemSelector.js')) as Pick<typeof Vectra, 'ItemSelector'>;
export const {LocalFileStorage} = require(path.join(lib, 'storage', 'LocalFileStorage.js')) as Pick<typeof Vectra, 'LocalFileStorage'>;
