import assert from 'node:assert/strict';
import {after, before, beforeEach, describe, it} from 'node:test';
import {type Chronotope, type KeptItem, type Norm, type SituatedItem, type Verification, isKept} from '../src/domain/situated.js';
import {createGateway} from '../src/llm/gateway.js';
import type {CallContext} from '../src/situated/agents.js';
import {INVALID_REWARD} from '../src/situated/calibrate.js';
import {evaluateItem} from '../src/situated/evaluate.js';
import {refineItem} from '../src/situated/refine.js';
import {type FakeOpenAI, type FakeReply, type FakeRequest, fakeRoles, startFakeOpenAI} from './helpers/fakeOpenAI.js';
import {promptText} from './helpers/scriptedModel.js';
import {tempDir} from './helpers/tmp.js';

/*
 * The refinement loop and the evaluation over HTTP: the real openai client talks to a loopback server
 * that plays every CRISP agent by stage, so the router's paths, the privacy of the reasoner and the
 * policy, and the scoring are checked on real requests.
 */

const NORM_CANARY = 'CANARY-NORM-7731';
const EXPECTED_CANARY = 'CANARY-EXPECTED-4410';
const SETTING_CANARY = 'CANARY-SETTING-2291';

const norm: Norm = {id: 'norm.test-1', region: 'JP', identities: [], text: `Take off outdoor shoes at the raised entrance step of a home (${NORM_CANARY}).`, type: 'prescriptive', source: 'test'};
const chronotope: Chronotope = {time: 'a holiday afternoon', place: "a colleague's flat", participants: 'a new employee and her manager', activity: 'a first visit with a gift', expectations: `polite and formal (${SETTING_CANARY})`};

const pass = (reason = 'ok') => ({score: 1, reason});
const fail = (reason = 'no') => ({score: 0, reason});
const allPass: Verification = {actionCorrect: pass(), evidenceSupport: pass(), normMatch: pass(), reasonSupportsAction: pass(), normLeakage: fail('inferred')};
const leaking: Verification = {...allPass, normLeakage: pass('the last sentence states the rule')};
const thin: Verification = {...allPass, evidenceSupport: fail('no scenario detail quoted')};

let fake: FakeOpenAI;
let verdicts: Verification[] = [];
let policyReplies: string[] = [];
const counts = new Map<string, number>();

function handler(request: FakeRequest): FakeReply | undefined {
	const stage = request.stage ?? '';
	const n = counts.get(stage) ?? 0;
	counts.set(stage, n + 1);
	const text = promptText(request);
	switch (stage) {
		case 'situated:question':
			return {json: {scenario: 'Mika arrives at her manager\'s flat on a holiday afternoon with a boxed gift. The door opens onto a small tiled area one step below the wooden floor, where slippers are lined up.', question: 'What should Mika do as she steps in?', hiddenExpectedAnswer: `Leave her shoes on the tiles, step up in socks or slippers (${EXPECTED_CANARY}).`, notes: 'the step and the slippers carry the norm'}};
		case 'situated:reasoner':
			return {json: {action: 'Take off her shoes on the tiles and step up.', reason: 'The step below the floor and the slippers show where outdoor shoes stop.', inferredNorms: [{norm: 'Outdoor shoes stay at the lower entrance area.', evidence: 'a small tiled area one step below the wooden floor'}]}};
		case 'situated:verifier':
			return {json: verdicts[Math.min(n, verdicts.length - 1)]};
		case 'situated:advisor':
			return {json: {diagnosis: 'evidence not quoted', guidance: 'ADVICE-MARKER: quote the detail that shows where shoes stop.'}};
		case 'situated:planner':
			return {json: {diagnosis: 'leak', goal: 'no stated rule', guidance: 'drop the sentence that states the rule'}};
		case 'situated:reviser':
			return {json: {scenario: `Revised ${n + 1}: Mika arrives at her manager's flat with a gift. Just inside the door the floor steps up and a row of slippers waits.`, question: 'What should Mika do as she steps in?', hiddenExpectedAnswer: `Shoes off on the lower part (${EXPECTED_CANARY}).`, notes: 'removed the rule'}};
		case 'situated:policy':
			return {content: policyReplies[n % policyReplies.length]!};
		case 'situated:outcome':
			return {json: {score: /GOOD/.test(text) ? 5 : 3, evidence: 'x', reason: 'x'}};
		case 'situated:norm-match':
			return {json: {score: /GOOD/.test(text) ? 2 : 0, reason: 'x'}};
		default:
			return undefined;
	}
}

