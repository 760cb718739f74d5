import type {SituatedEval} from '../domain/situated.js';
import {type BootstrapOptions, type Estimate, type Observation, clusterMean, clusterShare, isSmall} from '../report/bootstrap.js';
import {totalReward} from './calibrate.js';
import {type SelectorCalibration, normMatchOf, oraclePick, outcomeOf, rewardPick, selectorCalibration, selectorIds, selectorScoresOf} from './selection.js';

/** One row of the situated report: a policy model, ranked by one reward model (or none), on one culture (or all). */
export type SituatedRow = {
	readonly policyModel: string;
	/** The grader of outcome and norm match: a cell key, so two graders' figures never pool. */
	readonly judgeModel: string;
	/** The reward model whose picks are the best-of-N figures; null: no reward model scored these samples. */
	readonly selector: string | null;
	/** "all", or a culture as its norms name it (grouped by ISO country code when there is one). */
	readonly culture: string;
	readonly items: number;
	/** Norms the items come from: the clusters every interval resamples (items of one norm are not independent). */
	readonly norms: number;
	/** Fewer than 10 norms (the one small-sample rule). */
	readonly small: boolean;
	readonly samplesPerItem: number;
	/** Outcome quality of the first sample (1-5; invalid = 0): what one answer is worth. */
	readonly outcome: Estimate | null;
	/** Mean outcome over all samples: what a random pick is worth. */
	readonly random: Estimate | null;
	/** Outcome of the reward model's best-of-N pick; null without a reward model. */
	readonly bestOf: Estimate | null;
	/** Outcome of the oracle pick (ceiling): the best grade among the samples, picked with the norm in view. */
	readonly oracle: Estimate | null;
	/** Ceiling minus best-of-N, item by item: what the reward model leaves on the table. */
	readonly gap: Estimate | null;
	/** Share of items where the reward model's pick reaches the ceiling's grade, with a Wilson interval. */
	readonly hitsCeiling: Estimate | null;
	/** Mean training reward r̃_RM + λ·r_NGS of the reward model's picks (calibrated on its own scores). */
	readonly pickReward: Estimate | null;
	/** Norm match of the first sample (0-2; invalid = 0), the paper's end-to-end figure. */
	readonly normMatch: Estimate | null;
	/** Norm match of the first sample over valid answers only (the paper's table 27). */
	readonly normMatchValid: Estimate | null;
	/** Mean norm grounding p(grounded) over valid samples; null when no grounding source was asked. */
	readonly grounding: number | null;
	/** Share of all samples that broke the answer contract. */
	readonly invalidRate: number;
};

export type SituatedReport = {
	readonly rows: SituatedRow[];
	readonly calibrations: SelectorCalibration[];
	/** Reward models with no calibration, and why (too few validation and train scores: test items are never used). */
	readonly refused: ReadonlyArray<{readonly selector: string; readonly reason: string}>;
	readonly lambda: number;
	/** Per policy and reward model, evaluations left out of its rows because it did not score them. */
	readonly unscored: ReadonlyArray<{readonly policyModel: string; readonly selector: string; readonly evaluations: number}>;
};

/** The group a culture's evaluations fall in: its country code, else its label. */
const cultureGroup = (evaluation: SituatedEval) => evaluation.country ?? evaluation.culture.toLowerCase();

/** The label most evaluations of a group use ("China" rather than one row's "PRC"). */
function commonLabel(group: readonly SituatedEval[]): string {
	const counts = new Map<string, number>();
	for (const evaluation of group) counts.set(evaluation.culture, (counts.get(evaluation.culture) ?? 0) + 1);
	return [...counts.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0]![0];
}

