import assert from 'node:assert/strict';
import {spawnSync} from 'node:child_process';
import {readFileSync, writeFileSync} from 'node:fs';
import path from 'node:path';
import {describe, it} from 'node:test';
import {parseJson, runCli} from './helpers/cli.js';
import {copyKb} from './helpers/tmp.js';

type PersonaRow = {id: string; region: string; identity: string; identityId: string; language: string; age: string; gender: string; tags: string[]};

describe('cli: universe commands', () => {
	it('personas --json lists 348 personas with the required fields', async () => {
		const result = await runCli(['personas', '--json']);
		assert.equal(result.code, 0, result.stderr);
		const personas = parseJson<PersonaRow[]>(result.stdout);
		assert.equal(personas.length, 348);
		assert.equal(new Set(personas.map((p) => p.identityId)).size, 58);
		assert.equal(new Set(personas.map((p) => p.region)).size, 10);
		for (const key of ['id', 'region', 'identity', 'language', 'age', 'gender', 'tags']) assert.ok(key in personas[0]!, key);
		const thai = personas.filter((p) => p.region === 'TH');
		assert.ok(thai.every((p) => p.language === 'thai'));
	});

	it('personas filters by region and identity, case-insensitively', async () => {
		const result = await runCli(['personas', '--region', 'sg', '--identity', 'tamil', '--json']);
		const personas = parseJson<PersonaRow[]>(result.stdout);
		assert.deepEqual([...new Set(personas.map((p) => p.identityId))], ['sg-tamil-hindu']);
		assert.equal(personas.length, 6);
	});

	it('domains --json gives 7 domains of 6 subdomains', async () => {
		const domains = parseJson<Array<{id: string; subdomains: unknown[]}>>((await runCli(['domains', '--json'])).stdout);
		assert.equal(domains.length, 7);
		assert.ok(domains.every((domain) => domain.subdomains.length === 6));
	});

	it('templates --json lists 84+ templates with id, domain, subdomain and slots', async () => {
		const templates = parseJson<Array<{id: string; domain: string; subdomain: string; slots: unknown[]}>>((await runCli(['templates', '--json'])).stdout);
		assert.ok(templates.length >= 84);
		assert.ok(templates.every((t) => t.id && t.domain && t.subdomain && t.slots.length > 0));
		const culinary = parseJson<unknown[]>((await runCli(['templates', '--domain', 'culinary', '--json'])).stdout);
		assert.ok(culinary.length >= 12 && culinary.length < templates.length);
		const short = parseJson<Array<{subdomain: string}>>((await runCli(['templates', '--subdomain', 'eldercare', '--json'])).stdout);
		assert.ok(short.length >= 2 && short.every((t) => t.subdomain === 'domestic.eldercare'));
	});

	it('seeds count equals personas x templates, and its JSON breaks down tiers', async () => {
		const templates = parseJson<unknown[]>((await runCli(['templates', '--json'])).stdout).length;
		const result = await runCli(['seeds', 'count', '--json']);
		const count = parseJson<{count: number; byTier: Record<string, number>; bySplit: Record<string, number>}>(result.stdout);
		assert.equal(count.count, 348 * templates);
		assert.equal(count.byTier['standard']! + count.byTier['contextual']! + count.byTier['normative']!, count.count);
		const plain = await runCli(['seeds', 'count']);
		assert.match(plain.stdout, new RegExp(`^${count.count}\\n`));
	});

	it('seeds --json pages through filtered seeds', async () => {
		const seeds = parseJson<Array<{id: string; personaId: string; templateId: string; tier: string; split: string}>>((await runCli(['seeds', '--split', 'test', '--region', 'VN', '--tier', 'normative', '--limit', '5', '--json'])).stdout);
		assert.equal(seeds.length, 5);
		assert.ok(seeds.every((seed) => seed.split === 'test' && seed.tier === 'normative' && seed.personaId.startsWith('vn-')));
		const next = parseJson<Array<{id: string}>>((await runCli(['seeds', '--split', 'test', '--region', 'VN', '--tier', 'normative', '--limit', '5', '--offset', '5', '--json'])).stdout);
		assert.ok(!next.some((seed) => seeds.some((s) => s.id === seed.id)));
	});

	it('seed <id> resolves the same seed every run', async () => {
		const a = parseJson<{id: string; tier: string; split: string; persona: {identity: string}}>((await runCli(['seed', 'kr-jeju-a35-f:ritual.death-mourning.01', '--json'])).stdout);
		const b = parseJson<typeof a>((await runCli(['seed', 'kr-jeju-a35-f:ritual.death-mourning.01', '--json'])).stdout);
		assert.deepEqual(a, b);
		assert.equal(a.persona.identity, 'Jeju Islander');
		const child = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli.tsx', 'seed', 'kr-jeju-a35-f:ritual.death-mourning.01', '--json'], {encoding: 'utf8', env: {...process.env, CULTURECONVERSE_HOME: '/tmp/cultureconverse-test-home'}});
		assert.equal(child.status, 0, child.stderr);
		assert.deepEqual(JSON.parse(child.stdout), a);
	});

	it('schema prints JSON Schemas by name', async () => {
		const schema = parseJson<{type: string; properties: Record<string, unknown>}>((await runCli(['schema', 'seed'])).stdout);
		assert.equal(schema.type, 'object');
		assert.deepEqual(Object.keys(schema.properties).sort(), ['id', 'personaId', 'split', 'templateId', 'tier']);
		for (const name of ['persona', 'domain', 'subdomain', 'template']) assert.equal((await runCli(['schema', name])).code, 0, name);
	});
});

