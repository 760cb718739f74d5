import assert from 'node:assert/strict';
import {describe, it} from 'node:test';
import type {Norm, ScoredAnswer, SituatedEval, SituatedItem} from '../src/domain/situated.js';
import {formatPair} from '../src/export/pairFormats.js';
import {normSplit} from '../src/situated/cultures.js';
import {balancePool, buildSituatedPairs} from '../src/situated/pairs.js';
import {chatTemplateProblems, datasetAttr, isConversational, llamaFactoryPairwise, maybeExtractPrompt, openAiDpoProblems} from './helpers/trainerFormats.js';

/* Preference pairs the paper's way, and what trainers make of the three layouts they are written in. */

const norm = (id: string): Norm => ({id, culture: 'Germany', country: 'DE', region: null, identities: [], text: 'A gift is opened in front of the giver.', type: 'prescriptive', category: 'gift_giving', source: 'test'});
const item = (id: string, normId = `norm.${id}`): SituatedItem => ({
	id,
	culture: 'Germany',
	norm: norm(normId),
	chronotopeIndex: 0,
	chronotope: {time: 't', place: 'p', participants: 'x', activity: 'a', frame: 'f', tension: 'n', activation: 'c', difference: 'd'},
	status: 'kept',
	draft: {scenario: `A farewell at the office; colleagues hand Anna a wrapped gift (${id}).`, question: 'What should Anna do with the gift?', hiddenExpectedAnswer: 'Open it there.', notes: ''},
	rounds: [],
	error: null,
	models: {},
	createdAt: '',
});
const answer = (index: number, outcome: number | null, text = `answer ${index}`): ScoredAnswer => ({
	sample: index,
	raw: 'x',
	answer: outcome === null ? null : {answer: text, reasoning: `because ${index}`},
	invalid: outcome === null ? 'not a JSON object' : null,
	outcome: outcome === null ? null : {score: outcome, evidence: '', reason: ''},
	normMatch: outcome === null ? null : {score: 1, reason: ''},
	grounding: null,
});
const evaluation = (itemId: string, samples: ScoredAnswer[], policyModel = 'm'): SituatedEval => ({itemId, normId: `norm.${itemId}`, culture: 'Germany', country: 'DE', region: null, split: normSplit(`norm.${itemId}`), policyModel, judgeModel: 'j', samples, grounding: null, selectors: [], createdAt: ''});
// Item ids whose norms fall in the train split, so the default filter keeps them.
const trainIds = Array.from({length: 40}, (_, i) => `item-${i}`).filter((id) => normSplit(`norm.${id}`) === 'train');

describe('situated pairs: construction (CRISP B.1)', () => {
	const options = {minMargin: 1, maxPerItem: 8, balance: false, split: 'any' as const};

	it('pairs every two answers to a question whose grades differ, higher one chosen, ties and invalid answers out', () => {
		const id = trainIds[0]!;
		const built = buildSituatedPairs([evaluation(id, [answer(0, 5), answer(1, 3), answer(2, 3), answer(3, null), answer(4, 1)])], new Map([[id, item(id)]]), options);
		// 5>3, 5>3, 5>1, 3>1, 3>1: five pairs; the two 3s are a tie.
		assert.equal(built.pairs.length, 5);
		for (const pair of built.pairs) {
			const meta = pair.extra['metadata'] as {chosen: {outcome: number}; rejected: {outcome: number}};
			assert.ok(meta.chosen.outcome > meta.rejected.outcome);
		}
		assert.ok(built.pairs.every((pair) => !pair.chosen.includes('not a JSON') && pair.prompt.at(-1)!.role === 'user'));
	});

	it('pools the answers of several policy models to the same question, and drops repeated answers', () => {
		const id = trainIds[0]!;
		const built = buildSituatedPairs([evaluation(id, [answer(0, 5, 'first'), answer(1, 2, 'same')], 'a'), evaluation(id, [answer(0, 4, 'second'), answer(1, 2, 'same')], 'b')], new Map([[id, item(id)]]), options);
		// Distinct answers 5, 2, 4: pairs 5>2, 5>4, 4>2.
		assert.equal(built.pairs.length, 3);
	});

	it('keeps at most --max-pairs-per-item per question, the same ones every time', () => {
		const id = trainIds[0]!;
		const samples = [5, 5, 4, 4, 3, 3, 2, 2, 1, 1].map((grade, index) => answer(index, grade));
		const a = buildSituatedPairs([evaluation(id, samples)], new Map([[id, item(id)]]), options);
		assert.equal(a.pairs.length, 8, 'out of 40 eligible pairs');
		const b = buildSituatedPairs([evaluation(id, [...samples].reverse())], new Map([[id, item(id)]]), options);
		assert.deepEqual(b.pairs.map((pair) => pair.extra['id']).sort(), a.pairs.map((pair) => pair.extra['id']).sort(), 'a stable uniform draw');
		assert.equal(buildSituatedPairs([evaluation(id, samples)], new Map([[id, item(id)]]), {...options, minMargin: 3}).pairs.length, 8);
	});

	it('balances the pool across grades: no grade keeps more answers than the median grade has', () => {
		const pool = [...Array.from({length: 30}, (_, i) => ({key: `a${i}`, outcome: 5})), ...Array.from({length: 6}, (_, i) => ({key: `b${i}`, outcome: 3})), ...Array.from({length: 2}, (_, i) => ({key: `c${i}`, outcome: 1}))];
		const {kept, cap} = balancePool(pool);
		assert.equal(cap, 6);
		assert.deepEqual([5, 3, 1].map((grade) => kept.filter((response) => response.outcome === grade).length), [6, 6, 2]);
		assert.deepEqual(balancePool(pool).kept, kept, 'the same answers every time');
		assert.equal(balancePool([{key: 'x', outcome: 4}]).cap, null, 'one grade: nothing to balance');
	});

	it('takes the train split by default, so pairs never come from test norms', () => {
		const testId = Array.from({length: 200}, (_, i) => `t-${i}`).find((id) => normSplit(`norm.${id}`) === 'test')!;
		const built = buildSituatedPairs([evaluation(testId, [answer(0, 5), answer(1, 1)])], new Map([[testId, item(testId)]]), {...options, split: 'train'});
		assert.equal(built.pairs.length, 0);
		assert.deepEqual(built.skipped, {'test split': 1});
	});
});