function row(policyModel: string, judgeModel: string, selector: string | null, culture: string, group: readonly SituatedEval[], calibration: SelectorCalibration | null, lambda: number, options: BootstrapOptions): SituatedRow {
	// The one interval engine: items clustered by their norm, the stream keyed by the statistic and the
	// items themselves, so the same items give the same interval in every row (an "all" row of one
	// culture and that culture's row agree).
	const observe = (values: readonly (number | null)[], of: readonly SituatedEval[] = group): Observation[] => values.flatMap((value, index) => (value === null ? [] : [{cluster: of[index]!.normId, key: of[index]!.itemId, value}]));
	const estimate = (values: readonly (number | null)[], what: string, of: readonly SituatedEval[] = group) => clusterMean(observe(values, of), options, `situated:${what}`, 'norm');
	const samples = group.flatMap((evaluation) => evaluation.samples);
	const firsts = group.map((evaluation) => evaluation.samples[0]!);
	const oracle = group.map((evaluation) => outcomeOf(evaluation.samples[oraclePick(evaluation.samples)]));
	const picks = selector ? group.map((evaluation) => rewardPick(selectorScoresOf(evaluation, selector) ?? [])) : [];
	const picked = picks.map((pick, index) => outcomeOf(pick === null ? undefined : group[index]!.samples[pick]));
	const rewards = selector && calibration
		? picks.map((pick, index) => {
				const raw = pick === null ? null : selectorScoresOf(group[index]!, selector)![pick];
				return raw === null || raw === undefined ? null : totalReward(raw, group[index]!.samples[pick!]!.grounding, {lambda, calibration});
			})
		: [];
	const validFirsts = group.filter((evaluation) => evaluation.samples[0]!.answer !== null);
	const valid = samples.filter((sample) => sample.answer !== null);
	const grounded = valid.map((sample) => sample.grounding).filter((value): value is number => value !== null);
	const norms = new Set(group.map((evaluation) => evaluation.normId)).size;
	return {
		policyModel,
		judgeModel,
		selector,
		culture,
		items: group.length,
		norms,
		small: isSmall(norms),
		samplesPerItem: samples.length / group.length,
		outcome: estimate(firsts.map(outcomeOf), 'outcome'),
		random: estimate(group.map((evaluation) => evaluation.samples.reduce((sum, sample) => sum + outcomeOf(sample), 0) / evaluation.samples.length), 'random'),
		bestOf: selector ? estimate(picked, 'bon') : null,
		oracle: estimate(oracle, 'oracle'),
		gap: selector ? estimate(oracle.map((value, index) => value - picked[index]!), 'gap') : null,
		hitsCeiling: selector ? clusterShare(observe(picked.map((value, index) => (value === oracle[index] ? 1 : 0))), options) : null,
		pickReward: rewards.length > 0 ? estimate(rewards, 'reward') : null,
		normMatch: estimate(firsts.map(normMatchOf), 'norm'),
		normMatchValid: estimate(validFirsts.map((evaluation) => normMatchOf(evaluation.samples[0])), 'norm-valid', validFirsts),
		grounding: grounded.length > 0 ? grounded.reduce((sum, value) => sum + value, 0) / grounded.length : null,
		invalidRate: samples.filter((sample) => sample.invalid !== null).length / Math.max(1, samples.length),
	};
}

/**
 * Per cell (policy model, grader, reward model) one row for all cultures and one per culture, sorted. A
 * reward model's rows hold only the evaluations it scored, so its best-of-N and the ceiling are compared
 * on the same items; a policy no reward model has scored gets rows without best-of-N figures. Invalid
 * answers count 0 on both scales (the paper's end-to-end rule), so a model cannot gain by answering
 * out of contract. Evaluations graded by different judges are different cells, never pooled.
 */
export function summarizeEvals(evals: readonly SituatedEval[], options: {readonly lambda: number} & BootstrapOptions): SituatedReport {
	const byCell = new Map<string, SituatedEval[]>();
	const cellKey = (evaluation: SituatedEval) => JSON.stringify([evaluation.policyModel, evaluation.judgeModel]);
	for (const evaluation of evals) byCell.set(cellKey(evaluation), [...(byCell.get(cellKey(evaluation)) ?? []), evaluation]);
	const rows: SituatedRow[] = [];
	const calibrations: SelectorCalibration[] = [];
	const refused: Array<{selector: string; reason: string}> = [];
	const unscored: Array<{policyModel: string; selector: string; evaluations: number}> = [];
	for (const selector of selectorIds(evals)) {
		const calibration = selectorCalibration(evals, selector);
		if ('reason' in calibration) refused.push({selector, reason: calibration.reason});
		else calibrations.push(calibration);
	}
	for (const [key, list] of [...byCell.entries()].sort(([a], [b]) => (a < b ? -1 : 1))) {
		const [policyModel, judgeModel] = JSON.parse(key) as [string, string];
		const selectors = selectorIds(list);
		for (const selector of selectors.length > 0 ? selectors : [null]) {
			const scored = selector ? list.filter((evaluation) => selectorScoresOf(evaluation, selector) !== null) : list;
			if (selector && scored.length < list.length) unscored.push({policyModel, selector, evaluations: list.length - scored.length});
			const calibration = calibrations.find((entry) => entry.selector === selector) ?? null;
			const groups = new Map<string, SituatedEval[]>();
			for (const evaluation of scored) groups.set(cultureGroup(evaluation), [...(groups.get(cultureGroup(evaluation)) ?? []), evaluation]);
			rows.push(row(policyModel, judgeModel, selector, 'all', scored, calibration, options.lambda, options));
			const cultures = [...groups.values()].map((group) => ({label: commonLabel(group), group})).sort((a, b) => (a.label < b.label ? -1 : 1));
			for (const {label, group} of cultures) rows.push(row(policyModel, judgeModel, selector, label, group, calibration, options.lambda, options));
		}
	}
	return {rows, calibrations, refused, lambda: options.lambda, unscored};
}
