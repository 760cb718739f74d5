import assert from 'node:assert/strict';
import {spawn} from 'node:child_process';
import {appendFileSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, truncateSync, writeFileSync} from 'node:fs';
import path from 'node:path';
import {describe, it} from 'node:test';
import {CompactCodec, CorruptIndexError, INDEX_FILE, readIndexHeader} from '../src/kb/codec.js';
import {HashEmbedder} from '../src/kb/hashEmbedder.js';
import {KnowledgeBase} from '../src/kb/knowledgeBase.js';
import {cosine} from '../src/kb/rerank.js';
import {DataError} from '../src/util/errors.js';
import {tempDir} from './helpers/tmp.js';

const EVAL_DIR = path.resolve(import.meta.dirname, 'fixtures/kb-eval');

/** A private copy of the small fixture KB (MY, JP, TH cultural; MY taboo) and an empty workspace. */
function fixture(): {kbDir: string; workspace: string} {
	const root = tempDir('cc-kb-index-');
	const kbDir = path.join(root, 'kb');
	cpSync(path.join(EVAL_DIR, 'cultural'), path.join(kbDir, 'cultural'), {recursive: true});
	cpSync(path.join(EVAL_DIR, 'taboo'), path.join(kbDir, 'taboo'), {recursive: true});
	return {kbDir, workspace: path.join(root, 'home')};
}

function collect(): {log: (m: string) => void; messages: string[]} {
	const messages: string[] = [];
	return {messages, log: (m) => messages.push(m)};
}

const indexFile = (kb: KnowledgeBase, kind: string, region: string) => path.join(kb.indexDir, kind, region, INDEX_FILE);

describe('kb: compact codec', () => {
	it('round-trips items and keeps cosine within int8 rounding', () => {
		const embedder = new HashEmbedder();
		const texts = ['Nasi lemak and everyday staples', 'Hari Raya open house', 'Deepavali sweets at home'];
		const vectors = texts.map((text) => embedder.embedOne(text));
		const codec = new CompactCodec({kind: 'cultural', region: 'MY', embedder: embedder.id, dimension: 384, contentHash: 'abc', builtAt: '2025-01-01T00:00:00Z'});
		const bytes = codec.serializeIndex({version: 1, metadata_config: {}, items: texts.map((text, i) => ({id: `e${i}`, metadata: {title: text, n: i, ok: true}, vector: Array.from(vectors[i]!), norm: 1}))});
		assert.ok(bytes.length < 3 * 384 + 1000, `compact: ${bytes.length} bytes`);
		const reader = new CompactCodec();
		const data = reader.deserializeIndex(bytes);
		assert.deepEqual(data.items.map((item) => [item.id, item.metadata]), texts.map((text, i) => [`e${i}`, {title: text, n: i, ok: true}]));
		assert.equal(reader.lastHeader?.embedder, 'hash:v1:384');
		assert.equal(reader.lastHeader?.contentHash, 'abc');
		const exact = cosine(vectors[0]!, vectors[1]!);
		const stored = cosine(data.items[0]!.vector, data.items[1]!.vector);
		assert.ok(Math.abs(exact - stored) < 0.01, `${exact} vs ${stored}`);
		assert.throws(() => reader.deserializeIndex(bytes.subarray(0, bytes.length - 5)), CorruptIndexError);
		const flipped = Buffer.from(bytes);
		flipped[flipped.length - 1]! ^= 0x55;
		assert.throws(() => reader.deserializeIndex(flipped), /checksum/);
		assert.throws(() => reader.deserializeIndex(Buffer.from('{"version":1}')), /magic/);
	});
});

