import assert from 'node:assert/strict';
import {describe, it} from 'node:test';
import {sketchSimilarity} from '../src/pipeline/templateGen.js';
import {loadUniverse} from '../src/universe/load.js';
import {SeedSpace} from '../src/universe/seeds.js';

/**
 * The shipped template set of the CultureConverse paper (section 3.3): 10 culture-agnostic templates
 * per subdomain (420), distinct from one another, which with 348 personas gives 146,160 seeds.
 * Loading already validates each template (schema, slots, dimensions, culture-specific words).
 */
describe('templates: shipped set', () => {
	// No user templates folder: only kb/templates is read.
	const universe = loadUniverse();
	const templates = universe.templates;
	const ids = Array.from({length: 10}, (_, index) => String(index + 1).padStart(2, '0'));

	it('has exactly 10 templates per subdomain, ids .01 to .10, 420 in all', () => {
		const problems: string[] = [];
		for (const [subdomain, info] of universe.subdomainById) {
			const own = templates.filter((template) => template.subdomain === subdomain);
			const got = own.map((template) => template.id).sort();
			const want = ids.map((n) => `${subdomain}.${n}`);
			if (got.join() !== want.join()) problems.push(`${subdomain}: has ${own.length} (${got.map((id) => id.slice(subdomain.length + 1)).join(' ')}), want .01-.10`);
			for (const template of own) {
				if (template.domain !== info.domain) problems.push(`${template.id}: in domain ${template.domain}, want ${info.domain}`);
				if (!template.source.endsWith(`${info.domain}.json`)) problems.push(`${template.id}: shipped in ${template.source}, want templates/${info.domain}.json`);
				if (template.slots.length < 3 || template.slots.length > 6) problems.push(`${template.id}: ${template.slots.length} slots, want 3-6`);
			}
		}
		assert.deepEqual(problems, []);
		assert.equal(templates.length, 420);
	});

	it('has no near-duplicate sketches (similarity < 0.35) and unique titles across the whole set', () => {
		// sketchSimilarity re-tokenises both sketches on every call; over 87,990 pairs that dominates the
		// test's time. Score every pair from word sets built once with the same rule, check that rule against
		// sketchSimilarity itself on 420 pairs, and re-score every pair near the threshold with the real thing.
		const words = (text: string) => new Set((text.toLowerCase().match(/[a-z]+/g) ?? []).filter((word) => word.length > 3));
		const sets = templates.map((template) => words(template.sketch));
		const jaccard = (i: number, j: number) => {
			let shared = 0;
			for (const word of sets[i]!) if (sets[j]!.has(word)) shared++;
			const union = sets[i]!.size + sets[j]!.size - shared;
			return union === 0 ? 0 : shared / union;
		};
		for (let i = 0; i < templates.length; i++) {
			const j = (i + 1) % templates.length;
			assert.equal(jaccard(i, j), sketchSimilarity(templates[i]!.sketch, templates[j]!.sketch), `word rule drifted from sketchSimilarity (${templates[i]!.id}, ${templates[j]!.id})`);
		}
		const close: string[] = [];
		for (let i = 0; i < templates.length; i++) {
			for (let j = i + 1; j < templates.length; j++) {
				if (jaccard(i, j) < 0.3) continue;
				const a = templates[i]!;
				const b = templates[j]!;
				const similarity = sketchSimilarity(a.sketch, b.sketch);
				if (similarity >= 0.35) close.push(`${similarity.toFixed(3)} ${a.id} ~ ${b.id}`);
			}
		}
		const byTitle = new Map<string, string>();
		const repeated: string[] = [];
		for (const template of templates) {
			const key = template.title.trim().toLowerCase();
			const other = byTitle.get(key);
			if (other) repeated.push(`"${template.title}": ${other} and ${template.id}`);
			else byTitle.set(key, template.id);
		}
		assert.deepEqual({close, repeated}, {close: [], repeated: []}, `near-duplicate sketches:\n${close.join('\n') || '(none)'}\nrepeated titles:\n${repeated.join('\n') || '(none)'}`);
	});

	it('types every slot: a kind, person slots as relations or titles, and number-like names as their kind', () => {
		const problems: string[] = [];
		const kinds = new Map<string, number>();
		for (const template of templates) {
			for (const slot of template.slots) {
				kinds.set(slot.kind, (kinds.get(slot.kind) ?? 0) + 1);
				if (slot.person && slot.kind !== 'relation' && slot.kind !== 'title') problems.push(`${template.id} ${slot.name}: person but ${slot.kind}`);
				// Names whose last word says what the value is must carry that kind, or the mock fills "next Saturday" with a dish.
				const head = slot.name.split('_').at(-1)!;
				const want = ({BUDGET: 'amount', PRICE: 'amount', DATE: 'date', DEADLINE: 'date', COUNT: 'count', VENUE: 'venue', GARMENT: 'garment', DISH: 'dish', CEREMONY: 'ritual', RITE: 'ritual'} as Record<string, string>)[head];
				if (want && slot.kind !== want) problems.push(`${template.id} ${slot.name}: kind ${slot.kind}, want ${want}`);
			}
		}
		assert.deepEqual(problems, []);
		// Every kind is used, and most slots are typed more narrowly than free text.
		assert.equal(kinds.size, 12, [...kinds.keys()].join());
		const all = [...kinds.values()].reduce((sum, n) => sum + n, 0);
		assert.ok((kinds.get('free') ?? 0) / all < 0.6, `free share ${kinds.get('free')}/${all}`);
	});

	it('gives the paper seed space: 146,160 seeds, about 5% test, tiers 50/25/25', () => {
		const space = new SeedSpace(universe);
		assert.equal(universe.personas.length, 348);
		assert.equal(space.count(), 146_160);
		const tiers = {standard: 0, contextual: 0, normative: 0};
		let test = 0;
		let total = 0;
		for (const seed of space.iterate()) {
			tiers[seed.tier]++;
			if (seed.split === 'test') test++;
			total++;
		}
		assert.equal(total, 146_160);
		const percent = (n: number) => (100 * n) / total;
		assert.ok(percent(test) >= 4 && percent(test) <= 6, `test share ${percent(test).toFixed(2)}% (${test}/${total})`);
		assert.ok(Math.abs(percent(tiers.standard) - 50) <= 2, `standard ${percent(tiers.standard).toFixed(2)}%`);
		assert.ok(Math.abs(percent(tiers.contextual) - 25) <= 2, `contextual ${percent(tiers.contextual).toFixed(2)}%`);
		assert.ok(Math.abs(percent(tiers.normative) - 25) <= 2, `normative ${percent(tiers.normative).toFixed(2)}%`);
	});
});
