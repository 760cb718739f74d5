import assert from 'node:assert/strict';
import {after, before, beforeEach, describe, it} from 'node:test';
import {type Chronotope, type KeptItem, type Norm, type SituatedItem, type Verification, isKept} from '../src/domain/situated.js';
import {createGateway} from '../src/llm/gateway.js';
import type {CallContext} from '../src/situated/agents.js';
import {completeEvaluation, evaluateItem} from '../src/situated/evaluate.js';
import {extractNorms} from '../src/situated/extract.js';
import type {SourceRow} from '../src/situated/normSources.js';
import {refineItem} from '../src/situated/refine.js';
import {ScorerError, endpointGrounding, endpointSelector, judgeGrounding, modelSelector} from '../src/situated/scorers.js';
import {oraclePick, rewardPick} from '../src/situated/selection.js';
import {type RewardInput, type SituatedQuestion, rewardInput, situatedQuestion} from '../src/situated/views.js';
import {type FakeOpenAI, type FakeReply, type FakeRequest, fakeRoles, startFakeOpenAI} from './helpers/fakeOpenAI.js';
import {type ScoringService, startScoringService} from './helpers/scoringService.js';
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

const norm: Norm = {id: 'norm.test-1', culture: 'Japan', country: 'JP', region: 'JP', identities: [], text: `Take off outdoor shoes at the raised entrance step of a home (${NORM_CANARY}).`, type: 'prescriptive', category: 'hospitality', source: 'test'};
const chronotope: Chronotope = {
	time: 'a holiday afternoon',
	place: "a colleague's flat",
	participants: 'a new employee and her manager',
	activity: 'a first visit with a gift',
	frame: `polite and formal (${SETTING_CANARY})`,
	tension: `walking straight in to hand over the gift (${SETTING_CANARY})`,
	activation: 'the door opens onto a lower tiled area',
	difference: 'the first setting',
};

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
		case 'situated:grounding':
			return {json: {reason: 'x', grounded: /GOOD/.test(text) ? 0.9 : 0.2}};
		case 'situated:reward':
			// A reward model fooled by polish: it likes POLISHED answers best, whatever they do.
			return {json: {assessment: 'x', score: /POLISHED/.test(text) ? 9 : /GOOD/.test(text) ? 7 : 2}};
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
	const rewardSettings = () => fakeRoles(fake.baseURL, {model: 'rm-model'}).judge;

	it('samples N answers, grades valid ones, leaves invalid ones ungraded, and a reward model picks among the valid', async () => {
		const item = kept(await refineItem('Japan', norm, chronotope, 0, context()));
		policyReplies = [JSON.stringify({answer: 'Just walk in.', reasoning: 'It is informal.'}), 'Sure! I think she should take her shoes off.', JSON.stringify({answer: 'GOOD: shoes off on the tiles, then step up.', reasoning: 'GOOD: the step marks where outdoor shoes stop.'})];
		const evaluation = await evaluateItem(item, context(), {bestOf: 3, selector: modelSelector(rewardSettings()), grounding: judgeGrounding('fake-model')});
		assert.equal(evaluation.samples.length, 3);
		const invalid = evaluation.samples.filter((sample) => sample.invalid !== null);
		assert.equal(invalid.length, 1);
		assert.equal(invalid[0]!.outcome, null);
		assert.equal(invalid[0]!.grounding, null);
		const oracle = evaluation.samples[oraclePick(evaluation.samples)]!;
		assert.match(oracle.answer!.answer, /^GOOD/);
		assert.equal(oracle.outcome!.score, 5);
		assert.equal(oracle.grounding, 0.9);
		assert.equal(byStage('outcome').length, 2, 'the invalid answer is not graded');
		assert.equal(byStage('grounding').length, 2, 'nor grounded');
		assert.equal(byStage('reward').length, 2, 'nor shown to the reward model');
		assert.ok(byStage('reward').every((request) => request.body.model === 'rm-model'), 'the reward model runs on its own model name');
		assert.deepEqual(evaluation.selectors, [{id: 'model:rm-model', scores: [2, null, 7]}]);
		assert.equal(rewardPick(evaluation.selectors[0]!.scores), 2);
		assert.deepEqual([evaluation.culture, evaluation.country, evaluation.region, evaluation.grounding], ['Japan', 'JP', 'JP', 'judge:fake-model']);
		assert.equal(evaluation.policyModel, 'fake-model');
	});

	it('a reward model that prefers polish picks below the oracle ceiling: best-of-N is its pick, not the grader\'s', async () => {
		const item = kept(await refineItem('Japan', norm, chronotope, 0, context()));
		policyReplies = [JSON.stringify({answer: 'GOOD: shoes off on the tiles.', reasoning: 'GOOD: the step.'}), JSON.stringify({answer: 'POLISHED: warmly greet your manager and walk in with the gift.', reasoning: 'Warmth matters.'})];
		const evaluation = await evaluateItem(item, context(), {bestOf: 2, selector: modelSelector(rewardSettings())});
		const pick = rewardPick(evaluation.selectors[0]!.scores)!;
		assert.equal(evaluation.samples[pick]!.outcome!.score, 3, 'the reward model picked the polished answer');
		assert.equal(evaluation.samples[oraclePick(evaluation.samples)]!.outcome!.score, 5, 'the ceiling is the good one');
		assert.equal(evaluation.grounding, null, 'no grounding source asked');
	});

	it('scores an empty or cut-off reply (after retries) as an invalid answer instead of failing the item', async () => {
		const item = kept(await refineItem('Japan', norm, chronotope, 0, context()));
		fake.setHandler((request) => (request.stage === 'situated:policy' ? {content: ''} : handler(request)));
		const empty = await evaluateItem(item, context(), {bestOf: 1});
		assert.equal(empty.samples[0]!.invalid, 'empty reply');
		assert.equal(byStage('policy').length, 2, 'retried once (maxAttempts 2) before counting it');
		fake.setHandler((request) => (request.stage === 'situated:policy' ? {content: '{"answer": "Take off', finishReason: 'length'} : handler(request)));
		const cut = await evaluateItem(item, context(), {bestOf: 1});
		assert.equal(cut.samples[0]!.invalid, 'reply cut off at the token limit');
	});

	it('completes a saved evaluation with a new reward model and grounding, without new policy or judge calls', async () => {
		const item = kept(await refineItem('Japan', norm, chronotope, 0, context()));
		policyReplies = [JSON.stringify({answer: 'GOOD a', reasoning: 'GOOD b'}), JSON.stringify({answer: 'Walk in.', reasoning: 'Fine.'})];
		const first = await evaluateItem(item, context(), {bestOf: 2});
		fake.reset();
		fake.setHandler(handler);
		const ngs = judgeGrounding('fake-model', fakeRoles(fake.baseURL, {model: 'ngs-model'}).judge);
		const more = (await completeEvaluation(first, item, context(), {bestOf: 2, selector: modelSelector(rewardSettings()), grounding: ngs}))!;
		assert.deepEqual(more.samples.map((sample) => sample.outcome), first.samples.map((sample) => sample.outcome));
		assert.equal(byStage('policy').length + byStage('outcome').length + byStage('norm-match').length, 0);
		assert.equal(byStage('reward').length, 2);
		assert.equal(more.grounding, 'judge:ngs-model');
		assert.ok(byStage('grounding').length === 2 && byStage('grounding').every((request) => request.body.model === 'ngs-model'), 'grounding on a model of its own');
		assert.deepEqual(more.selectors.map((selector) => selector.id), ['model:rm-model']);
		assert.equal(await completeEvaluation(more, item, context(), {bestOf: 2, selector: modelSelector(rewardSettings()), grounding: ngs}), null, 'nothing left to add');
	});
});

