import assert from 'node:assert/strict';
import {readSession} from '../src/store/sessionStore.js';
import {mkdirSync, readFileSync} from 'node:fs';
import path from 'node:path';
import {after, before, describe, it} from 'node:test';
import {Session} from '../src/domain/session.js';
import {chooseCandidate, ratingProblems} from '../src/episode/candidates.js';
import {PreferencePair} from '../src/export/pairs.js';
import {cacheKey} from '../src/llm/cache.js';
import {parseJson, runCli} from './helpers/cli.js';
import {episodeHarness, type Harness} from './helpers/episodeHarness.js';
import {promptText, scriptedModel} from './helpers/scriptedModel.js';

let h: Harness;
before(async () => (h = await episodeHarness()));
after(() => h.close());

const CANARY = {private: 'CANARY-PRIVATE-1187', oracle: 'CANARY-ORACLE-2291'};
const SEED = 'ph-tagalog-catholic-a35-f:culinary.dietary-rules.01';
const sessionAt = (file: string) => readSession(file);

describe('best-of-N: choosing among candidates', () => {
	it('takes the best-rated candidate, the earlier one on a tie, and asks again for a rating set with gaps', () => {
		const rated = (scores: number[]) => ({ratings: scores.map((score, index) => ({candidate: index + 1, rationale: 'r', score}))});
		assert.equal(chooseCandidate(rated([3, 5, 4])), 1);
		assert.equal(chooseCandidate(rated([4, 2, 4])), 0);
		assert.deepEqual(ratingProblems(rated([3, 5]), 3), ['candidate 3 has no rating']);
		assert.deepEqual(ratingProblems({ratings: [{candidate: 1, rationale: 'r', score: 3}, {candidate: 1, rationale: 'r', score: 4}, {candidate: 4, rationale: 'r', score: 4}]}, 2), ['candidate 1 is rated twice', 'there are only 2 candidates, but a rating is for candidate 4', 'candidate 2 has no rating']);
	});

	it('caches each sample of one request on its own', () => {
		const base = {provider: 'openai', baseURL: null, model: 'm', messages: [{role: 'user' as const, content: 'hi'}], format: {type: 'text' as const}, temperature: null, maxTokens: null};
		assert.equal(cacheKey({...base, sample: 0}), cacheKey(base), 'sample 0 is the ordinary call');
		assert.notEqual(cacheKey({...base, sample: 1}), cacheKey(base));
		assert.notEqual(cacheKey({...base, sample: 1}), cacheKey({...base, sample: 2}));
	});
});

