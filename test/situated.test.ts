import assert from 'node:assert/strict';
import {readFileSync, writeFileSync} from 'node:fs';
import {z} from 'zod';
import path from 'node:path';
import {describe, it} from 'node:test';
import type {Norm, Verification} from '../src/domain/situated.js';
import {OUTCOME_CALIBRATION, calibrate, combinedReward, fitCalibration, quantile} from '../src/situated/calibrate.js';
import {jsonlAppender, readJsonl} from '../src/situated/jsonl.js';
import {normFromTaboo, normIdentityProblems, readNormFile} from '../src/situated/norms.js';
import {loadUniverse} from '../src/universe/load.js';
import {parsePolicyAnswer} from '../src/situated/policyAnswer.js';
import {route} from '../src/situated/router.js';
import {summarizeEvals} from '../src/situated/summary.js';
import {bestSample} from '../src/situated/evaluate.js';
import {tempDir} from './helpers/tmp.js';

const FIXTURES = path.resolve(import.meta.dirname, 'fixtures');

function verification(a: number, e: number, n: number, r: number, l: number): Verification {
	const check = (score: number) => ({score, reason: 'x'});
	return {actionCorrect: check(a), evidenceSupport: check(e), normMatch: check(n), reasonSupportsAction: check(r), normLeakage: check(l)};
}

describe('situated items: the routing controller', () => {
	it('routes all 32 check combinations as CRISP Table 2 says', () => {
		const seen = new Map<string, number>();
		for (let bits = 0; bits < 32; bits++) {
			const [a, e, n, r, l] = [4, 3, 2, 1, 0].map((shift) => (bits >> shift) & 1) as [number, number, number, number, number];
			// Table 2, row by row: L=1 or A=0 or N=0 revise; A=N=1, L=0 with E or R missing rerun; all pass keep.
			const expected = l === 1 || a === 0 || n === 0 ? 'revise-question' : e === 0 || r === 0 ? 'rerun-answer' : 'keep';
			const got = route(verification(a, e, n, r, l));
			assert.equal(got.decision, expected, `A=${a} E=${e} N=${n} R=${r} L=${l}`);
			assert.ok(got.diagnosis.length > 0);
			seen.set(expected, (seen.get(expected) ?? 0) + 1);
		}
		assert.deepEqual(Object.fromEntries(seen), {'revise-question': 28, 'rerun-answer': 3, keep: 1});
	});

	it('names every failed check in the diagnosis', () => {
		const diagnosis = route(verification(0, 1, 0, 1, 1)).diagnosis;
		assert.match(diagnosis, /L=1/);
		assert.match(diagnosis, /A=0/);
		assert.match(diagnosis, /N=0/);
		assert.match(route(verification(1, 0, 1, 0, 0)).diagnosis, /E=0.*R=0/);
	});
});

describe('situated items: reward calibration', () => {
	it('interpolates quantiles like numpy (type 7)', () => {
		assert.equal(quantile([1, 2, 3, 4], 0.25), 1.75);
		assert.equal(quantile([1, 2, 3, 4], 0.5), 2.5);
		assert.equal(quantile([7], 0.75), 7);
	});

	it('reproduces the paper\'s robust scale from its quartiles, centres on the median and clips at ±20', () => {
		// CRISP C.2: q25 = -7.5, q75 = 1.7891 → s = 6.8859; median -2.078125.
		const calibration = fitCalibration([-20, -7.5, -2.078125, 1.7891, 9]);
		assert.equal(calibration.median, -2.078125);
		assert.ok(Math.abs(calibration.scale - 6.8859) < 1e-4, String(calibration.scale));
		assert.equal(calibrate(calibration.median, calibration), 0.5);
		assert.ok(Math.abs(calibrate(calibration.median + calibration.scale, calibration) - 1 / (1 + Math.exp(-1))) < 1e-12);
		assert.equal(calibrate(1e12, calibration), 1 / (1 + Math.exp(-20)));
		assert.equal(calibrate(-1e12, calibration), 1 / (1 + Math.exp(20)));
	});

	it('falls back to unit scale when the middle half has no spread, and refuses an empty set', () => {
		assert.equal(fitCalibration([3, 3, 3, 3, 9]).scale, 1);
		assert.throws(() => fitCalibration([Number.NaN]), /no rewards/);
	});

	it('adds norm grounding with weight λ, and ranks a better outcome higher at equal grounding', () => {
		assert.equal(combinedReward(3, 0, {lambda: 0.5}), 0.5);
		assert.equal(combinedReward(3, 2, {lambda: 0.5}), 1);
		assert.ok(combinedReward(5, 1, {lambda: 0.5}) > combinedReward(4, 1, {lambda: 0.5}));
		assert.equal(calibrate(3, OUTCOME_CALIBRATION), 0.5);
	});

	it('best-of-N picks the highest reward, the earlier sample on a tie', () => {
		assert.equal(bestSample([{reward: 0.2}, {reward: 0.9}, {reward: 0.9}]), 1);
		assert.equal(bestSample([{reward: -5}, {reward: -5}]), 0);
	});
});

