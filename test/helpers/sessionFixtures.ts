import {mkdirSync, readdirSync, readFileSync, writeFileSync} from 'node:fs';
import path from 'node:path';
import type {BatchManifest} from '../../src/domain/batch.js';
import {METRICS, type Metric, type ModelRole, type Session} from '../../src/domain/session.js';
import {makeSeed} from '../../src/universe/seeds.js';
import {runCli} from './cli.js';
import {sharedUniverse} from './episodeHarness.js';

/*
 * Session files for report tests, made the way a user's are: one offline episode through the CLI, then
 * copies of it with the fields a test is about (seed, scores, setup, status) changed, written as
 * ordinary session files that the CLI reads back. The copies look like real-model sessions unless a
 * test says which roles ran on the mock.
 */

/** One offline episode, run through the CLI in `dir` (its sessions/ folder); returns the saved session. */
export async function baseSession(dir: string, env: NodeJS.ProcessEnv): Promise<Session> {
	const ran = await runCli(['batch', '--name', 'base', '--sample', '1', '--json', '--sessions-dir', path.join(dir, 'base-sessions')], {cwd: dir, env});
	if (ran.code !== 0) throw new Error(ran.stderr);
	const file = readdirSync(path.join(dir, 'base-sessions')).find((name) => name.endsWith('.json'))!;
	return JSON.parse(readFileSync(path.join(dir, 'base-sessions', file), 'utf8')) as Session;
}

export type FixturePatch = {
	readonly id: string;
	readonly persona?: string;
	readonly template?: string;
	readonly tier?: 'standard' | 'contextual' | 'normative';
	readonly language?: 'english' | 'native';
	readonly mode?: 'eval' | 'gold';
	readonly trial?: number;
	/** Six scores in METRICS order, or one number for all six; null for no judgement. */
	readonly scores?: readonly (number | null)[] | number | null;
	readonly clean?: boolean | null;
	readonly status?: Session['status'];
	readonly errorFlag?: 'JUDGE_ERROR' | 'SIMULATOR_ERROR' | 'ASSISTANT_ERROR' | 'GENERATION_ERROR';
	readonly assistantModel?: string;
	readonly judgeModel?: string;
	readonly judgeMode?: 'separate' | 'combined';
	readonly maxTurns?: number;
	readonly bestOf?: number;
	readonly mockRoles?: readonly ModelRole[];
	readonly createdAt?: string;
	readonly rejudgeOf?: string;
	readonly rejudgeRepeat?: number;
	/** Sessions with the same key share one blueprint (and so one blueprint id); default: their own. */
	readonly blueprintKey?: string;
};

const ROLES: ModelRole[] = ['generator', 'validator', 'simulator', 'assistant', 'judge'];