before(async () => (fake = await startFakeOpenAI({handler})));
after(() => fake.close());
beforeEach(() => {
	fake.reset();
	fake.setHandler(handler);
	counts.clear();
	verdicts = [allPass];
	policyReplies = [];
});

function context(): CallContext {
	const gateway = createGateway({settings: fakeRoles(fake.baseURL), workspaceDir: tempDir(), cache: false, env: {OPENAI_API_KEY: 'sk-test'}, retry: {baseDelayMs: 1, maxDelayMs: 2, maxAttempts: 2}});
	return {gateway};
}

function kept(item: SituatedItem): KeptItem {
	assert.ok(isKept(item), `expected a kept item, got ${item.status}`);
	return item;
}

const byStage = (stage: string) => fake.chatRequests().filter((request) => request.stage === `situated:${stage}`);

describe('situated items: the refinement loop over HTTP', () => {
	it('keeps an item that passes every check at once', async () => {
		const item = await refineItem('Japan', norm, chronotope, 0, context());
		assert.equal(item.status, 'kept');
		assert.equal(item.id, 'norm.test-1.c1');
		assert.deepEqual(item.rounds.map((round) => round.decision), ['keep']);
		assert.equal(byStage('planner').length + byStage('advisor').length + byStage('reviser').length, 0);
		assert.deepEqual(item.models, {generator: 'fake-model', validator: 'fake-model'});
	});

	it('revises a leaking question with the planner and reviser, then keeps the revised one', async () => {
		verdicts = [leaking, allPass];
		const item = await refineItem('Japan', norm, chronotope, 0, context());
		assert.deepEqual(item.rounds.map((round) => round.decision), ['revise-question', 'keep']);
		assert.match(item.rounds[0]!.diagnosis, /L=1/);
		assert.equal(item.rounds[0]!.plan?.guidance, 'drop the sentence that states the rule');
		assert.match(item.draft!.scenario, /^Revised 1:/);
		assert.match(item.rounds[1]!.draft.scenario, /^Revised 1:/);
		// The reviser was told the plan; the next reasoner saw the revised scenario and no advice.
		assert.match(promptText(byStage('reviser')[0]!), /drop the sentence that states the rule/);
		assert.match(promptText(byStage('reasoner')[1]!), /Revised 1:/);
		assert.doesNotMatch(promptText(byStage('reasoner')[1]!), /ADVICE/);
	});

	it('reruns a thin answer with the advisor\'s guidance, keeping the question', async () => {
		verdicts = [thin, allPass];
		const item = await refineItem('Japan', norm, chronotope, 0, context());
		assert.deepEqual(item.rounds.map((round) => round.decision), ['rerun-answer', 'keep']);
		assert.equal(item.rounds[0]!.draft.scenario, item.rounds[1]!.draft.scenario);
		assert.equal(byStage('reviser').length, 0);
		assert.match(promptText(byStage('reasoner')[1]!), /ADVICE ON YOUR PREVIOUS ATTEMPT\nADVICE-MARKER/);
		assert.doesNotMatch(promptText(byStage('reasoner')[0]!), /ADVICE/);
	});

	it('discards an item after the last round, without planning a revision nobody will verify', async () => {
		verdicts = [leaking];
		const item = await refineItem('Japan', norm, chronotope, 0, context(), {maxRounds: 3});
		assert.equal(item.status, 'discarded');
		assert.equal(item.rounds.length, 3);
		assert.equal(byStage('verifier').length, 3);
		assert.equal(byStage('planner').length, 2);
		assert.equal(byStage('reviser').length, 2);
		assert.equal(item.rounds[2]!.plan, null);
	});

	it('marks an item failed, with its rounds so far, when a call gives up (5xx), instead of throwing', async () => {
		verdicts = [thin];
		fake.setHandler((request) => (request.stage === 'situated:advisor' ? {status: 503, body: {error: {message: 'overloaded'}}} : handler(request)));
		const item = await refineItem('Japan', norm, chronotope, 0, context());
		assert.equal(item.status, 'failed');
		assert.match(item.error!, /^situated:advisor: /);
		assert.equal(item.rounds.length, 1);
		assert.equal(byStage('advisor').length, 2, 'retried once (maxAttempts 2), then gave up');
		assert.match(item.draft!.scenario, /Mika arrives/);
	});
});