describe('situated items: reward and grounding services over HTTP', () => {
	let service: ScoringService;
	after(() => service?.close());

	it('sends each valid answer to a reward service and stores its rewards; a broken reply is a clear error', async () => {
		const item = kept(await refineItem('Japan', norm, chronotope, 0, context()));
		policyReplies = [JSON.stringify({answer: 'GOOD a', reasoning: 'GOOD b'}), 'not json', JSON.stringify({answer: 'Walk in.', reasoning: 'Fine.'})];
		service = await startScoringService((body) => ({body: {reward: String(body['answer']).startsWith('GOOD') ? 1.5 : -3.25}}));
		const evaluation = await evaluateItem(item, context(), {bestOf: 3, selector: endpointSelector(service.url)});
		assert.deepEqual(evaluation.selectors, [{id: `endpoint:${service.url}`, scores: [1.5, null, -3.25]}]);
		assert.deepEqual(Object.keys(service.bodies[0]!).sort(), ['answer', 'culture', 'question', 'reasoning', 'scenario']);
		await service.close();
		service = await startScoringService(() => ({body: {score: 3}}));
		await assert.rejects(evaluateItem(item, context(), {bestOf: 1, selector: endpointSelector(service.url)}), (error: Error) => error instanceof ScorerError && /without a numeric "reward"/.test(error.message));
		await service.close();
		policyReplies = [JSON.stringify({answer: 'GOOD a', reasoning: 'GOOD b'})];
		service = await startScoringService((_body, index) => (index === 0 ? {status: 503, body: {error: 'busy'}} : {body: {reward: 2}}));
		const retried = await evaluateItem(item, context(), {bestOf: 1, selector: endpointSelector(service.url, {sleep: async () => {}})});
		assert.deepEqual(retried.selectors[0]!.scores, [2], 'a 503 is retried');
		assert.equal(service.bodies.length, 2);
	});

	it('canary: the reward model, the reward service and the reasoner never see the norm, the setting or the reference answer', async () => {
		verdicts = [leaking, thin, allPass];
		const item = kept(await refineItem('Japan', norm, chronotope, 0, context()));
		policyReplies = [JSON.stringify({answer: 'GOOD a', reasoning: 'GOOD b'}), JSON.stringify({answer: 'Walk in.', reasoning: 'Fine.'})];
		await service?.close();
		service = await startScoringService(() => ({body: {reward: 1}}));
		const grounder = await startScoringService(() => ({body: {probability: 0.5}}));
		try {
			await evaluateItem(item, context(), {bestOf: 2, selector: modelSelector(fakeRoles(fake.baseURL, {model: 'rm-model'}).judge), grounding: judgeGrounding('fake-model')});
			await evaluateItem(item, context(), {bestOf: 2, selector: endpointSelector(service.url), grounding: endpointGrounding(grounder.url)});
			const canaries = [NORM_CANARY, EXPECTED_CANARY, SETTING_CANARY];
			for (const stage of ['reasoner', 'policy', 'reward']) {
				const requests = byStage(stage);
				assert.ok(requests.length >= 2, `${stage} was called`);
				for (const request of requests) for (const canary of canaries) assert.ok(!JSON.stringify(request.body).includes(canary), `${stage} saw ${canary}`);
			}
			assert.equal(service.raw.length, 2);
			for (const body of service.raw) for (const canary of canaries) assert.ok(!body.includes(canary), `the reward service saw ${canary}`);
			// The canaries were really there: the verifier and the graders, which must see the norm, got them.
			const verifier = JSON.stringify(byStage('verifier').map((request) => request.body));
			for (const canary of canaries) assert.ok(verifier.includes(canary), `verifier saw ${canary}`);
			assert.ok(JSON.stringify(byStage('outcome')[0]!.body).includes(NORM_CANARY), 'the grader sees the norm');
			assert.ok(JSON.stringify(byStage('grounding')[0]!.body).includes(NORM_CANARY), 'the grounding classifier is open-book');
			assert.ok(grounder.raw.every((body) => body.includes(NORM_CANARY)), 'so is the grounding service');
		} finally {
			await grounder.close();
		}
	});

	it('the reward model\'s input type can only be made from the public question', () => {
		const question: SituatedQuestion = situatedQuestion('Japan', {scenario: 'A scenario.', question: 'What now?'});
		const input: RewardInput = rewardInput(question, {answer: 'a', reasoning: 'b'});
		assert.deepEqual(Object.keys(input).sort(), ['answer', 'culture', 'question', 'reasoning', 'scenario']);
		// @ts-expect-error a plain object (say, one carrying the norm) is not a RewardInput
		const forged: RewardInput = {culture: 'Japan', scenario: 's', question: 'q', answer: 'a', reasoning: norm.text};
		// @ts-expect-error nor can an item stand in for the public question
		rewardInput({culture: 'Japan', norm, scenario: 's', question: 'q'}, {answer: 'a', reasoning: 'b'});
		assert.ok(forged);
	});
});

