import path from 'node:path';
import {summaryOf} from './registry.js';
import {formatPair, llamaFactoryDatasetInfo} from '../export/pairFormats.js';
import {type PreferencePair, preferencePairs} from '../export/pairs.js';
import {type SftExample, type SftFilter, sftExample} from '../export/sft.js';
import {writeFileAtomic} from '../util/atomicWrite.js';
import {ExitCode, UserError} from '../util/errors.js';
import {unknownMessage} from '../util/suggest.js';
import {pairFormat} from './flagValues.js';
import {selectSessions, sessionFilterFlags} from './sessions.js';
import {type Command, type Flags, write, writeJson} from './types.js';

export const exportCommand: Command = {
	name: 'export',
	summary: summaryOf('export'),
	usage: [
		'export sft [--batch NAME] [--region R] [--persona P] [--template T] [--tier T] [--mode gold|eval|any] [--split train|test|any] [--clean] [--min-threeh X] [--min-tdq Y] [--out FILE] [--json]',
		'export pairs [same filters] [--min-margin M] [--format trl|openai-dpo|sharegpt] [--out FILE] [--json]',
	].join('\n    $ cultureconverse '),
	flags: {
		batch: {type: 'string', description: 'Only the sessions of this batch'},
		...sessionFilterFlags,
		mode: {type: 'string', description: 'sft: gold (default: dialogues written with the oracle briefing), eval or any; pairs: any (default), eval or gold'},
		split: {type: 'string', description: 'train (default), test, or any: test-split seeds stay out of training data unless asked'},
		clean: {type: 'boolean', description: 'Only episodes with no tripwire or taboo violated'},
		minThreeh: {type: 'number', description: 'Only episodes whose 3H mean is at least this (1-5)'},
		minTdq: {type: 'number', description: 'Only episodes whose TDQ mean is at least this (1-5)'},
		minMargin: {type: 'number', description: 'pairs: fewest rating points between chosen and rejected (default 1)'},
		format: {type: 'string', description: 'pairs: trl (default: TRL conversational, prompt/chosen/rejected as message lists), openai-dpo (OpenAI DPO JSONL) or sharegpt (LLaMA-Factory ranking data)'},
		includeMock: {type: 'boolean', description: 'Keep offline mock sessions (filler, for trying the pipeline)'},
		out: {type: 'string', description: 'Write the JSONL here (atomically) instead of to stdout'},
		json: {type: 'boolean', description: 'Print the export summary as JSON (with --out)'},
	},
	async run({args, flags, io}) {
		const what = args[0];
		if (what !== 'sft' && what !== 'pairs') throw new UserError(what === undefined ? 'Usage: npx cultureconverse export sft|pairs [filters] [--out FILE]' : unknownMessage('export kind', what, ['sft', 'pairs']));
		const filter = sftFilter(flags, what === 'sft' ? 'gold' : 'any');
		const format = what === 'pairs' ? pairFormat(flags) : 'trl';
		const margin = flags['minMargin'] === undefined ? 1 : flags['minMargin'];
		if (typeof margin !== 'number' || margin < 0 || margin > 4) throw new UserError(`--min-margin must be a number from 0 to 4, got ${String(flags['minMargin'])}.`);
		const {store, chosen} = selectSessions(flags, io);
		const examples: Array<SftExample | PreferencePair | Record<string, unknown>> = [];
		const skipped: Record<string, number> = {};
		// Oldest first, so re-exports of a growing folder append in a stable order.
		for (const row of [...chosen].reverse()) {
			const session = await store.load(row.path);
			const outcome = what === 'sft' ? sftExample(session, filter) : preferencePairs(session, {...filter, minMargin: margin});
			if ('example' in outcome) examples.push(outcome.example);
			else if ('pairs' in outcome) examples.push(...outcome.pairs.map((pair) => (format === 'trl' ? pair : formatPair({prompt: pair.prompt, chosen: pair.chosen[0]!.content, rejected: pair.rejected[0]!.content, extra: {scoreChosen: pair.scoreChosen, scoreRejected: pair.scoreRejected, metadata: pair.metadata}}, format))));
			else skipped[outcome.skip] = (skipped[outcome.skip] ?? 0) + 1;
		}
		const text = examples.map((example) => JSON.stringify(example)).join('\n') + (examples.length > 0 ? '\n' : '');
		const out = typeof flags['out'] === 'string' ? path.resolve(io.cwd, flags['out']) : null;
		const summary = {examples: examples.length, considered: chosen.length, skipped, out, filter};
		if (out) {
			writeFileAtomic(out, text);
			if (flags['json']) writeJson(io, summary);
			else write(io, `Wrote ${examples.length} example(s) to ${out}`);
		} else io.stdout.write(text);
		const reasons = Object.entries(skipped).map(([reason, n]) => `${reason} ${n}`).join(', ');
		const used = chosen.length - Object.values(skipped).reduce((sum, n) => sum + n, 0);
		io.stderr.write(`Exported ${what === 'sft' ? `${examples.length} of ${chosen.length} session(s)` : `${examples.length} pair(s) from ${used} of ${chosen.length} session(s)`}${reasons ? `; left out: ${reasons}` : ''}.\n`);
		if (what === 'pairs' && format === 'sharegpt') io.stderr.write(`LLaMA-Factory: add to data/dataset_info.json: ${JSON.stringify(llamaFactoryDatasetInfo('cultureconverse_pairs', out ? path.basename(out) : 'pairs.jsonl'))}\n`);
		if (what === 'pairs' && examples.length === 0 && skipped['no best-of-N turns']) io.stderr.write('Hint: pairs come from best-of-N episodes (`run` or `batch` with --best-of N).\n');
		if (examples.length === 0 && chosen.length > 0 && filter.mode === 'gold' && skipped['mode eval']) io.stderr.write('Hint: SFT data comes from gold-mode episodes (`batch --mode gold`); --mode any exports eval episodes too.\n');
		return ExitCode.ok;
	},
};

function sftFilter(flags: Flags, defaultMode: SftFilter['mode']): SftFilter {
	const choice = <T extends string>(name: string, options: readonly T[], fallback: T): T => {
		const value = flags[name];
		if (value === undefined) return fallback;
		if (typeof value !== 'string' || !(options as readonly string[]).includes(value)) throw new UserError(`--${name} must be one of ${options.join(', ')}, got '${String(value)}'.`);
		return value as T;
	};
	const score = (name: string, flag: string): number | null => {
		const value = flags[name];
		if (value === undefined) return null;
		if (typeof value !== 'number' || value < 1 || value > 5) throw new UserError(`--${flag} must be a number from 1 to 5, got ${String(value)}.`);
		return value;
	};
	return {
		mode: choice('mode', ['gold', 'eval', 'any'] as const, defaultMode),
		split: choice('split', ['train', 'test', 'any'] as const, 'train'),
		clean: Boolean(flags['clean']),
		minThreeH: score('minThreeh', 'min-threeh'),
		minTdq: score('minTdq', 'min-tdq'),
		includeMock: Boolean(flags['includeMock']),
	};
}