export function fixture(base: Session, patch: FixturePatch): Session {
	const universe = sharedUniverse();
	const persona = universe.personaById.get(patch.persona ?? base.persona.id)!;
	const template = universe.templateById.get(patch.template ?? base.template.id)!;
	if (!persona || !template) throw new Error(`unknown persona or template in fixture ${patch.id}`);
	const seed = {...makeSeed(persona, template), ...(patch.tier ? {tier: patch.tier} : {})};
	const session = structuredClone(base);
	const models: Record<string, string> = {generator: 'gen-model', validator: 'val-model', simulator: 'sim-model', assistant: patch.assistantModel ?? 'model-a', judge: patch.judgeModel ?? 'judge-1'};
	const mockRoles = new Set(patch.mockRoles ?? []);
	for (const role of ROLES) {
		const mock = mockRoles.has(role);
		session.config.roles[role] = {...session.config.roles[role], provider: mock ? 'mock' : 'openai', model: mock ? 'mock' : models[role]!, baseURL: mock ? null : 'http://127.0.0.1:9/v1'};
		session.config.models[role] = mock ? 'mock' : models[role]!;
	}
	const raw = patch.scores === undefined ? 4 : patch.scores;
	const scores = raw === null ? null : typeof raw === 'number' ? METRICS.map(() => raw) : raw;
	const byMetric = scores ? (Object.fromEntries(METRICS.map((metric, i) => [metric, scores[i] ?? null])) as Record<Metric, number | null>) : null;
	const mean = (values: Array<number | null>) => (values.every((v) => v !== null) ? (values as number[]).reduce((a, b) => a + b, 0) / values.length : null);
	const status = patch.status ?? (patch.errorFlag ? 'error' : 'completed');
	Object.assign(session, {
		id: patch.id,
		createdAt: patch.createdAt ?? base.createdAt,
		updatedAt: patch.createdAt ?? base.updatedAt,
		status,
		seed,
		persona,
		// The session keeps the template's fields as the schema has them (the universe's carry more).
		template: Object.fromEntries(Object.keys(base.template).map((key) => [key, (template as unknown as Record<string, unknown>)[key]])),
		error: patch.errorFlag ? {flag: patch.errorFlag, message: 'fixture error', step: 1} : null,
	});
	session.config = {
		...session.config,
		mock: mockRoles.size > 0,
		language: patch.language ?? 'english',
		mode: patch.mode ?? 'eval',
		judgeMode: patch.judgeMode ?? 'separate',
		maxTurns: patch.maxTurns ?? 5,
		...(patch.bestOf ? {bestOf: patch.bestOf} : {}),
		...(patch.trial ? {trial: patch.trial} : {}),
		...(patch.rejudgeOf ? {rejudgeOf: patch.rejudgeOf} : {}),
		...(patch.rejudgeRepeat ? {rejudgeRepeat: patch.rejudgeRepeat} : {}),
	};
	if (session.blueprint) session.blueprint = {...session.blueprint, public: {...session.blueprint.public, initialMessage: `${session.blueprint.public.initialMessage} [${patch.blueprintKey ?? patch.id}]`}};
	session.judge =
		byMetric && session.judge
			? {...session.judge, mode: patch.judgeMode ?? 'separate', scores: byMetric, clean: patch.clean === undefined ? true : patch.clean, threeH: mean([byMetric.helpfulness, byMetric.honesty, byMetric.harmlessness]), tdq: mean([byMetric.naturalness, byMetric.plausibility, byMetric.typicality])}
			: null;
	return session;
}

/** Writes sessions into `sessionsDir` as the store would (one JSON file each). */
export function writeSessions(sessionsDir: string, sessions: readonly Session[]): void {
	mkdirSync(sessionsDir, {recursive: true});
	for (const session of sessions) writeFileSync(path.join(sessionsDir, `${session.id}.json`), JSON.stringify(session));
}

/** A batch manifest naming these sessions, so `--batch NAME` selects them. */
export function writeBatch(sessionsDir: string, name: string, sessions: readonly Session[]): void {
	const manifest: BatchManifest = {
		format: 'cultureconverse.batch',
		version: 1,
		name,
		createdAt: '2026-12-01T00:00:00.000Z',
		updatedAt: '2026-12-01T00:00:00.000Z',
		selection: {filter: {}, seedFile: null, sample: null, sampleSeed: 'x', trials: 1},
		episode: {language: 'english', mode: 'eval', assistant: 'llm', judgeMode: 'separate', maxTurns: 5, models: {}},
		items: sessions.map((s) => ({key: `${s.seed.id}#${s.config.trial ?? 1}`, seedId: s.seed.id, trial: s.config.trial ?? 1, sessionId: s.id, status: s.status, threeH: s.judge?.threeH ?? null, tdq: s.judge?.tdq ?? null, clean: s.judge?.clean ?? null, errorFlag: s.error?.flag ?? null, termination: null, attempts: 1, updatedAt: null})),
	};
	mkdirSync(path.join(sessionsDir, 'batches'), {recursive: true});
	writeFileSync(path.join(sessionsDir, 'batches', `${name}.json`), JSON.stringify(manifest));
}

/** The first `n` persona ids and template ids of the universe, for distinct seeds. */
export function personas(n: number, region?: string): string[] {
	return sharedUniverse().personas.filter((p) => !region || p.region === region).slice(0, n).map((p) => p.id);
}
export function templates(n: number): string[] {
	return sharedUniverse().templates.slice(0, n).map((t) => t.id);
}
