import assert from 'node:assert/strict';
import {readFileSync, writeFileSync} from 'node:fs';
import {z} from 'zod';
import path from 'node:path';
import {describe, it} from 'node:test';
import {type Norm, type ScoredAnswer, type SituatedEval, SituatedEval as SituatedEvalSchema, SituatedItem, type Verification} from '../src/domain/situated.js';
import {DEFAULT_LAMBDA, calibrate, fitCalibration, quantile, totalReward} from '../src/situated/calibrate.js';
import {countryCode, cultureLabel, matchesCulture, normSplit, regionOfCountry} from '../src/situated/cultures.js';
import {jsonlAppender, readJsonl} from '../src/situated/jsonl.js';
import {regionNamer, upgradeEval, upgradeItem} from '../src/situated/legacy.js';
import {normFromTaboo, normIdentityProblems, readNormFile} from '../src/situated/norms.js';
import {readSourceRows} from '../src/situated/normSources.js';
import {loadUniverse} from '../src/universe/load.js';
import {parsePolicyAnswer} from '../src/situated/policyAnswer.js';
import {route} from '../src/situated/router.js';
import {oraclePick, rewardPick, selectorCalibration} from '../src/situated/selection.js';
import {summarizeEvals} from '../src/situated/summary.js';
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

function sample(index: number, outcome: number | null, match: number | null, grounding: number | null = null): ScoredAnswer {
	return {
		sample: index,
		raw: 'x',
		answer: outcome === null ? null : {answer: 'a', reasoning: 'r'},
		invalid: outcome === null ? 'not a JSON object' : null,
		outcome: outcome === null ? null : {score: outcome, evidence: '', reason: ''},
		normMatch: match === null ? null : {score: match, reason: ''},
		grounding: outcome === null ? null : grounding,
	};
}