describe('situated items: the policy answer contract', () => {
	const ok = (raw: string) => {
		const parsed = parsePolicyAnswer(raw);
		assert.equal(parsed.invalid, null, raw);
		return parsed.answer!;
	};
	const bad = (raw: string, why: RegExp) => {
		const parsed = parsePolicyAnswer(raw);
		assert.equal(parsed.answer, null, raw);
		assert.match(parsed.invalid!, why);
	};

	it('accepts exactly {answer, reasoning}, also inside one code fence or after a closed thinking block', () => {
		assert.deepEqual(ok('{"answer": "Take off your shoes.", "reasoning": "The genkan step marks the inside."}'), {answer: 'Take off your shoes.', reasoning: 'The genkan step marks the inside.'});
		assert.equal(ok('```json\n{"answer": "a", "reasoning": "b"}\n```').answer, 'a');
		assert.equal(ok('<think>let me see</think>\n{"answer": "a", "reasoning": "b"}').reasoning, 'b');
	});

	it('rejects empty, prose, truncated, extra or missing fields, empty fields, non-strings and thinking tags inside', () => {
		bad('   ', /empty reply/);
		bad('I would take my shoes off.', /not a JSON object/);
		bad('{"answer": "Take off your sh', /truncated/);
		bad('{"answer": "a", "reasoning": "b", "confidence": 0.9}', /exactly answer and reasoning.*confidence/);
		bad('{"answer": "a"}', /exactly answer and reasoning/);
		bad('{"answer": "  ", "reasoning": "b"}', /empty answer/);
		bad('{"answer": 3, "reasoning": "b"}', /strings/);
		bad('{"answer": "a <think>hmm</think>", "reasoning": "b"}', /thinking tags/);
		bad('[1, 2]', /not a JSON object/);
	});
});

