import path from 'node:path';
import {type Style, StylesFile} from '../domain/styles.js';
import {DataError} from '../util/errors.js';
import {mixedHash} from '../util/hash.js';
import {packageRoot} from '../util/paths.js';
import {readJsonFile} from '../universe/readData.js';

export type StylePools = {readonly openers: readonly Style[]; readonly responses: readonly Style[]};

let cached: StylePools | undefined;

/** The 48 opener and 40 response styles shipped in kb/styles (paper Appendix I sizes). */
export function loadStyles(kbDir = path.join(packageRoot(), 'kb')): StylePools {
	if (cached && kbDir === path.join(packageRoot(), 'kb')) return cached;
	const openers = readJsonFile(path.join(kbDir, 'styles', 'openers.json'), StylesFile, path.dirname(kbDir)).styles;
	const responses = readJsonFile(path.join(kbDir, 'styles', 'responses.json'), StylesFile, path.dirname(kbDir)).styles;
	for (const [name, pool, prefix] of [['openers', openers, 'opener-'], ['responses', responses, 'response-']] as const) {
		const ids = new Set<string>();
		const problems: string[] = [];
		pool.forEach((style, index) => {
			if (!style.id.startsWith(prefix)) problems.push(`styles[${index}].id: must start with '${prefix}'`);
			if (ids.has(style.id)) problems.push(`styles[${index}].id: duplicate id '${style.id}'`);
			ids.add(style.id);
		});
		if (problems.length > 0) throw new DataError(`kb/styles/${name}.json`, problems);
	}
	const pools = {openers, responses};
	if (kbDir === path.join(packageRoot(), 'kb')) cached = pools;
	return pools;
}

function conflict(a: Style, b: Style): boolean {
	return Boolean(a.conflicts?.includes(b.id) || b.conflicts?.includes(a.id));
}

/**
 * Two distinct, compatible opener styles for the first user message, chosen by a stable hash of the
 * seed id alone: the same seed always opens the same way, different seeds differ.
 */
export function pickOpeners(seedId: string, pools: StylePools = loadStyles()): [Style, Style] {
	const n = pools.openers.length;
	const first = pools.openers[mixedHash(`${seedId}#opener-1`) % n]!;
	let offset = 1 + (mixedHash(`${seedId}#opener-2`) % (n - 1));
	for (let tries = 0; tries < n; tries++) {
		const second = pools.openers[(pools.openers.indexOf(first) + offset) % n]!;
		if (second.id !== first.id && !conflict(first, second)) return [first, second];
		offset = (offset % (n - 1)) + 1;
	}
	throw new Error('no compatible opener pair: check kb/styles/openers.json conflicts');
}

/**
 * The response style for user turn t >= 1: an independent, uniform draw per (seed id, turn) from a
 * well-mixed stable hash, so the paper's diversity control holds (any style can follow any other, and
 * styles may repeat within an episode as independent draws do).
 */
export function pickResponseStyle(seedId: string, t: number, pools: StylePools = loadStyles()): Style {
	return pools.responses[mixedHash(`${seedId}#response#${t}`) % pools.responses.length]!;
}

/** The directive text given to the generator for blending two openers into one message. */
export function openerDirective([a, b]: readonly [Style, Style]): string {
	return `Blend "${a.name}" and "${b.name}" into one natural opening message:\n- ${a.name}: ${a.directive}\n- ${b.name}: ${b.directive}`;
}