describe('best-of-N episodes over HTTP', () => {
	it('samples N replies from the public view, lets the judge role choose with the oracle, keeps every candidate, and exports preference pairs', async () => {
		let ratingCalls = 0;
		h.fake.setHandler(
			scriptedModel({
				canary: CANARY,
				assistant: (_request, n) => `Candidate reply ${n}: start with one dish everyone can share.`,
				stage: {
					// Candidate 2 of every turn wins; the very first rating leaves one out and is asked again.
					candidates: (request) => {
						ratingCalls++;
						const count = Number(/CANDIDATE REPLIES \((\d+)\)/.exec(promptText(request))?.[1]);
						const ratings = Array.from({length: count}, (_, index) => ({candidate: index + 1, rationale: `scripted ${index + 1}`, score: index === 1 ? 5 : index === 0 ? 3 : 1}));
						return {json: {ratings: ratingCalls === 1 ? ratings.slice(0, 2) : ratings}};
					},
				},
			}),
		);
		const before = h.fake.chatRequests().length;
		const result = await runCli(['run', '--seed', SEED, '--best-of', '3', '--sessions-dir', h.sessionsDir, '--json'], {env: h.env, cwd: h.cwd});
		assert.equal(result.code, 0, result.stderr);
		const out = parseJson<{path: string; status: string}>(result.stdout);
		assert.equal(out.status, 'completed');
		const session = sessionAt(out.path);
		assert.equal(session.config.bestOf, 3);
		const assistantTurns = session.turns.filter((turn) => turn.role === 'assistant');
		assert.ok(assistantTurns.length >= 2);
		for (const turn of assistantTurns) {
			assert.equal(turn.candidates?.length, 3);
			assert.deepEqual(turn.candidates!.map((candidate) => [candidate.score, candidate.chosen]), [[3, false], [5, true], [1, false]]);
			assert.equal(turn.content, turn.candidates![1]!.content, 'the turn says the chosen candidate');
			assert.equal(turn.callId, turn.candidates![1]!.callId);
			assert.equal(new Set(turn.candidates!.map((candidate) => candidate.content)).size, 3, 'three different samples');
		}
		const requests = h.fake.chatRequests().slice(before);
		const assistantRequests = requests.filter((request) => request.role === 'assistant');
		const ratingRequests = requests.filter((request) => request.stage === 'candidates');
		assert.equal(assistantRequests.length, 3 * assistantTurns.length);
		assert.equal(ratingRequests.length, assistantTurns.length + 1, 'one rating per turn, plus the one re-asked');
		assert.ok(ratingRequests.every((request) => request.role === 'judge'));
		// The per-call schema asks for exactly one rating per candidate (issue 24 item 6), so the schema names the gap first.
		assert.match(JSON.stringify(ratingRequests[1]!.body.messages), /expected array to have exactly 3 items|candidate 3 has no rating/, 'the validation problem went back as feedback');
		// The assistant never sees private or oracle state; the rater (judge role) does.
		for (const request of assistantRequests) {
			const body = JSON.stringify(request.body);
			assert.equal(body.includes(CANARY.oracle), false);
			assert.equal(body.includes(CANARY.private), false);
		}
		assert.ok(ratingRequests.every((request) => JSON.stringify(request.body).includes(CANARY.oracle)));

		const printed = await runCli(['replay', session.id, '--print', '--sessions-dir', h.sessionsDir], {env: h.env, cwd: h.cwd});
		assert.match(printed.stdout, /\[ORACLE\] best of 3, rated by the judge role:\n\s+#1 score 3: scripted 1\n\s+> #2 score 5 \(said\): scripted 2\n\s+#3 score 1: scripted 3/);

		const pairs = await runCli(['export', 'pairs', '--split', 'any', '--sessions-dir', h.sessionsDir], {env: h.env, cwd: h.cwd});
		assert.equal(pairs.code, 0, pairs.stderr);
		const lines = pairs.stdout.trim().split('\n');
		assert.equal(lines.length, assistantTurns.length);
		lines.forEach((line, index) => {
			assert.equal(line.includes(CANARY.oracle) || line.includes(CANARY.private), false, 'no hidden state in preference data');
			const pair = PreferencePair.parse(JSON.parse(line));
			const turn = assistantTurns[index]!;
			assert.equal(pair.chosen[0]!.content, turn.candidates![1]!.content);
			assert.equal(pair.rejected[0]!.content, turn.candidates![2]!.content);
			assert.deepEqual([pair.scoreChosen, pair.scoreRejected], [5, 1]);
			assert.equal(pair.prompt.at(-1)!.role, 'user', 'the prompt ends on the user turn being answered');
			assert.equal(pair.prompt.filter((message) => message.role === 'assistant').length, index, 'earlier turns are the chosen replies');
			assert.equal(pair.metadata.t, turn.t);
		});
		const strict = await runCli(['export', 'pairs', '--split', 'any', '--min-margin', '4.5', '--sessions-dir', h.sessionsDir], {env: h.env, cwd: h.cwd});
		assert.match(strict.stderr, /--min-margin must be a number from 0 to 4/);
		const wide = await runCli(['export', 'pairs', '--split', 'any', '--min-margin', '4', '--sessions-dir', h.sessionsDir], {env: h.env, cwd: h.cwd});
		assert.equal(wide.stdout.trim().split('\n').length, assistantTurns.length, 'a margin of 4 (5 vs 1) is enough for --min-margin 4');
		const evalOnly = await runCli(['export', 'pairs', '--split', 'any', '--mode', 'gold', '--sessions-dir', h.sessionsDir], {env: h.env, cwd: h.cwd});
		assert.equal(evalOnly.stdout, '');
		assert.match(evalOnly.stderr, /Exported 0 pair\(s\) from 0 of 1 session\(s\); left out: mode eval 1/);
	});

	it('runs offline too, and refuses best-of where there is nothing to sample', async () => {
		// Its own folder: the harness folder's config names a model, which would mean OpenAI.
		const cwd = path.join(h.cwd, 'offline');
		mkdirSync(cwd, {recursive: true});
		const offline = await runCli(['run', '--seed', SEED, '--best-of', '2', '--sessions-dir', path.join(cwd, 'sessions'), '--json'], {env: {CULTURECONVERSE_HOME: path.join(cwd, 'home')}, cwd});
		assert.equal(offline.code, 0, offline.stderr);
		const session = sessionAt(parseJson<{path: string}>(offline.stdout).path);
		assert.ok(session.turns.filter((turn) => turn.role === 'assistant').every((turn) => turn.candidates?.length === 2 && turn.candidates.filter((candidate) => candidate.chosen).length === 1));
		for (const [args, pattern] of [[['--best-of', '1'], /--best-of must be a whole number from 2 to 16/], [['--best-of', '3', '--human'], /does not go with --human/]] as const) {
			const bad = await runCli(['run', '--seed', SEED, ...args, '--sessions-dir', h.sessionsDir], {env: h.env, cwd: h.cwd});
			assert.equal(bad.code, 2);
			assert.match(bad.stderr, pattern);
		}
	});
});