describe('situated items: evaluation over HTTP', () => {
	it('samples N answers, scores valid ones, gives invalid ones the fixed reward, and picks the best', async () => {
		const item = kept(await refineItem('Japan', norm, chronotope, 0, context()));
		policyReplies = [JSON.stringify({answer: 'Just walk in.', reasoning: 'It is informal.'}), 'Sure! I think she should take her shoes off.', JSON.stringify({answer: 'GOOD: shoes off on the tiles, then step up.', reasoning: 'GOOD: the step marks where outdoor shoes stop.'})];
		const evaluation = await evaluateItem(item, context(), {bestOf: 3});
		assert.equal(evaluation.samples.length, 3);
		const invalid = evaluation.samples.filter((sample) => sample.invalid !== null);
		assert.equal(invalid.length, 1);
		assert.equal(invalid[0]!.reward, INVALID_REWARD);
		assert.equal(invalid[0]!.outcome, null);
		const chosen = evaluation.samples[evaluation.chosen]!;
		assert.match(chosen.answer!.answer, /^GOOD/);
		assert.equal(chosen.outcome!.score, 5);
		assert.equal(chosen.normMatch!.score, 2);
		assert.equal(byStage('outcome').length, 2, 'the invalid answer is not graded');
		assert.equal(evaluation.policyModel, 'fake-model');
	});

	it('scores an empty or cut-off reply (after retries) as an invalid answer instead of failing the item', async () => {
		const item = kept(await refineItem('Japan', norm, chronotope, 0, context()));
		fake.setHandler((request) => (request.stage === 'situated:policy' ? {content: ''} : handler(request)));
		const empty = await evaluateItem(item, context(), {bestOf: 1});
		assert.equal(empty.samples[0]!.invalid, 'empty reply');
		assert.equal(empty.samples[0]!.reward, INVALID_REWARD);
		assert.equal(byStage('policy').length, 2, 'retried once (maxAttempts 2) before counting it');
		fake.setHandler((request) => (request.stage === 'situated:policy' ? {content: '{"answer": "Take off', finishReason: 'length'} : handler(request)));
		const cut = await evaluateItem(item, context(), {bestOf: 1});
		assert.equal(cut.samples[0]!.invalid, 'reply cut off at the token limit');
	});

	it('canary: the reasoner and the policy never see the norm, the setting or the reference answer', async () => {
		verdicts = [leaking, thin, allPass];
		const item = kept(await refineItem('Japan', norm, chronotope, 0, context()));
		policyReplies = [JSON.stringify({answer: 'GOOD a', reasoning: 'GOOD b'})];
		await evaluateItem(item, context(), {bestOf: 2});
		const canaries = [NORM_CANARY, EXPECTED_CANARY, SETTING_CANARY];
		for (const stage of ['reasoner', 'policy']) {
			const requests = byStage(stage);
			assert.ok(requests.length >= 2, `${stage} was called`);
			for (const request of requests) for (const canary of canaries) assert.ok(!JSON.stringify(request.body).includes(canary), `${stage} saw ${canary}`);
		}
		// The canaries were really there: the verifier (which must see them) got all three.
		const verifier = JSON.stringify(byStage('verifier').map((request) => request.body));
		for (const canary of canaries) assert.ok(verifier.includes(canary), `verifier saw ${canary}`);
		assert.ok(JSON.stringify(byStage('outcome')[0]!.body).includes(NORM_CANARY), 'the grader sees the norm');
	});
});
