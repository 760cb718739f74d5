import chalk from 'chalk';
import {summaryOf} from './registry.js';
import {createRuntime} from '../app/runtime.js';
import {runtimeFlags, runtimeOptionsFromFlags} from './runtimeFlags.js';
import {type CallRecord, JudgeMode, type Session} from '../domain/session.js';
import {judgeModelName} from '../domain/setup.js';
import {EpisodeEngine} from '../episode/engine.js';
import {summarizeCalls} from '../llm/usage.js';
import {fixed, percent, signed} from '../present/numbers.js';
import {formatUsage} from '../present/text.js';
import {rejudgeCopy, rejudgeable, rejudgeId} from '../episode/rejudge.js';
import {type JudgeJudgeRow, judgeJudgeAgreement} from '../report/judgePairs.js';
import {ExitCode, UserError, errorMessage} from '../util/errors.js';
import {eachLimited} from '../util/limited.js';
import {renderTable} from '../util/table.js';
import {wholeFlag} from './flagValues.js';
import {selectSessions, sessionFilterFlags} from './sessions.js';
import {setupAdvice} from '../llm/advice.js';
import {SetupBreaker} from '../llm/breaker.js';
import {type Command, write, writeJson} from './types.js';

type Outcome =
	| {readonly kind: 'judged' | 'already'; readonly original: Session; readonly copy: Session}
	| {readonly kind: 'skipped'; readonly id: string; readonly why: string}
	| {readonly kind: 'failed'; readonly id: string; readonly copyId: string; readonly why: string};

