import {seedFromChoice} from '../app/episodes.js';
import type {Runtime} from '../app/runtime.js';
import type {Seed} from '../domain/seed.js';
import {AssistantKind, JudgeMode, LanguageMode} from '../domain/session.js';
import type {EpisodeOptions} from '../episode/createSession.js';
import {UserError} from '../util/errors.js';
import type {Flags} from './types.js';

/** Resolves `--seed ID` or `--persona ID --template ID` (with an optional `--tier` override). */
export function seedFromFlags(runtime: Pick<Runtime, 'universe'>, flags: Flags): Seed {
	const text = (name: string) => (typeof flags[name] === 'string' ? (flags[name] as string) : undefined);
	const tier = flags['tier'];
	return seedFromChoice(runtime, {seed: text('seed'), persona: text('persona'), template: text('template'), tier: tier === undefined ? undefined : String(tier)});
}

/** Episode options from flags, validated with the session schema's own enums. */
export function episodeOptionsFromFlags(flags: Flags): EpisodeOptions {
	const language = LanguageMode.safeParse(flags['lang'] ?? 'english');
	if (!language.success) throw new UserError(`--lang must be english or native, got '${String(flags['lang'])}'.`);
	const mode = flags['mode'] ?? 'eval';
	if (mode !== 'eval' && mode !== 'gold') throw new UserError(`--mode must be eval or gold, got '${String(mode)}'.`);
	let assistant: AssistantKind = mode === 'gold' ? 'gold' : 'llm';
	if (flags['human']) {
		if (mode === 'gold') throw new UserError('--human and --mode gold do not go together: a person plays the assistant without the oracle briefing.');
		assistant = 'human';
	}
	if (typeof flags['replayFrom'] === 'string') assistant = AssistantKind.parse('replay');
	const judgeMode = JudgeMode.safeParse(flags['judgeMode'] ?? 'separate');
	if (!judgeMode.success) throw new UserError(`--judge-mode must be separate or combined, got '${String(flags['judgeMode'])}'.`);
	const bestOf = flags['bestOf'] === undefined ? null : Number(flags['bestOf']);
	if (bestOf !== null && (!Number.isInteger(bestOf) || bestOf < 2 || bestOf > 16)) throw new UserError(`--best-of must be a whole number from 2 to 16, got '${String(flags['bestOf'])}'.`);
	if (bestOf !== null && (assistant === 'human' || assistant === 'replay')) throw new UserError(`--best-of samples the model under test; it does not go with ${assistant === 'human' ? '--human' : '--replay-from'}.`);
	const maxTurns = Number(flags['maxTurns'] ?? 5);
	if (!Number.isInteger(maxTurns) || maxTurns < 1 || maxTurns > 20) throw new UserError(`--max-turns must be a whole number from 1 to 20, got '${String(flags['maxTurns'])}'.`);
	if (flags['reveal'] && assistant !== 'human') throw new UserError('--reveal shows hidden state to a person playing the assistant; it goes with --human only.');
	return {language: language.data, assistant, judgeMode: judgeMode.data, maxTurns, replayFrom: typeof flags['replayFrom'] === 'string' ? flags['replayFrom'] : null, bestOf, ...(flags['reveal'] ? {reveal: true} : {})};
}