describe('kb: indexes', () => {
	it('builds one index per kind and region, and a region filter returns only that region', async () => {
		const {kbDir, workspace} = fixture();
		const kb = await KnowledgeBase.open({kbDir, workspace, embedder: 'hash'});
		const report = await kb.build();
		// One JP passage is also tagged KR, so KR gets a one-passage index.
		assert.deepEqual(report.built.map((b) => `${b.kind}/${b.region}`).sort(), ['cultural/JP', 'cultural/KR', 'cultural/MY', 'cultural/TH', 'taboo/MY']);
		assert.equal(report.empty, 15);
		for (const region of ['MY', 'JP', 'TH'] as const) {
			const hits = await kb.search('wedding gifts and festival food', {kind: 'cultural', topK: 10, filter: {region}});
			assert.equal(hits.length, 10);
			assert.ok(hits.every((hit) => hit.regions.includes(region)), region);
		}
		const all = await kb.search('wedding gifts and festival food', {kind: 'cultural', topK: 30});
		assert.ok(['MY', 'JP', 'TH'].every((region) => all.some((hit) => hit.regions.includes(region as never))));
		assert.deepEqual(await kb.search('wedding', {kind: 'cultural', filter: {region: 'VN'}}), [], 'a region without entries has no hits');
		const rebuilt = await kb.build();
		assert.equal(rebuilt.built.length, 0);
		assert.equal(rebuilt.upToDate, 5);
	});

	it('builds a missing index once when several openers need it at the same moment (threads of one batch)', async () => {
		const {kbDir, workspace} = fixture();
		const logs: string[] = [];
		// Separate instances share nothing in memory, as worker threads or processes on one workspace do.
		const kbs = await Promise.all([1, 2, 3].map(() => KnowledgeBase.open({kbDir, workspace, embedder: 'hash', log: (line: string) => logs.push(line)})));
		const results = await Promise.all(kbs.map((kb) => kb.search('wedding gifts and festival food', {kind: 'cultural', topK: 5, filter: {region: 'MY'}})));
		for (const hits of results) assert.equal(hits.length, 5);
		assert.deepEqual(results[1]!.map((hit) => hit.id), results[0]!.map((hit) => hit.id));
		assert.equal(logs.filter((line) => line.includes('index cultural/MY') && line.includes('building it')).length, 1, logs.join(''));
		assert.ok(!existsSync(path.join(workspace, 'indexes')) || !JSON.stringify(readdirSync(workspace, {recursive: true})).includes('.building'), 'the build marker is gone');
	});

	it('filters by domain, category, tags and identity inside the index', async () => {
		const {kbDir, workspace} = fixture();
		const kb = await KnowledgeBase.open({kbDir, workspace, embedder: 'hash'});
		const culinary = await kb.search('food for guests', {kind: 'cultural', topK: 20, filter: {region: 'MY', domain: 'culinary'}});
		assert.ok(culinary.length > 3 && culinary.every((hit) => hit.domain === 'culinary'));
		const tagged = await kb.search('food for guests', {kind: 'cultural', topK: 20, filter: {region: 'MY', tags: ['religion:hinduism']}});
		assert.ok(tagged.length > 0 && tagged.every((hit) => hit.tags.includes('religion:hinduism')));
		const taboo = await kb.search('serving food', {kind: 'taboo', topK: 50, filter: {region: 'MY', category: 'culinary', identity: 'my-tamil-hindu'}});
		assert.ok(taboo.length > 0);
		for (const hit of taboo) {
			assert.equal(hit.domain, 'culinary');
			assert.ok(hit.identities!.length === 0 || hit.identities!.includes('my-tamil-hindu'), `${hit.id} applies to ${hit.identities}`);
		}
	});

	it('keeps one index folder per embedder and rebuilds when the embedder or dimension differs', async () => {
		const {kbDir, workspace} = fixture();
		const first = await KnowledgeBase.open({kbDir, workspace, embedder: 'hash'});
		await first.build({regions: ['TH']});
		const small = await KnowledgeBase.open({kbDir, workspace, embedder: 'hash:64'});
		assert.notEqual(small.indexDir, first.indexDir);
		assert.equal(small.indexStatus().find((s) => s.kind === 'cultural' && s.region === 'TH')!.status, 'missing');
		await small.build({regions: ['TH']});
		assert.equal(readIndexHeader(indexFile(small, 'cultural', 'TH')).dimension, 64);
		const again = await KnowledgeBase.open({kbDir, workspace, embedder: 'hash'});
		assert.equal(again.indexStatus().find((s) => s.kind === 'cultural' && s.region === 'TH')!.status, 'fresh', 'switching back reuses the first index');
		// An index made by another embedder found in this embedder's folder is stale, not trusted.
		cpSync(indexFile(small, 'cultural', 'TH'), indexFile(again, 'cultural', 'TH'));
		const status = again.indexStatus().find((s) => s.kind === 'cultural' && s.region === 'TH')!;
		assert.equal(status.status, 'stale');
		assert.match(status.reason!, /built with embedder hash:v1:64, now hash:v1:384/);
		const {log, messages} = collect();
		const kb = await KnowledgeBase.open({kbDir, workspace, embedder: 'hash', log});
		assert.ok((await kb.search('temple', {kind: 'cultural', filter: {region: 'TH'}})).length > 0);
		assert.match(messages.join(''), /index cultural\/TH is stale \(built with embedder hash:v1:64/);
		assert.equal(readIndexHeader(indexFile(kb, 'cultural', 'TH')).embedder, 'hash:v1:384');
	});

	it('rebuilds only the region whose sources changed', async () => {
		const {kbDir, workspace} = fixture();
		const kb = await KnowledgeBase.open({kbDir, workspace, embedder: 'hash'});
		await kb.build();
		const before = readIndexHeader(indexFile(kb, 'cultural', 'JP')).contentHash;
		const line = JSON.stringify({id: 'cul-jp-900', regions: ['JP'], tags: [], domain: 'lifestyle', title: 'Koinobori streamers', text: 'Carp streamers fly above houses with sons before Children\'s Day on 5 May.', source: 'curated'});
		appendFileSync(path.join(kbDir, 'cultural', 'JP.jsonl'), `${line}\n`);
		const reopened = await KnowledgeBase.open({kbDir, workspace, embedder: 'hash'});
		const status = Object.fromEntries(reopened.indexStatus().filter((s) => s.status !== 'empty').map((s) => [`${s.kind}/${s.region}`, s.status]));
		assert.deepEqual(status, {'cultural/JP': 'stale', 'cultural/KR': 'fresh', 'cultural/MY': 'fresh', 'cultural/TH': 'fresh', 'taboo/MY': 'fresh'});
		const report = await reopened.build();
		assert.deepEqual(report.built.map((b) => `${b.kind}/${b.region}:${b.reason}`), ['cultural/JP:sources changed']);
		assert.notEqual(readIndexHeader(indexFile(reopened, 'cultural', 'JP')).contentHash, before);
		assert.equal((await reopened.search('carp streamers for Children\'s Day', {kind: 'cultural', topK: 1, filter: {region: 'JP'}}))[0]!.id, 'cul-jp-900');
	});

	it('detects a truncated or corrupted index file and rebuilds it', async () => {
		const {kbDir, workspace} = fixture();
		const kb = await KnowledgeBase.open({kbDir, workspace, embedder: 'hash'});
		await kb.build();
		const file = indexFile(kb, 'cultural', 'MY');
		const size = statSync(file).size;
		truncateSync(file, 100);
		assert.equal(kb.indexStatus().find((s) => s.kind === 'cultural' && s.region === 'MY')!.status, 'corrupt');
		// Header intact, body damaged: only the checksum can tell, when the index is loaded.
		const tabooFile = indexFile(kb, 'taboo', 'MY');
		const bytes = readFileSync(tabooFile);
		bytes[bytes.length - 10]! ^= 0x7f;
		writeFileSync(tabooFile, bytes);
		assert.equal(kb.indexStatus().find((s) => s.kind === 'taboo' && s.region === 'MY')!.status, 'fresh');
		const {log, messages} = collect();
		const reopened = await KnowledgeBase.open({kbDir, workspace, embedder: 'hash', log});
		assert.equal((await reopened.search('halal certification', {kind: 'cultural', topK: 1, filter: {region: 'MY'}}))[0]!.id, 'cul-my-001');
		assert.ok((await reopened.search('pork', {kind: 'taboo', filter: {region: 'MY'}})).length > 0);
		assert.match(messages.join(''), /index cultural\/MY is corrupt/);
		assert.match(messages.join(''), /index taboo\/MY is corrupt \(index file fails its checksum\); rebuilding it/);
		assert.equal(statSync(file).size, size);
	});

	it('rejects a user entry whose id is already shipped, naming both files', async () => {
		const {kbDir, workspace} = fixture();
		mkdirSync(path.join(workspace, 'kb', 'cultural'), {recursive: true});
		const user = path.join(workspace, 'kb', 'cultural', 'mine.jsonl');
		writeFileSync(user, `${JSON.stringify({id: 'cul-my-001', regions: ['MY'], tags: [], domain: 'culinary', title: 'Copy', text: 'A second passage that reuses a shipped id.', source: 'curated'})}\n`);
		await assert.rejects(KnowledgeBase.open({kbDir, workspace, embedder: 'hash'}), (error: unknown) => {
			assert.ok(error instanceof DataError);
			assert.match(error.message, new RegExp(`${user.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}:1: duplicate cultural id 'cul-my-001' \\(also at kb/cultural/MY.jsonl:1\\)`));
			return true;
		});
	});

	it('a build killed while saving never leaves an index that loads wrong', async () => {
		const {kbDir, workspace} = fixture();
		// Enough TH passages that the slow save takes a couple of seconds.
		const lines = Array.from({length: 3000}, (_, i) => JSON.stringify({id: `syn-th-${i}`, regions: ['TH'], tags: [], domain: 'lifestyle', title: `Synthetic passage ${i}`, text: `Synthetic passage number ${i} about markets, temples, river boats and street food in the province.`, source: 'curated'}));
		writeFileSync(path.join(kbDir, 'cultural', 'SYN.jsonl'), `${lines.join('\n')}\n`);
		const kb = await KnowledgeBase.open({kbDir, workspace, embedder: 'hash'});
		await kb.build();
		const file = indexFile(kb, 'cultural', 'TH');
		const old = readFileSync(file);
		// Change the TH sources, then kill the rebuild in the middle of writing its index.
		writeFileSync(path.join(kbDir, 'cultural', 'NEW.jsonl'), `${JSON.stringify({id: 'cul-th-900', regions: ['TH'], tags: [], domain: 'ritual', title: 'Boun bang fai rocket festival', text: 'Villages in the northeast launch home-made bamboo rockets to call for rain before planting.', source: 'curated'})}\n`);
		const child = spawn(process.execPath, ['--import', 'tsx', path.join(import.meta.dirname, 'fixtures/kb-kill/child.ts'), kbDir, workspace], {stdio: ['ignore', 'pipe', 'pipe']});
		let stdout = '';
		let stderr = '';
		child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
		const killed = await new Promise<boolean>((resolve) => {
			child.stdout.on('data', (chunk: Buffer) => {
				stdout += chunk.toString();
				if (/SAVING .*cultural[/\\]TH/.test(stdout) && !child.killed) setTimeout(() => resolve(child.kill('SIGKILL')), 300);
			});
			child.on('exit', () => resolve(false));
		});
		await new Promise((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve(null) : child.on('exit', resolve)));
		assert.ok(killed, `child should have been killed mid-save; stdout: ${stdout} stderr: ${stderr}`);
		assert.ok(!stdout.includes('DONE'));
		const dir = path.dirname(file);
		assert.ok(readdirSync(dir).some((name) => name.includes('.tmp-')), 'the torn write is only a temporary file');
		assert.deepEqual(readFileSync(file), old, 'the old index is untouched');
		const {log, messages} = collect();
		const after = await KnowledgeBase.open({kbDir, workspace, embedder: 'hash', log});
		const status = after.indexStatus().find((s) => s.kind === 'cultural' && s.region === 'TH')!;
		assert.equal(status.status, 'stale', 'the surviving old index is recognised as out of date');
		const hits = await after.search('bamboo rockets to call for rain', {kind: 'cultural', topK: 1, filter: {region: 'TH'}});
		assert.equal(hits[0]!.id, 'cul-th-900', 'the rebuilt index holds the new passage');
		assert.match(messages.join(''), /index cultural\/TH is stale \(sources changed\); building it/);
		assert.ok(!readdirSync(dir).some((name) => name.includes('.tmp-')), 'the rebuild removed the leftover');
		assert.ok(existsSync(file));
	});
});