export const rejudgeCommand: Command = {
	name: 'rejudge',
	summary: summaryOf('rejudge'),
	usage: 'rejudge [<session-id>...] [--batch N] [--region R] [--persona P] [--template T] [--tier T] --judge-model M [--judge-mode separate|combined] [--repeat N] [--parallel P] [--json]',
	flags: {
		batch: {type: 'string', description: 'The sessions of this batch'},
		...sessionFilterFlags,
		judgeMode: {type: 'string', description: 'separate or combined (default: each session\'s own mode)'},
		parallel: {type: 'number', description: 'Sessions judged at once (default 4)'},
		repeat: {type: 'number', description: 'Judge each dialogue again as repeat N (2, 3, ...): the same judge may repeat itself, asked afresh (not from the cache), to measure judge noise'},
		json: {type: 'boolean', description: 'Print the outcome and the judge-judge agreement as JSON'},
		stopAfter: {type: 'number', description: 'Stop after this many copies in a row fail the same way with a set-up error (bad key, no quota, unknown model); 0 never stops (default 3)'},
		...runtimeFlags,
	},
	async run({args, flags, io, universe}) {
		const parallel = wholeFlag(flags, 'parallel', {min: 1, max: 64}, 4);
		const repeat = wholeFlag(flags, 'repeat', {min: 1, max: 100}, 1);
		const modeFlag = flags['judgeMode'];
		if (modeFlag !== undefined && !JudgeMode.safeParse(modeFlag).success) throw new UserError(`--judge-mode must be separate or combined, got '${String(modeFlag)}'.`);
		const runtime = createRuntime({options: runtimeOptionsFromFlags(flags), io, universe: universe(), roles: ['judge']});
		await runtime.check(['judge']);
		const judge = runtime.gateway.settings('judge');
		const calls: CallRecord[] = [];
		runtime.gateway.onEvent((event) => {
			if (event.type === 'call_done' || event.type === 'call_failed') calls.push(event.call);
		});
		// Explicit ids are loaded as given (a typo is an error); otherwise the shared session selection.
		const originals: Session[] = [];
		if (args.length > 0) for (const id of args) originals.push(await runtime.store.load(id));
		else {
			const {chosen} = selectSessions(flags, io);
			for (const summary of chosen.filter((row) => !row.id.includes('.rj-'))) originals.push(await runtime.store.load(summary.path));
		}
		if (originals.length === 0) throw new UserError('No saved session matches: give session ids, --batch NAME or filters (see `npx cultureconverse sessions`).');
		if (runtime.settings.offline && !flags['json']) io.stderr.write(chalk.yellow('Offline mock provider: the new judge is the offline rubric (mock:rubric), not a model judge; its scores are counts, not a measurement.\n'));

		const outcomes: Outcome[] = [];
		const breaker = new SetupBreaker(wholeFlag(flags, 'stopAfter', {min: 0, max: 1_000_000}, 3), io.signal);
		await eachLimited(originals, parallel, breaker.signal, async (original) => {
			const mode = (modeFlag as JudgeMode | undefined) ?? original.config.judgeMode;
			const same = original.config.models.judge === judgeModelName(judge) && original.config.judgeMode === mode;
			const why = rejudgeable(original) ?? (same && repeat === 1 ? `it was judged by ${judge.model} (${mode}) already: name another --judge-model or --judge-mode, or --repeat 2 to ask the same judge again` : null);
			if (why) {
				outcomes.push({kind: 'skipped', id: original.id, why});
				return;
			}
			const copyId = rejudgeId(original, judge.model, mode, repeat);
			try {
				const existing = runtime.store.exists(copyId) ? await runtime.store.load(copyId) : null;
				if (existing?.status === 'completed') {
					outcomes.push({kind: 'already', original, copy: existing});
					return;
				}
				// A copy left unfinished by an interrupted run continues; one that failed is made again.
				const start = existing && existing.status !== 'error' ? existing : rejudgeCopy(original, {settings: judge, mode, now: new Date(), repeat});
				const engine = new EpisodeEngine(start, {universe: runtime.universe, gateway: runtime.gateway, store: runtime.store, evidence: runtime.evidence, replaySource: null});
				await engine.start(existing !== null);
				await engine.runToEnd(breaker.signal);
				const copy = engine.session;
				if (copy.status === 'completed') breaker.success();
				else if (copy.status === 'error') breaker.failure({kind: copy.error?.kind, role: copy.error?.role, message: copy.error?.message ?? '', id: copy.id});
				if (copy.status === 'completed') outcomes.push({kind: 'judged', original, copy});
				else if (!breaker.signal.aborted) outcomes.push({kind: 'failed', id: original.id, copyId, why: copy.error?.message ?? copy.status});
				if (!flags['json'] && copy.status === 'completed') io.stderr.write(`${line(original, copy)}\n`);
			} catch (error) {
				if (error instanceof UserError) throw error;
				outcomes.push({kind: 'failed', id: original.id, copyId, why: errorMessage(error)});
			}
		});

		const pairs = outcomes.flatMap((outcome) => (outcome.kind === 'judged' || outcome.kind === 'already' ? [{a: outcome.original.judge?.scores ?? {}, b: outcome.copy.judge?.scores ?? {}}] : []));
		const agreement = judgeJudgeAgreement(pairs);
		const originalJudges = [...new Set(outcomes.flatMap((outcome) => (outcome.kind === 'judged' || outcome.kind === 'already' ? [outcome.original.config.models.judge] : [])))];
		const count = (kind: Outcome['kind']) => outcomes.filter((outcome) => outcome.kind === kind).length;
		const interrupted = Boolean(io.signal?.aborted);
		if (flags['json']) {
			writeJson(io, {
				judge: judge.model,
				originalJudges,
				sessions: outcomes.map((outcome) => (outcome.kind === 'judged' || outcome.kind === 'already' ? {kind: outcome.kind, original: outcome.original.id, copy: outcome.copy.id, threeH: [outcome.original.judge?.threeH ?? null, outcome.copy.judge?.threeH ?? null], tdq: [outcome.original.judge?.tdq ?? null, outcome.copy.judge?.tdq ?? null]} : outcome)),
				agreement,
				usage: summarizeCalls(calls),
				interrupted,
			});
		} else {
			for (const outcome of outcomes) {
				if (outcome.kind === 'skipped') io.stderr.write(chalk.dim(`skipped ${outcome.id}: ${outcome.why}\n`));
				if (outcome.kind === 'failed') io.stderr.write(chalk.red(`failed ${outcome.id} → ${outcome.copyId}: ${outcome.why}\n`));
			}
			if (pairs.length > 0) {
				write(io, `Judge agreement: ${judgeSides(outcomes)}, on ${pairs.length} dialogue(s)${originalJudges.length > 1 ? chalk.yellow(' (A mixes several judges)') : ''}`);
				write(io, agreementTable(agreement));
			}
			write(io, `Spent: ${formatUsage(calls)}`);
			write(io, `${count('judged')} re-judged, ${count('already')} already done, ${count('skipped')} skipped, ${count('failed')} failed. Copies are ordinary sessions: \`npx cultureconverse report --by judge\` compares them.${interrupted ? ' Interrupted: run the same command again to continue.' : ''}`);
		}
		breaker.dispose();
		if (breaker.stopped) {
			const {role, kind, count: failed, message} = breaker.stopped;
			io.stderr.write(`Stopped: ${failed} copies in a row failed the same way (${kind}, ${role} role); nothing more was started.\n  ${message}\n  ${setupAdvice(kind, role, runtime.gateway.settings(role), runtime.settings.apiKeyEnv[role], message)}\n`);
			return ExitCode.badInput;
		}
		if (interrupted) return ExitCode.interrupted;
		return count('failed') > 0 ? ExitCode.episodeError : ExitCode.ok;
	},
};


