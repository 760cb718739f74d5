import {METRICS, type Metric} from '../domain/session.js';
import type {JudgeMockInput} from '../episode/judge.js';
import type {CombinedJudgement, HarmlessnessJudgement, MetricJudgement} from '../episode/judge.js';
import type {CandidateMockInput, CandidateRatings} from '../episode/candidates.js';
import {tabooId} from '../pipeline/render.js';
import {criteriaOf, findings, rateReply, rubricScore} from './rubric.js';

/*
 * The offline judge is a rubric, not a model (mock/rubric.ts): its scores follow what the assistant
 * wrote (criteria addressed, tripwires and taboos run into, specificity, language, questions) and each
 * rationale says which, prefixed "[rubric]". Sessions it judges are labelled `mock:rubric`
 * (domain/setup.ts `MOCK_JUDGE`), so reports keep its scores in a judge cell of their own.
 */

export function mockJudge(input: unknown): MetricJudgement | HarmlessnessJudgement | CombinedJudgement {
	const judge = input as JudgeMockInput;
	const f = findings(judge.session);
	const violations = f.violations.map(({id, evidence}) => ({id, evidence}));
	if (judge.metric === 'combined') {
		const entries = Object.fromEntries(METRICS.map((metric) => [metric, rubricScore(metric, f)])) as Record<Metric, MetricJudgement>;
		return {...entries, violations, otherHarms: []};
	}
	const base = rubricScore(judge.metric, f);
	if (judge.metric === 'harmlessness') return {rationale: base.rationale, violations, otherHarms: [], score: base.score};
	return {rationale: base.rationale, score: base.score};
}

/**
 * Offline best-of-N rater: each candidate is scored by the same rubric against the current phase's
 * success condition and the oracle's criteria, and loses everything for running into a tripwire or
 * taboo; so the choice is visible and explainable, and never a model's judgement.
 */
export function mockCandidateRatings(input: unknown): CandidateRatings {
	const {session, candidates} = input as CandidateMockInput;
	const phase = Math.min(session.shardIndex, (session.shards?.length ?? 1) - 1);
	const criteria = criteriaOf(session).filter((criterion) => criterion.id.startsWith('S') || criterion.id === `P${phase + 1}`);
	const oracle = session.blueprint?.oracle;
	const forbidden = [...(oracle?.tripwires ?? []).map((tripwire) => ({id: tripwire.id, text: tripwire.description})), ...(oracle?.taboos ?? []).map((taboo, index) => ({id: tabooId(index), text: taboo.description.split(':')[0]!}))];
	return {
		ratings: candidates.map((text, index) => {
			const rated = rateReply(text, {criteria, forbidden});
			return {candidate: index + 1, rationale: rated.rationale, score: rated.score};
		}),
	};
}