describe('situated pairs: trainer layouts', () => {
	const id = trainIds[0]!;
	const parts = buildSituatedPairs([evaluation(id, [answer(0, 5, 'Open the gift there and thank everyone.'), answer(1, 2, 'Open the gift at home later.')])], new Map([[id, item(id)]]), {minMargin: 1, maxPerItem: 8, balance: true, split: 'any'}).pairs;

	it('trl: TRL keeps the prompt (maybe_extract_prompt returns the row as it is) and its chat template accepts the keys', () => {
		assert.equal(parts.length, 1);
		const row = JSON.parse(JSON.stringify(formatPair(parts[0]!, 'trl'))) as Record<string, unknown>;
		assert.deepEqual(maybeExtractPrompt(row), row, 'the prompt survives');
		assert.ok(isConversational({chosen: row['chosen']}) && isConversational({prompt: row['prompt']}));
		assert.deepEqual(chatTemplateProblems(row), []);
		assert.equal((row['prompt'] as Array<{role: string}>).at(-1)!.role, 'user');
	});

	it('the old layout (message-list prompt, string answers) is what TRL cut down: the check catches it', () => {
		const old = {prompt: parts[0]!.prompt, chosen: parts[0]!.chosen, rejected: parts[0]!.rejected};
		const seen = maybeExtractPrompt(old);
		assert.notDeepEqual(seen['prompt'], old.prompt, 'TRL replaced the prompt with the answers\' common prefix');
		assert.equal(seen['prompt'], '{"answer":"Open the gift', 'the shared start of the two answers (less the space TRL trims)');
		const attr = datasetAttr({ranking: true, columns: {messages: 'prompt', chosen: 'chosen', rejected: 'rejected'}, tags: {role_tag: 'role', content_tag: 'content', user_tag: 'user', assistant_tag: 'assistant'}});
		assert.ok('dropped' in llamaFactoryPairwise(old, attr), 'and LLaMA-Factory dropped it');
	});

	it('sharegpt: LLaMA-Factory\'s converter keeps the pair with the dataset_info entry the export prints', () => {
		const row = JSON.parse(JSON.stringify(formatPair(parts[0]!, 'sharegpt'))) as Record<string, unknown>;
		const result = llamaFactoryPairwise(row, datasetAttr({ranking: true, columns: {messages: 'conversations', chosen: 'chosen', rejected: 'rejected'}}));
		assert.ok('kept' in result, JSON.stringify(result));
		assert.equal(result.kept.system, parts[0]!.prompt[0]!.content);
		assert.deepEqual(result.kept.prompt.map((message) => message.role), ['user']);
		assert.deepEqual(result.kept.response.map((message) => message.content), [parts[0]!.chosen, parts[0]!.rejected]);
	});

	it('openai-dpo: exactly input, preferred_output and non_preferred_output', () => {
		const row = JSON.parse(JSON.stringify(formatPair(parts[0]!, 'openai-dpo'))) as Record<string, unknown>;
		assert.deepEqual(openAiDpoProblems(row), []);
		assert.deepEqual(openAiDpoProblems({...row, id: 'x'}), ['keys id,input,non_preferred_output,preferred_output'], 'the check notices an extra field');
	});
});
