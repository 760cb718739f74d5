import assert from 'node:assert/strict';
import {existsSync, readdirSync, readFileSync, statSync} from 'node:fs';
import path from 'node:path';
import {describe, it} from 'node:test';

/*
 * The manual is one README and pages under docs/ that link to each other (issue 22, item 8). A page
 * moved or a heading renamed breaks links silently, so every relative link of README.md and
 * docs/*.md must name a file that exists and, with `#anchor`, a heading of that file (anchors made as
 * GitHub makes them). Links to the web are not followed: tests never touch the network.
 */

const REPO = path.resolve(import.meta.dirname, '..');
const PAGES = ['README.md', ...readdirSync(path.join(REPO, 'docs')).filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`)];


/** GitHub's heading anchor: lower case, punctuation but `-` and `_` dropped, spaces to hyphens. */
export function anchorOf(heading: string): string {
	return heading
		.trim()
		.toLowerCase()
		.replace(/`/g, '')
		.replace(/[^\p{L}\p{N}\s_-]/gu, '')
		.replace(/\s/g, '-');
}

/** Every anchor a page offers: its headings outside code fences, repeated ones numbered as GitHub numbers them. */
function anchorsOf(text: string): Set<string> {
	const anchors = new Set<string>();
	const seen = new Map<string, number>();
	let fence = false;
	for (const line of text.split('\n')) {
		if (/^\s*```/.test(line)) fence = !fence;
		if (fence) continue;
		const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
		if (!heading) continue;
		const base = anchorOf(heading[1]!);
		const count = seen.get(base) ?? 0;
		seen.set(base, count + 1);
		anchors.add(count === 0 ? base : `${base}-${count}`);
	}
	return anchors;
}

type Link = {readonly page: string; readonly line: number; readonly target: string};

/** The relative links of a page (`[text](target)` and `![alt](target)`), outside code fences and inline code. */
function linksOf(page: string): Link[] {
	const links: Link[] = [];
	let fence = false;
	readFileSync(path.join(REPO, page), 'utf8').split('\n').forEach((raw, index) => {
		if (/^\s*```/.test(raw)) {
			fence = !fence;
			return;
		}
		if (fence) return;
		const line = raw.replace(/`[^`]*`/g, '');
		for (const match of line.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
			const target = match[1]!;
			if (/^[a-z]+:/i.test(target)) continue; // https:, mailto:
			links.push({page, line: index + 1, target});
		}
	});
	return links;
}

/** What is wrong with one link, or undefined. */
function problem(link: Link): string | undefined {
	const [file, anchor] = link.target.split('#') as [string, string | undefined];
	const resolved = file === '' ? link.page : path.posix.normalize(path.posix.join(path.posix.dirname(link.page), file));
	const absolute = path.join(REPO, resolved);
	if (!existsSync(absolute)) return `${resolved} does not exist`;
	if (anchor === undefined || statSync(absolute).isDirectory()) return undefined;
	if (!resolved.endsWith('.md')) return `#${anchor} on a file that is not a page`;
	return anchorsOf(readFileSync(absolute, 'utf8')).has(anchor) ? undefined : `${resolved} has no heading #${anchor}`;
}

describe('links of the manual', () => {
	it('makes anchors as GitHub does', () => {
		assert.equal(anchorOf('What `doctor` checks'), 'what-doctor-checks');
		assert.equal(anchorOf('Errors, filters and cut replies'), 'errors-filters-and-cut-replies');
		assert.equal(anchorOf('Set-up on a fresh machine (Node 20)'), 'set-up-on-a-fresh-machine-node-20');
		assert.deepEqual([...anchorsOf('# A\n## B\n```\n# not a heading\n```\n## B\n')], ['a', 'b', 'b-1']);
	});

	it('every relative link and #anchor of README.md and docs/*.md points at a file and heading that exist', () => {
		const links = PAGES.flatMap(linksOf);
		assert.ok(links.length > 40, `only ${links.length} links found`);
		const broken = links.flatMap((link) => {
			const wrong = problem(link);
			return wrong === undefined ? [] : [`${link.page}:${link.line}: (${link.target}) ${wrong}`];
		});
		assert.deepEqual(broken, []);
	});

	it('the README maps every page of docs/, and every page links back to the README', () => {
		const readmeTargets = new Set(linksOf('README.md').map((link) => link.target.split('#')[0]));
		const unmapped = PAGES.filter((page) => page !== 'README.md' && !readmeTargets.has(page));
		assert.deepEqual(unmapped, [], 'pages the README does not link');
		const noWayBack = PAGES.filter((page) => page !== 'README.md' && !linksOf(page).some((link) => link.target.split('#')[0] === '../README.md'));
		assert.deepEqual(noWayBack, [], 'pages without a link back to the README');
	});
});
