/**
 * Dialogue and judge figures of the offline mock (`npm run bench:mock` prints them; H6a's
 * test/bench/mock.bench.ts imports `dialogueFigures`). Mock episodes run through the real engine,
 * offline (no endpoint, no key: every role on the mock provider), and their sessions are read for:
 * - public-text copies of private wording: a user message after the opening that repeats a run of
 *   five words of the private state or the plan (a shard goal, success or failure condition, the
 *   oracle, a hidden constraint not being disclosed in that message), or carries a shard goal verbatim;
 * - disclosures before their condition: a constraint the simulated user disclosed although the reply
 *   before did not meet its `discloseWhen` condition and it was not the last message;
 * - the spread of the rubric judge's scores (SD per metric) and the share of clean episodes.
 *
 * Run alone: `node --import tsx test/bench/mockDialogue.ts [N]` (N seeds, default 200).
 */
import {mkdtempSync, rmSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {PassThrough} from 'node:stream';
import {pathToFileURL} from 'node:url';
import {createRuntime} from '../../src/app/runtime.js';
import {startEpisode} from '../../src/app/episodes.js';
import type {IO} from '../../src/commands/types.js';
import {METRICS, type LanguageMode, type Session} from '../../src/domain/session.js';
import {disclosureCue, disclosureMet} from '../../src/mock/disclosure.js';
import {wordGrams} from '../../src/mock/words.js';
import {loadUniverse, type Universe} from '../../src/universe/load.js';
import {SeedSpace} from '../../src/universe/seeds.js';

export type DialogueCounts = {
	readonly episodes: number;
	readonly userTurns: number;
	readonly copies: number;
	readonly goalsVerbatim: number;
	readonly disclosures: number;
	readonly early: number;
	readonly scores: Readonly<Record<string, number[]>>;
	/** The same scores by language mode: the English and the native baseline differ, so each mode's own spread is shown too. */
	readonly byLanguage: Readonly<Record<LanguageMode, Readonly<Record<string, number[]>>>>;
	readonly clean: number;
	readonly failed: number;
};

/** The private texts a public user message must not repeat, with the hidden constraints apart (they may come out when disclosed). */
function privateTexts(session: Session): {fixed: string[]; goals: string[]; constraints: string[]} {
	const blueprint = session.blueprint!;
	const shards = session.shards ?? [];
	const oracle = blueprint.oracle;
	return {
		fixed: [blueprint.private.identity, blueprint.private.style, ...shards.flatMap((shard) => [shard.goal, shard.successCondition, shard.failureCondition, ...shard.directives.english.split(/(?<=\.)\s/)]), ...oracle.successCriteria, ...oracle.failureCriteria, ...oracle.taboos.map((taboo) => taboo.description), ...oracle.tripwires.map((tripwire) => tripwire.description), ...(oracle.friction ? [oracle.friction] : [])],
		goals: shards.map((shard) => shard.goal.trim().replace(/[.!?]+$/, '')),
		constraints: blueprint.private.hiddenConstraints.map((item) => item.constraint),
	};
}

/** Counts over one finished session (pure: reads the session only). */
export function countSession(session: Session): Omit<DialogueCounts, 'episodes' | 'scores' | 'byLanguage' | 'clean' | 'failed'> {
	const texts = privateTexts(session);
	const hidden = session.blueprint!.private.hiddenConstraints;
	let copies = 0;
	let goalsVerbatim = 0;
	let disclosures = 0;
	let early = 0;
	const users = session.turns.filter((turn) => turn.role === 'user' && turn.t > 0);
	for (const turn of users) {
		const disclosed = [...(turn.assessment?.reasoning.matchAll(/\bdiscloses H(\d+)\b/g) ?? [])].map((match) => Number(match[1]) - 1);
		const allowed = new Set(disclosed.map((index) => hidden[index]?.constraint));
		const lower = turn.content.toLowerCase();
		if (texts.goals.some((goal) => goal.length > 0 && lower.includes(goal.toLowerCase()))) goalsVerbatim++;
		// Five-word runs the message may repeat: what is already public (the opener, the assistant's replies) and what it discloses now.
		const open = new Set([...session.turns.filter((other) => other.index < turn.index && (other.role === 'assistant' || other.t === 0)).map((other) => other.content), ...allowed].flatMap((text) => [...wordGrams(text ?? '', 5)]));
		const grams = [...wordGrams(turn.content, 5)].filter((gram) => !open.has(gram));
		const secret = new Set([...texts.fixed, ...texts.constraints.filter((text) => !allowed.has(text))].flatMap((text) => [...wordGrams(text, 5)]));
		if (grams.some((gram) => secret.has(gram))) copies++;
		for (const index of disclosed) {
			disclosures++;
			const item = hidden[index];
			const reply = session.turns.filter((other) => other.role === 'assistant' && other.index < turn.index).at(-1)?.content ?? '';
			const last = turn.t >= session.config.maxTurns - 1;
			if (item && !last && !disclosureMet(disclosureCue(item.discloseWhen), reply, item.constraint)) early++;
		}
	}
	return {userTurns: users.length, copies, goalsVerbatim, disclosures, early};
}

/** Runs the seeds' mock episodes (English, and native for every other seed) and counts. */
export async function runMockEpisodes(seedIds: readonly string[], options: {universe?: Universe; languages?: (index: number) => LanguageMode} = {}): Promise<{counts: DialogueCounts; sessions: Session[]}> {
	const universe = options.universe ?? loadUniverse();
	const cwd = mkdtempSync(path.join(tmpdir(), 'cc-mock-dialogue-'));
	const io: IO = {stdout: new PassThrough(), stderr: new PassThrough(), stdin: new PassThrough(), env: {CULTURECONVERSE_HOME: path.join(cwd, 'home'), CULTURECONVERSE_EMBEDDER: 'hash'}, cwd};
	const runtime = createRuntime({options: {sessionsDir: path.join(cwd, 'sessions')}, io, universe, quiet: true});
	const space = new SeedSpace(universe);
	const sessions: Session[] = [];
	const scores: Record<string, number[]> = Object.fromEntries(METRICS.map((metric) => [metric, []]));
	const byLanguage: Record<LanguageMode, Record<string, number[]>> = {english: Object.fromEntries(METRICS.map((metric) => [metric, []])), native: Object.fromEntries(METRICS.map((metric) => [metric, []]))};
	let clean = 0;
	let failed = 0;
	const totals = {userTurns: 0, copies: 0, goalsVerbatim: 0, disclosures: 0, early: 0};
	try {
		for (const [index, id] of seedIds.entries()) {
			const language = options.languages?.(index) ?? (index % 2 === 0 ? 'english' : 'native');
			const engine = await startEpisode(runtime, space.get(id), {language});
			await engine.runToEnd();
			const session = engine.session;
			if (session.status !== 'completed' || !session.judge) {
				failed++;
				continue;
			}
			sessions.push(session);
			for (const metric of METRICS) {
				const score = session.judge.scores[metric];
				if (score === null) continue;
				scores[metric]!.push(score);
				byLanguage[language][metric]!.push(score);
			}
			if (session.judge.clean) clean++;
			const counts = countSession(session);
			for (const key of Object.keys(totals) as Array<keyof typeof totals>) totals[key] += counts[key];
		}
	} finally {
		rmSync(cwd, {recursive: true, force: true});
	}
	return {counts: {episodes: sessions.length, ...totals, scores, byLanguage, clean, failed}, sessions};
}

export function sd(values: readonly number[]): number {
	if (values.length < 2) return 0;
	const mean = values.reduce((sum, value) => sum + value, 0) / values.length;
	return Math.sqrt(values.reduce((sum, value) => sum + (value - mean) ** 2, 0) / (values.length - 1));
}

/** The figure rows from counts. */
export function figureRows(counts: DialogueCounts, seconds: number): Array<[label: string, value: string]> {
	const per1000 = (n: number) => (counts.userTurns > 0 ? ((n * 1000) / counts.userTurns).toFixed(1) : 'n/a');
	return [
		['mock episodes (English and native alternating)', `${counts.episodes} judged${counts.failed > 0 ? `, ${counts.failed} not completed` : ''} in ${seconds.toFixed(1)} s`],
		['simulated user turns after the opening', String(counts.userTurns)],
		['public-text copies of private wording (5-gram or goal)', `${counts.copies} (${per1000(counts.copies)} per 1,000 turns)`],
		['shard goals verbatim in the chat', `${counts.goalsVerbatim} (${per1000(counts.goalsVerbatim)} per 1,000 turns)`],
		['disclosures / before their condition', `${counts.disclosures} / ${counts.early}`],
		...METRICS.map((metric): [string, string] => {
			const values = counts.scores[metric] ?? [];
			const mean = values.length > 0 ? values.reduce((sum, value) => sum + value, 0) / values.length : 0;
			const modes = (['english', 'native'] as const).map((mode) => `${mode} ${sd(counts.byLanguage[mode][metric] ?? []).toFixed(2)}`).join(', ');
			return [`rubric judge ${metric}: SD (mean; SD by mode)`, `${sd(values).toFixed(2)} (${mean.toFixed(2)}; ${modes})`];
		}),
		['rubric judge: share clean', counts.episodes > 0 ? `${((counts.clean / counts.episodes) * 100).toFixed(1)}%` : 'n/a'],
	];
}

/**
 * The rows bench:mock prints for these seeds (English and native alternating). A whole episode costs
 * far more than a blueprint, so a long list is cut to an evenly spaced subset of BENCH_MOCK_EPISODES
 * seeds (default 600, about a minute); the first row names the n.
 */
export async function dialogueFigures(seedIds: readonly string[]): Promise<Array<[label: string, value: string]>> {
	const limit = Math.max(1, Number(process.env['BENCH_MOCK_EPISODES'] ?? 600) || 600);
	const step = seedIds.length / limit;
	const chosen = seedIds.length <= limit ? seedIds : Array.from({length: limit}, (_, index) => seedIds[Math.floor(index * step)]!);
	const started = performance.now();
	const {counts} = await runMockEpisodes(chosen);
	const rows = figureRows(counts, (performance.now() - started) / 1000);
	if (chosen.length < seedIds.length) rows[0] = [rows[0]![0], `${rows[0]![1]} (an evenly spaced ${chosen.length} of the ${seedIds.length} seeds; BENCH_MOCK_EPISODES sets the n)`];
	return rows;
}

/** Every `step`-th seed of the whole space, offset by a hash-free stride, for a spread over personas and templates. */
export function spreadSeeds(universe: Universe, n: number, offset = 0): string[] {
	const ids = [...new SeedSpace(universe).ids()];
	const step = Math.max(1, Math.floor(ids.length / n));
	return Array.from({length: Math.min(n, ids.length)}, (_, index) => ids[(offset + index * step + index * 7) % ids.length]!);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
	const n = Number(process.argv[2] ?? 200);
	const universe = loadUniverse();
	const rows = await dialogueFigures(spreadSeeds(universe, n));
	for (const [label, value] of rows) console.log(`${label.padEnd(58)} ${value}`);
}