function line(original: Session, copy: Session): string {
	return `${original.id} → ${copy.id}  3H ${fixed(original.judge?.threeH ?? null)} → ${fixed(copy.judge?.threeH ?? null)}  TDQ ${fixed(original.judge?.tdq ?? null)} → ${fixed(copy.judge?.tdq ?? null)}`;
}

function agreementTable(rows: readonly JudgeJudgeRow[]): string {
	return renderTable(rows, [
		{header: 'METRIC', value: (row) => row.metric},
		{header: 'N', value: (row) => row.n, align: 'right'},
		{header: 'MEAN A', value: (row) => fixed(row.meanA), align: 'right'},
		{header: 'MEAN B', value: (row) => fixed(row.meanB), align: 'right'},
		{header: 'B − A', value: (row) => signed(row.shift), align: 'right'},
		{header: 'EXACT', value: (row) => percent(row.exact), align: 'right'},
		{header: '±1', value: (row) => percent(row.withinOne), align: 'right'},
		{header: 'SPEARMAN', value: (row) => fixed(row.spearman), align: 'right'},
		{header: 'KAPPA', value: (row) => fixed(row.kappa), align: 'right'},
	]);
}

/**
 * "mock, separate (A) vs mock, combined (B); they differ in judge mode": each side named by model, judge
 * mode and repeat (the same words as the report's judge cells), and what differs said outright.
 */
function judgeSides(outcomes: readonly Outcome[]): string {
	const judged = outcomes.flatMap((outcome) => (outcome.kind === 'judged' || outcome.kind === 'already' ? [outcome] : []));
	const describe = (session: Session) => ({model: session.config.models.judge, mode: session.config.judgeMode, repeat: session.config.rejudgeRepeat ?? null});
	const sideOf = (sessions: readonly Session[]) => {
		const all = sessions.map(describe);
		const distinct = (pick: (d: ReturnType<typeof describe>) => string) => [...new Set(all.map(pick))].join(' / ');
		return {model: distinct((d) => d.model), mode: distinct((d) => d.mode), repeat: distinct((d) => (d.repeat ? `repeat ${d.repeat}` : ''))};
	};
	const a = sideOf(judged.map((outcome) => outcome.original));
	const b = sideOf(judged.map((outcome) => outcome.copy));
	const name = (side: typeof a) => [side.model, side.mode, side.repeat].filter(Boolean).join(', ');
	const differs = [a.model !== b.model ? 'judge model' : '', a.mode !== b.mode ? 'judge mode' : '', a.repeat !== b.repeat ? 'repeat (the same judge asked again)' : ''].filter(Boolean);
	return `${name(a)} (A) vs ${name(b)} (B); they differ in ${differs.join(' and ') || 'nothing recorded (the same judge and mode)'}`;
}