function evalOf(itemId: string, culture: string, samples: ScoredAnswer[], selectors: SituatedEval['selectors'] = []): SituatedEval {
	const country = countryCode(culture);
	return {itemId, normId: `n-${itemId}`, culture, country, region: regionOfCountry(country), split: 'train', policyModel: 'm', judgeModel: 'j', samples, grounding: null, selectors, createdAt: ''};
}

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

	it('r_total adds norm grounding with weight λ (default 0.15, the paper\'s best range) to the calibrated reward', () => {
		const calibration = {median: 2, scale: 4, n: 10};
		assert.equal(DEFAULT_LAMBDA, 0.15);
		assert.equal(totalReward(2, null, {lambda: 0.15, calibration}), 0.5);
		assert.ok(Math.abs(totalReward(2, 1, {lambda: 0.15, calibration}) - 0.65) < 1e-12);
		assert.ok(totalReward(6, 0, {lambda: 0.15, calibration}) > totalReward(2, 1, {lambda: 0.15, calibration}), 'grounding cannot outweigh a much better reward at λ = 0.15');
	});

	it('a reward model\'s pick is its highest score among valid samples (the earlier on a tie); the oracle pick is the best grade', () => {
		assert.equal(rewardPick([0.2, 0.9, 0.9]), 1);
		assert.equal(rewardPick([null, -1, null]), 1);
		assert.equal(rewardPick([null, null]), null);
		assert.equal(rewardPick([1, 5, 9], 2), 1, 'only the first n count');
		const graded = (outcome: number | null, match = 0) => sample(0, outcome, outcome === null ? null : match);
		assert.equal(oraclePick([graded(null), graded(4, 0), graded(4, 2), graded(3, 2)]), 2, 'best grade, then norm match');
		assert.equal(oraclePick([graded(5), graded(5)]), 0);
	});

	it('calibrates a reward model on its own scores, from the validation split when it holds enough', () => {
		const evaluation = (split: SituatedEval['split'], scores: number[]) => ({...evalOf('x', 'JP', scores.map((_, i) => sample(i, 3, 1))), split, selectors: [{id: 'model:rm', scores}]});
		const fitted = (result: ReturnType<typeof selectorCalibration>) => {
			assert.ok(!('reason' in result), JSON.stringify(result));
			return result as Exclude<typeof result, {reason: string}>;
		};
		// Test items are never fitted on: 100 test scores far from the train ones change nothing.
		const fromTrain = fitted(selectorCalibration([evaluation('train', [1, 2, 3, 4]), evaluation('test', Array.from({length: 100}, () => 1000))], 'model:rm'));
		assert.deepEqual([fromTrain.from, fromTrain.median, fromTrain.n], ['train', 2.5, 4]);
		const fromValidation = fitted(selectorCalibration([evaluation('train', [100, 200, 300, 400]), evaluation('validation', [1, 2, 3, 4, 5, 6, 7, 8])], 'model:rm'));
		assert.deepEqual([fromValidation.from, fromValidation.median, fromValidation.n], ['validation', 4.5, 8]);
		const refused = selectorCalibration([evaluation('train', [1, 2]), evaluation('test', [1, 2, 3, 4, 5, 6, 7, 8, 9])], 'model:rm');
		assert.ok('reason' in refused && /test items are never used/.test(refused.reason), 'too few train and validation scores: refused, never fitted on the test items');
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

describe('situated items: cultures', () => {
	it('finds ISO codes for the labels data sets use, and leaves cultures without one as free labels', () => {
		assert.deepEqual(['USA', 'India', 'UAE', 'south_korea', 'united_states_of_america', 'Germany', 'de', 'Brunei', 'Korea', 'Viet Nam', 'hong_kong'].map(countryCode), ['US', 'IN', 'AE', 'KR', 'US', 'DE', 'DE', 'BN', 'KR', 'VN', 'HK']);
		assert.equal(countryCode('Zulu'), null);
		assert.equal(countryCode('XX'), null);
		assert.deepEqual([regionOfCountry('JP'), regionOfCountry('DE'), regionOfCountry(null)], ['JP', null, null]);
	});

	it('reads NormAd keys as labels, and keeps anyone\'s own spelling', () => {
		assert.deepEqual(['south_korea', 'united_states_of_america', 'germany', 'USA', 'Tamil Hindus in Malaysia'].map(cultureLabel), ['South Korea', 'United States of America', 'Germany', 'USA', 'Tamil Hindus in Malaysia']);
	});

	it('matches --culture by label or code, any case', () => {
		const german = {culture: 'Germany', country: 'DE'};
		assert.ok(['de', 'DE', 'germany', 'Germany', 'Deutschland'].slice(0, 4).every((value) => matchesCulture(german, value)));
		assert.ok(matchesCulture({culture: 'USA', country: 'US'}, 'United States'), 'two names of one country');
		assert.ok(!matchesCulture(german, 'Japan'));
		assert.ok(matchesCulture({culture: 'Zulu', country: null}, 'zulu'));
	});

	it('splits norms 80/10/10 by a stable hash of the id', () => {
		const ids = Array.from({length: 2000}, (_, i) => `norm.x-${i}`);
		const counts = {train: 0, validation: 0, test: 0};
		for (const id of ids) counts[normSplit(id)]++;
		assert.ok(Math.abs(counts.train / 2000 - 0.8) < 0.03 && Math.abs(counts.validation / 2000 - 0.1) < 0.02, JSON.stringify(counts));
		assert.equal(normSplit('norm.x-7'), normSplit('norm.x-7'));
	});
});

describe('situated items: norm sources', () => {
	const universe = loadUniverse();
	const names = regionNamer(universe);

	it('reads a taboo entry as a proscriptive norm of its region and identities', () => {
		const norm = normFromTaboo({id: 'tab-jp-001', region: 'JP', identities: ['jp-japanese'], category: 'culinary', action: 'Passing food from chopsticks to chopsticks.', explanation: 'It recalls a funeral rite.', severity: 'medium', source: 'x'}, 'Japan');
		assert.deepEqual(norm, {id: 'norm.tab-jp-001', culture: 'Japan', country: 'JP', region: 'JP', identities: ['jp-japanese'], text: 'Avoid passing food from chopsticks to chopsticks. It recalls a funeral rite.', type: 'proscriptive', category: 'dining_etiquette', source: 'tab-jp-001'});
	});

	it('reads FORK rows of any country as rows to extract, underspecified ones with the keyed culture named', () => {
		const {rows} = readSourceRows(path.join(FIXTURES, 'fork', 'sample.csv'), 'fork');
		assert.equal(rows.length, 6);
		assert.ok(rows.every((row) => row.kind === 'extract'));
		const extract = rows.filter((row) => row.kind === 'extract');
		assert.deepEqual(extract.map((row) => row.culture), ['Japan', 'China', 'China', 'South Korea', 'USA', 'Japan']);
		assert.equal(extract[0]!.answer, 'take off shoes');
		assert.match(extract[2]!.hint!, /names no country; the keyed answer is the one expected in China/);
		assert.equal(extract[0]!.normId, `norm.fork-${extract[0]!.normId.slice('norm.fork-'.length)}`);
		assert.notEqual(extract[0]!.normId, extract[5]!.normId, 'one norm per row');
	});

	it('adopts NormAd rules of thumb as norms of any country, one per rule, and names the broken rows', () => {
		const {rows} = readSourceRows(path.join(FIXTURES, 'normad', 'normad_sample.csv'), 'normad');
		const direct = rows.flatMap((row) => (row.kind === 'direct' ? [row.norm] : []));
		const rejected = rows.filter((row) => row.kind === 'rejected');
		assert.ok(direct.some((norm) => norm.culture === 'France' && norm.country === 'FR' && norm.region === null));
		assert.ok(direct.some((norm) => norm.culture === 'Hong Kong' && norm.country === 'HK'));
		const shoes = direct.filter((norm) => /outdoor shoes inside/.test(norm.text));
		assert.equal(new Set(shoes.map((norm) => norm.id)).size, 1, 'stories that share a rule share its norm');
		assert.equal(shoes[0]!.type, 'proscriptive');
		assert.equal(shoes[0]!.category, 'hospitality');
		assert.ok(direct.some((norm) => norm.category === 'gift_giving'));
		assert.ok(rejected.length >= 2, JSON.stringify(rejected));
		assert.ok(rejected.every((row) => row.kind === 'rejected' && row.line > 1 && row.reason.length > 0));
	});

	it('reads CulturalBench Easy rows (the keyed option) and Hard rows (only the true option)', () => {
		const dir = tempDir();
		const easy = path.join(dir, 'easy.csv');
		writeFileSync(easy, 'data_idx,question_idx,prompt_question,prompt_option_a,prompt_option_b,prompt_option_c,prompt_option_d,answer,country\n0,q1,"At a dinner in Germany, when do guests start eating?",right away,after the host says to,after the dessert,never,B,Germany\n1,q2,What is common?,a,b,c,d,E,Peru\n');
		const easyRows = readSourceRows(easy, 'culturalbench').rows;
		assert.equal(easyRows[0]!.kind === 'extract' && easyRows[0]!.answer, 'after the host says to');
		assert.ok(easyRows[1]!.kind === 'rejected' && /answer 'E'/.test(easyRows[1]!.reason));
		const hard = path.join(dir, 'hard.jsonl');
		writeFileSync(hard, ['{"question_idx": "q1", "prompt_question": "In Germany, guests start eating", "prompt_option": "after the host says to", "answer": true, "country": "Germany"}', '{"question_idx": "q1", "prompt_question": "In Germany, guests start eating", "prompt_option": "right away", "answer": false, "country": "Germany"}'].join('\n'));
		const hardRead = readSourceRows(hard, 'culturalbench');
		assert.equal(hardRead.rows.length, 1);
		assert.deepEqual(hardRead.skipped, {'CulturalBench-Hard rows whose option is false': 1});
		assert.throws(() => readSourceRows(path.join(FIXTURES, 'fork', 'sample.csv'), 'culturalbench'), /not a culturalbench file: missing column/);
	});

	it('reads JSONL rows: full norms as they are, statements to extract, and names a bad line', () => {
		const dir = tempDir();
		const file = path.join(dir, 'mine.jsonl');
		const full: Norm = {id: 'norm.de-gift', culture: 'Germany', country: 'DE', region: null, identities: [], text: 'A gift is opened in front of the giver.', type: 'prescriptive', category: 'gift_giving', source: 'mine'};
		writeFileSync(file, [JSON.stringify(full), '{"culture": "Germany", "text": "People are punctual for appointments."}', 'oops', '{"culture": "Peru"}'].join('\n'));
		const {rows} = readSourceRows(file, 'jsonl');
		assert.deepEqual(rows.map((row) => row.kind), ['direct', 'extract', 'rejected', 'rejected']);
		assert.deepEqual(rows[0]!.kind === 'direct' && rows[0]!.norm, full);
	});

	it('reads JSONL norms of any culture, earlier files by their region code, and names the line of a bad one', () => {
		const dir = tempDir();
		const good: Norm = {id: 'norm.custom-1', culture: 'Germany', country: 'DE', region: null, identities: [], text: 'A gift is opened in front of the giver.', type: 'prescriptive', category: 'gift_giving', source: 'mine'};
		const file = path.join(dir, 'norms.jsonl');
		writeFileSync(file, `${JSON.stringify(good)}\n${JSON.stringify({id: 'norm.old-1', region: 'TH', identities: [], text: "Do not touch the top of a person's head.", type: 'proscriptive', source: 'mine'})}\n`);
		const read = readNormFile(file, names);
		assert.deepEqual(read[0], good);
		assert.deepEqual([read[1]!.culture, read[1]!.country, read[1]!.region, read[1]!.category], ['Thailand', 'TH', 'TH', 'other']);
		writeFileSync(file, `${JSON.stringify(good)}\n{"id": "norm.x", "culture": "Peru", "country": "pe"}\nnot json\n`);
		assert.throws(() => readNormFile(file, names), (error: Error) => /line 2: country/.test(error.message) && /line 3: not valid JSON/.test(error.message));
		assert.throws(() => readNormFile(path.join(dir, 'missing.jsonl'), names), /Cannot read the norms file/);
		assert.throws(() => readNormFile(path.join(FIXTURES, 'fork', 'sample.csv'), names), /crisp norms extract --from sample.csv --format/);
		const th: Norm = {...good, culture: 'Thailand', country: 'TH', region: 'TH'};
		assert.deepEqual(normIdentityProblems([good, {...th, id: 'norm.custom-2', identities: ['th-isan']}], universe), []);
		assert.deepEqual(normIdentityProblems([{...th, identities: ['th-nobody', 'my-tamil-hindu']}, {...good, identities: ['th-isan']}], universe), [
			"norm.custom-1: unknown identity 'th-nobody' (see `npx cultureconverse personas --region TH`)",
			"norm.custom-1: identity 'my-tamil-hindu' belongs to MY, not TH",
			"norm.custom-1: identity 'th-isan' needs the norm to be of one of the ten regions (region is null)",
		]);
	});

	it('reads items and evaluations of the first version in today\'s shape', () => {
		const oldNorm = {id: 'norm.tab-jp-001', region: 'JP', identities: [], text: 'Avoid sticking chopsticks upright in rice.', type: 'proscriptive', source: 'tab-jp-001'};
		const oldChronotope = {time: 'a meal', place: 'a home', participants: 'a family', activity: 'dinner', expectations: 'relaxed'};
		const item = SituatedItem.parse(upgradeItem({id: 'norm.tab-jp-001.c1', culture: 'Japan', norm: oldNorm, chronotopeIndex: 0, chronotope: oldChronotope, status: 'discarded', draft: null, rounds: [], error: null, models: {}, createdAt: ''}, names));
		assert.equal(item.chronotope.frame, 'relaxed');
		assert.match(item.chronotope.tension, /not recorded/);
		assert.equal(item.norm.culture, 'Japan');
		const oldSample = {sample: 0, raw: 'x', answer: {answer: 'a', reasoning: 'r'}, invalid: null, outcome: {score: 4, evidence: '', reason: ''}, normMatch: {score: 1, reason: ''}, reward: 0.9};
		const evaluation = SituatedEvalSchema.parse(upgradeEval({itemId: 'i', region: 'KR', normId: 'norm.tab-kr-001', policyModel: 'm', judgeModel: 'j', samples: [oldSample], chosen: 0, createdAt: ''}, names));
		assert.deepEqual([evaluation.culture, evaluation.country, evaluation.selectors, evaluation.samples[0]!.grounding], ['Korea', 'KR', [], null]);
	});
});

describe('situated items: the report', () => {
	it('counts invalid answers as 0, reports the reward model\'s pick next to the oracle ceiling with the gap, and slices by culture', () => {
		const report = summarizeEvals(
			[
				evalOf('a', 'Japan', [sample(0, null, null), sample(1, 4, 2, 0.8), sample(2, 2, 0, 0.1)], [{id: 'model:rm', scores: [null, 3, 8]}]),
				evalOf('b', 'Germany', [sample(0, 2, 1, 0.4), sample(1, 5, 0, 0.3)], [{id: 'model:rm', scores: [1, 9]}]),
				evalOf('c', 'Germany', [sample(0, 5, 2, 0.9), sample(1, 1, 0, 0.1)], [{id: 'model:rm', scores: [6, 2]}]),
				evalOf('d', 'Germany', [sample(0, 3, 1, 0.5), sample(1, 3, 1, 0.5)]),
			],
			{lambda: 0.15},
		);
		const rows = report.rows;
		assert.deepEqual(rows.map((row) => `${row.selector}/${row.culture}`), ['model:rm/all', 'model:rm/Germany', 'model:rm/Japan']);
		const all = rows[0]!;
		assert.equal(all.items, 3, 'the evaluation the reward model did not score is left out of its rows');
		assert.deepEqual(report.unscored, [{policyModel: 'm', selector: 'model:rm', evaluations: 1}]);
		assert.ok(Math.abs(all.outcome!.mean - 7 / 3) < 1e-9); // (0 + 2 + 5) / 3: the invalid first answer counts 0
		assert.ok(Math.abs(all.bestOf!.mean - 12 / 3) < 1e-9); // picks: 2 (score 8), 5 (9), 5 (6)
		assert.ok(Math.abs(all.oracle!.mean - 14 / 3) < 1e-9); // 4, 5, 5
		assert.ok(Math.abs(all.gap!.mean - 2 / 3) < 1e-9);
		assert.ok(Math.abs(all.hitsCeiling!.mean - 2 / 3) < 1e-9);
		assert.ok(Math.abs(all.normMatch!.mean - 1) < 1e-9); // (0 + 1 + 2) / 3
		assert.equal(all.normMatchValid!.mean, 1.5); // (1 + 2) / 2
		assert.ok(Math.abs(all.invalidRate - 1 / 7) < 1e-9);
		assert.equal(report.calibrations[0]!.n, 6, "fitted on the reward model's own six scores");
		assert.ok(all.pickReward && all.pickReward.mean > 0 && all.pickReward.mean < 1.15);
		// The same items give the same interval in every row: an "all" row over one culture and that culture's row agree.
		const oneCulture = summarizeEvals(Array.from({length: 12}, (_, i) => evalOf(`j${i}`, 'Japan', [sample(0, 1 + (i % 5), 1), sample(1, 3, 1)])), {lambda: 0.15});
		assert.deepEqual(oneCulture.rows.map((row) => row.culture), ['all', 'Japan']);
		assert.deepEqual(oneCulture.rows[0]!.outcome, oneCulture.rows[1]!.outcome);
		assert.equal(oneCulture.rows[0]!.norms, 12);
		// Graders are cells: two judges' evaluations of one policy are never pooled into one row.
		const twoGraders = summarizeEvals([evalOf('a', 'Japan', [sample(0, 2, 1)]), {...evalOf('b', 'Japan', [sample(0, 4, 1)]), judgeModel: 'other'}], {lambda: 0.15});
		assert.deepEqual(twoGraders.rows.filter((row) => row.culture === 'all').map((row) => [row.judgeModel, row.outcome!.mean]), [['j', 2], ['other', 4]]);
		const none = summarizeEvals([evalOf('d', 'Germany', [sample(0, 3, 1), sample(1, 4, 1)])], {lambda: 0.15});
		assert.deepEqual(none.rows.map((row) => [row.selector, row.bestOf, row.gap]), [[null, null, null], [null, null, null]], 'no reward model, no best-of-N figure');
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
