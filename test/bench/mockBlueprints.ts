/**
 * Offline mock blueprints over a stratified seed sample, and the figures issue 23 asks of them: the
 * share of slots filled from the curated lexicon, persona contradictions per 1,000 blueprints, and
 * native/English opener agreement (the numbers check and the native-script check the code audit uses),
 * and the readability problems of the filled requests (src/mock/readability.ts).
 * Used by `npm run bench:mock` (test/bench/mock.bench.ts) and test/mock-offline-slots.test.ts.
 */
import {mkdtempSync, readdirSync, readFileSync, rmSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import type {BlueprintDraft} from '../../src/domain/blueprint.js';
import type {Seed} from '../../src/domain/seed.js';
import type {ResolvedTemplate} from '../../src/domain/template.js';
import type {Persona} from '../../src/domain/universe.js';
import {checkLanguage} from '../../src/lang/detect.js';
import {KnowledgeBase} from '../../src/kb/knowledgeBase.js';
import {retrieveEvidence} from '../../src/kb/retrieve.js';
import {mockBlueprint} from '../../src/mock/blueprint.js';
import {readabilityProblems} from '../../src/mock/readability.js';
import {blueprintContextFor, blueprintProblems, openerMismatch, personaFitProblems, type BlueprintContext} from '../../src/pipeline/blueprint.js';
import {lexiconEntries, loadLexicon} from '../../src/universe/lexicon.js';
import type {Universe} from '../../src/universe/load.js';
import {SeedSpace} from '../../src/universe/seeds.js';
import {fnv1a} from '../../src/util/hash.js';

/**
 * Seeds stratified by region x domain x tier: round-robin over the strata (in name order), each
 * stratum's seeds in stable hash order, until `size` are taken.
 */
export function stratifiedSeeds(universe: Universe, size: number, salt = 'bench:mock'): string[] {
	const strata = new Map<string, string[]>();
	for (const seed of new SeedSpace(universe).iterate()) {
		const persona = universe.personaById.get(seed.personaId)!;
		const template = universe.templateById.get(seed.templateId)!;
		const key = `${persona.region}|${template.domain}|${seed.tier}`;
		let list = strata.get(key);
		if (!list) strata.set(key, (list = []));
		list.push(seed.id);
	}
	const lists = [...strata.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([, ids]) => ids.sort((a, b) => fnv1a(`${salt}:${a}`) - fnv1a(`${salt}:${b}`) || a.localeCompare(b)));
	const out: string[] = [];
	for (let round = 0; out.length < size && lists.some((ids) => ids.length > round); round++) for (const ids of lists) if (ids[round] && out.length < size) out.push(ids[round]!);
	return out;
}

export type MockBlueprintRow = {seed: Seed; persona: Persona; template: ResolvedTemplate; context: BlueprintContext; draft: BlueprintDraft};

/** A hash-embedder KB in a scratch workspace (no model download); `close` removes it. */
export async function scratchKb(universe: Universe): Promise<{kb: KnowledgeBase; close: () => void}> {
	const workspace = mkdtempSync(path.join(tmpdir(), 'cc-mock-bp-'));
	const kb = await KnowledgeBase.open({universe, workspace, embedder: 'hash', log: () => {}});
	return {kb, close: () => rmSync(workspace, {recursive: true, force: true})};
}

/** The mock blueprint of each seed, as the blueprint stage would ask for it (first attempt, no episode). */
export async function mockBlueprints(universe: Universe, kb: KnowledgeBase, seedIds: readonly string[]): Promise<MockBlueprintRow[]> {
	const space = new SeedSpace(universe);
	const rows: MockBlueprintRow[] = [];
	for (const id of seedIds) {
		const seed = space.get(id);
		const persona = universe.personaById.get(seed.personaId)!;
		const template = universe.templateById.get(seed.templateId)!;
		const evidence = await retrieveEvidence({universe, seed, kb, persona, template});
		const context = blueprintContextFor({universe, seed, persona, template, evidence});
		rows.push({seed, persona, template, context, draft: mockBlueprint({context, attempt: 1, feedback: []})});
	}
	return rows;
}

/** Whether a slot's value is one of the lexicon's fillers for that persona and kind (with or without its determiner). */
export function fromLexicon(row: MockBlueprintRow, slotName: string, value: string): boolean {
	const slot = row.template.slots.find((candidate) => candidate.name === slotName);
	if (!slot) return false;
	const bare = value.replace(/^(?:a|an|the|my|our) /i, '');
	return lexiconEntries(loadLexicon(), row.persona, slot.kind, slot.meaning).some((entry) => entry.text === bare || entry.text === value);
}

/**
 * The contradictions of a draft, as the pipeline's code check finds them: slot values read with their
 * meaning (a host's pork is the host's), the opener and every hidden constraint.
 */
export function draftContradictions(row: Pick<MockBlueprintRow, 'draft' | 'context'>): string[] {
	return personaFitProblems(row.draft, row.context);
}

/** Every KB passage title and taboo action, lower-cased (8 characters or more). */
export function kbTitles(kbDir: string): string[] {
	const titles: string[] = [];
	for (const kind of ['cultural', 'taboo']) {
		const dir = path.join(kbDir, kind);
		for (const file of readdirSync(dir).filter((name) => name.endsWith('.jsonl'))) {
			for (const line of readFileSync(path.join(dir, file), 'utf8').split('\n')) {
				if (!line.trim()) continue;
				const row = JSON.parse(line) as {title?: string; action?: string};
				const title = (row.title ?? row.action ?? '').toLowerCase().replace(/[.!?]+$/, '').trim();
				if (title.length >= 8) titles.push(title);
			}
		}
	}
	return titles;
}

/**
 * The KB title a slot value is, or holds: the whole title, or one of three words or more inside it (a
 * shorter one, "mental health", can be a coincidence of the slot's own meaning).
 */
export function kbTitleIn(value: string, titles: readonly string[]): string | undefined {
	const text = value.toLowerCase();
	return titles.find((title) => text === title || (title.split(' ').length >= 3 && text.includes(title)));
}

export type MockFigures = {
	blueprints: number;
	slots: number;
	lexiconSlots: number;
	kbTitleSlots: number;
	contradictions: number;
	contradictionExamples: string[];
	openersAgree: number;
	openerExamples: string[];
	codeCheckFailures: number;
	codeCheckExamples: string[];
	/** Readability problems over all requests, and the requests with at least one. */
	readabilityProblems: number;
	unreadableRequests: number;
	readabilityExamples: string[];
};

/** The readability problems of a row's opening request, given its slot values. */
export function requestProblems(row: Pick<MockBlueprintRow, 'draft'>): string[] {
	return readabilityProblems(row.draft.public.initialMessage, row.draft.private.slots);
}

export function mockFigures(rows: readonly MockBlueprintRow[], titles: readonly string[] = []): MockFigures {
	const figures: MockFigures = {blueprints: rows.length, slots: 0, lexiconSlots: 0, kbTitleSlots: 0, contradictions: 0, contradictionExamples: [], openersAgree: 0, openerExamples: [], codeCheckFailures: 0, codeCheckExamples: [], readabilityProblems: 0, unreadableRequests: 0, readabilityExamples: []};
	for (const row of rows) {
		for (const slot of row.draft.private.slots) {
			figures.slots++;
			if (fromLexicon(row, slot.name, slot.value)) figures.lexiconSlots++;
			if (kbTitleIn(slot.value, titles)) figures.kbTitleSlots++;
		}
		const found = draftContradictions(row).map((problem) => `${row.seed.id}: ${problem}`);
		if (found.length > 0) {
			figures.contradictions++;
			if (figures.contradictionExamples.length < 5) figures.contradictionExamples.push(found[0]!);
		}
		const mismatch = openerMismatch(row.draft.public.initialMessage, row.draft.nativeInitialMessage);
		const script = checkLanguage(row.draft.nativeInitialMessage, row.persona.language);
		if (mismatch.length === 0 && script.ok) figures.openersAgree++;
		else if (figures.openerExamples.length < 5) figures.openerExamples.push(`${row.seed.id}: ${[...mismatch, script.ok ? '' : script.reason].filter(Boolean).join('; ')}`);
		const problems = blueprintProblems(row.draft, row.context);
		if (problems.length > 0) {
			figures.codeCheckFailures++;
			if (figures.codeCheckExamples.length < 5) figures.codeCheckExamples.push(`${row.seed.id}: ${problems.join('; ')}`);
		}
		const unreadable = requestProblems(row);
		figures.readabilityProblems += unreadable.length;
		if (unreadable.length > 0) {
			figures.unreadableRequests++;
			if (figures.readabilityExamples.length < 5) figures.readabilityExamples.push(`${row.seed.id}: ${unreadable.join('; ')}`);
		}
	}
	return figures;
}