describe('situated items: norm sources', () => {
	it('reads a taboo entry as a proscriptive norm of its region and identities', () => {
		const norm = normFromTaboo({id: 'tab-jp-001', region: 'JP', identities: ['jp-japanese'], category: 'culinary', action: 'Passing food from chopsticks to chopsticks.', explanation: 'It recalls a funeral rite.', severity: 'medium', source: 'x'});
		assert.deepEqual(norm, {id: 'norm.tab-jp-001', region: 'JP', identities: ['jp-japanese'], text: 'Avoid passing food from chopsticks to chopsticks. It recalls a funeral rite.', type: 'proscriptive', source: 'tab-jp-001'});
	});

	it('imports FORK rows of the ten regions (not underspecified ones, not other countries), deduplicated', () => {
		const norms = readNormFile(path.join(FIXTURES, 'fork', 'sample.csv'));
		assert.deepEqual(norms.map((norm) => norm.region), ['JP', 'CN', 'KR']);
		assert.match(norms[0]!.text, /entrance\? The expected answer: take off shoes\.$/);
		assert.match(norms[2]!.text, /two hands, or one hand supporting the wrist/);
		assert.ok(norms.every((norm) => norm.type === 'prescriptive' && norm.source.startsWith('FORK t-00')));
	});

	it('reads JSONL norms and names the line of a bad one', () => {
		const dir = tempDir();
		const good: Norm = {id: 'norm.custom-1', region: 'TH', identities: [], text: 'Do not touch the top of a person\'s head.', type: 'proscriptive', source: 'mine'};
		const file = path.join(dir, 'norms.jsonl');
		writeFileSync(file, `${JSON.stringify(good)}\n`);
		assert.deepEqual(readNormFile(file), [good]);
		writeFileSync(file, `${JSON.stringify(good)}\n{"id": "norm.x", "region": "XX"}\nnot json\n`);
		assert.throws(() => readNormFile(file), (error: Error) => /line 2: region/.test(error.message) && /line 3: not valid JSON/.test(error.message));
		assert.throws(() => readNormFile(path.join(dir, 'missing.jsonl')), /Cannot read the norms file/);
		const universe = loadUniverse();
		assert.deepEqual(normIdentityProblems([good, {...good, id: 'norm.custom-2', identities: ['th-isan']}], universe), []);
		assert.deepEqual(normIdentityProblems([{...good, identities: ['th-nobody', 'my-tamil-hindu']}], universe), [
			"norm.custom-1: unknown identity 'th-nobody' (see `cultureconverse personas --region TH`)",
			"norm.custom-1: identity 'my-tamil-hindu' belongs to MY, not TH",
		]);
		writeFileSync(path.join(dir, 'other.csv'), 'a,b\n1,2\n');
		assert.throws(() => readNormFile(path.join(dir, 'other.csv')), /not a FORK CSV: missing column/);
	});
});

describe('situated items: the report', () => {
	it('counts invalid answers as 0, separates one answer from the best-of-N pick, and slices by region', () => {
		const sample = (index: number, outcome: number | null, match: number | null, reward: number) => ({
			sample: index,
			raw: 'x',
			answer: outcome === null ? null : {answer: 'a', reasoning: 'r'},
			invalid: outcome === null ? 'not a JSON object' : null,
			outcome: outcome === null ? null : {score: outcome, evidence: '', reason: ''},
			normMatch: match === null ? null : {score: match, reason: ''},
			reward,
		});
		const evaluation = (itemId: string, region: 'JP' | 'KR', samples: ReturnType<typeof sample>[]) => ({itemId, region, normId: 'n', policyModel: 'm', judgeModel: 'j', samples, chosen: bestSample(samples), createdAt: ''});
		const rows = summarizeEvals([
			evaluation('a', 'JP', [sample(0, null, null, -5), sample(1, 4, 2, 1.2)]),
			evaluation('b', 'KR', [sample(0, 2, 1, 0.4), sample(1, 5, 0, 0.9)]),
		]);
		assert.deepEqual(rows.map((row) => row.region), ['all', 'JP', 'KR']);
		const all = rows[0]!;
		assert.equal(all.outcome!.mean, 1); // (0 + 2) / 2: the invalid first answer counts 0
		assert.equal(all.outcomeBestOf!.mean, 4.5); // (4 + 5) / 2
		assert.equal(all.normMatch!.mean, 0.5);
		assert.equal(all.invalidRate, 0.25);
		assert.equal(rows[1]!.outcomeCeiling!.mean, 4);
	});
});

describe('situated items: JSONL files', () => {
	it('keeps a whole last record that only lacks its newline, and cuts a half-written one', () => {
		const dir = tempDir();
		const file = path.join(dir, 'records.jsonl');
		const Row = z.strictObject({id: z.string()});
		writeFileSync(file, '{"id": "a"}\n{"id": "b"}');
		assert.deepEqual(readJsonl(file, Row).records.map((row) => row.id), ['a', 'b']);
		jsonlAppender(file).append({id: 'c'});
		assert.deepEqual(readJsonl(file, Row).records.map((row) => row.id), ['a', 'b', 'c']);
		writeFileSync(file, '{"id": "a"}\n{"id": "b');
		const read = readJsonl(file, Row);
		assert.equal(read.droppedLastLine, true);
		assert.deepEqual(read.records.map((row) => row.id), ['a']);
		jsonlAppender(file).append({id: 'c'});
		assert.equal(readFileSync(file, 'utf8'), '{"id": "a"}\n{"id":"c"}\n');
	});
});