describe('cli: help and terminals', () => {
	it('prints help with no arguments when not on a terminal', async () => {
		let opened = false;
		const result = await runCli([], {main: {openTui: async () => ((opened = true), 0)}});
		assert.equal(result.code, 0);
		assert.equal(opened, false);
		assert.match(result.stdout, /Usage/);
		assert.match(result.stdout, /personas/);
	});

	it('opens the TUI with no arguments on a terminal', async () => {
		let opened = false;
		const result = await runCli([], {tty: true, main: {openTui: async () => ((opened = true), 0)}});
		assert.equal(result.code, 0);
		assert.equal(opened, true);
	});

	it('--help and <command> --help work', async () => {
		assert.match((await runCli(['--help'])).stdout, /Commands/);
		const help = await runCli(['seeds', '--help']);
		assert.equal(help.code, 0);
		assert.match(help.stdout, /--split/);
	});

	it('the binary prints help when piped (spawned, no terminal)', () => {
		const child = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli.tsx'], {encoding: 'utf8', input: '', timeout: 20000});
		assert.equal(child.status, 0, child.stderr);
		assert.match(child.stdout, /Usage/);
	});
});

describe('cli: bad input', () => {
	const cases: Array<{argv: string[]; pattern: RegExp}> = [
		{argv: ['seed', 'my-tamil-hindo-a55-f:culinary.dietary-rules.01'], pattern: /Unknown persona 'my-tamil-hindo-a55-f'\. Did you mean: my-tamil-hindu-a55-f/},
		{argv: ['seed', 'my-tamil-hindu-a55-f:culinary.dietary-rule.01'], pattern: /Unknown template 'culinary\.dietary-rule\.01'\. Did you mean: culinary\.dietary-rules\.01/},
		{argv: ['seed', 'vn-kinh-a55-m:culinary.dietary-rules.01'], pattern: /Unknown persona 'vn-kinh-a55-m'\. Did you mean: vn-kinh-ancestor-a55-m, vn-kinh-buddhist-a55-m, vn-kinh-catholic-a55-m\?/},
		{argv: ['seed', 'nonsense'], pattern: /Malformed seed id 'nonsense'/},
		{argv: ['personas', '--region', 'XX'], pattern: /Unknown region 'XX'/},
		{argv: ['personas', '--identity', 'zzzzzz'], pattern: /Unknown identity 'zzzzzz'/},
		{argv: ['templates', '--domain', 'culinery'], pattern: /Unknown domain 'culinery'\. Did you mean: culinary/},
		{argv: ['seeds', '--tier', 'hard'], pattern: /Unknown tier 'hard'/},
		{argv: ['seeds', '--limit', '-3'], pattern: /--limit must be a whole number/},
		{argv: ['seeds', '--regoin', 'MY'], pattern: /Unknown option '--regoin'\. Did you mean: --region/},
		{argv: ['sedes'], pattern: /Unknown command 'sedes'\. Did you mean: seed/},
		{argv: ['schema', 'sead'], pattern: /Unknown schema 'sead'\. Did you mean: seed/},
	];
	for (const {argv, pattern} of cases) {
		it(`${argv.join(' ')} -> one-line error, exit 2`, async () => {
			const result = await runCli(argv);
			assert.equal(result.code, 2);
			assert.match(result.stderr, pattern);
			assert.doesNotMatch(result.stderr, /\n\s+at /, 'no stack trace');
		});
	}

	it('a malformed data file gives a clear error naming the file and field', async () => {
		const kb = copyKb();
		const file = path.join(kb, 'templates', 'health.json');
		const data = JSON.parse(readFileSync(file, 'utf8'));
		data.templates[2].slots.push({name: 'NEVER_USED', meaning: 'a slot nobody uses', kind: 'free'});
		writeFileSync(file, JSON.stringify(data));
		const result = await runCli(['personas'], {env: {CULTURECONVERSE_KB_DIR: kb}});
		assert.equal(result.code, 2);
		assert.match(result.stderr, /kb\/templates\/health\.json: .*slot NEVER_USED is declared but never used/);
		assert.doesNotMatch(result.stderr, /\n\s+at /);
	});
});