describe('situated norms: extraction over HTTP', () => {
	const row = (id: string, question: string, culture = 'Germany'): SourceRow => ({kind: 'extract', row: id, line: Number(id.slice(1)) + 1, format: 'fork', normId: `norm.fork-${id}`, source: `FORK ${id}`, culture, question, options: ['open it at once', 'open it later'], answer: 'open it at once', statement: null, hint: null});

	it('asks the generator once per row, keeps its sentence, rejects what it finds no norm in, and a failed row is retried by the next run', async () => {
		let fail = true;
		fake.setHandler((request) => {
			if (request.stage !== 'situated:norm-extract') return handler(request);
			const text = promptText(request);
			if (/FAILROW/.test(text) && fail) return {status: 503, body: {error: {message: 'overloaded'}}};
			if (/capital/.test(text)) return {json: {statesNorm: false, norm: 'A fact about a city, not about behaviour.', type: 'prescriptive', category: 'other'}};
			return {json: {statesNorm: true, norm: 'In Germany a gift is opened at once, in front of the giver.', type: 'prescriptive', category: 'gift_giving'}};
		});
		const rows = [row('r1', 'At a farewell in Germany, what does one do with a gift?'), row('r2', 'What is the capital of Germany?'), row('r3', 'FAILROW: when is a gift opened?'), {kind: 'rejected', row: 'r4', line: 5, reason: 'empty Question'} as const];
		const saved: string[] = [];
		const rejected: string[] = [];
		const first = await extractNorms({rows, done: new Set(), rejectedBefore: new Set(), parallel: 2, context: context(), saveNorm: (norm) => saved.push(norm.id), saveRejected: (entry) => rejected.push(`${entry.row}@${entry.line}`)});
		assert.deepEqual(first.extracted.map((norm) => [norm.id, norm.country, norm.region, norm.category]), [['norm.fork-r1', 'DE', null, 'gift_giving']]);
		assert.deepEqual(first.rejected.map((entry) => [entry.row, entry.byModel]).sort(), [['r2', true], ['r4', false]]);
		assert.equal(first.errors.length, 1);
		assert.match(first.errors[0]!.error, /situated:norm-extract/);
		fail = false;
		fake.reset();
		fake.setHandler((request) => (request.stage === 'situated:norm-extract' ? {json: {statesNorm: true, norm: 'In Germany a gift is opened when it is given.', type: 'prescriptive', category: 'gift_giving'}} : handler(request)));
		const second = await extractNorms({rows, done: new Set(saved), rejectedBefore: new Set(rejected), parallel: 2, context: context(), saveNorm: (norm) => saved.push(norm.id), saveRejected: (entry) => rejected.push(entry.row)});
		assert.deepEqual(second.extracted.map((norm) => norm.id), ['norm.fork-r3']);
		assert.equal(second.skipped, 3);
		assert.equal(byStage('norm-extract').length, 1, 'only the failed row is asked again');
		assert.equal(byStage('norm-extract')[0]!.role, 'generator');
	});
});
