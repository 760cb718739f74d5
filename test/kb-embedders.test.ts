import assert from 'node:assert/strict';
import {cpSync, mkdirSync, writeFileSync} from 'node:fs';
import path from 'node:path';
import {describe, it} from 'node:test';
import {createEmbedder, modelCacheDir, embedderSpecText, parseEmbedderSpec} from '../src/kb/embedder.js';
import {HashEmbedder} from '../src/kb/hashEmbedder.js';
import {KnowledgeBase} from '../src/kb/knowledgeBase.js';
import {cosine} from '../src/kb/rerank.js';
import {lexicalTokens, segment} from '../src/kb/text.js';
import {QWEN3_QUERY_INSTRUCTION, prefixFor, profileForFolder, profileForModelId, profileTag} from '../src/kb/embeddingProfile.js';
import {tempDir} from './helpers/tmp.js';

const TINY_MODEL = path.resolve(import.meta.dirname, 'fixtures/tiny-model');
const TINY_QWEN3 = path.resolve(import.meta.dirname, 'fixtures/tiny-qwen3');
const hash = new HashEmbedder();
const vec = (text: string) => hash.embedOne(text);

describe('kb: hash embedder', () => {
	it('is deterministic, unit-length and names itself with version and dimension', async () => {
		const text = 'Hari Raya Aidilfitri open house with rendang and ketupat';
		assert.deepEqual(vec(text), vec(text));
		assert.deepEqual((await hash.embed([text], {role: 'query'}))[0], (await new HashEmbedder().embed([text], {role: 'passage'}))[0]);
		const norm = Math.sqrt(vec(text).reduce((sum, x) => sum + x * x, 0));
		assert.ok(Math.abs(norm - 1) < 1e-5);
		assert.equal(hash.id, 'hash:v1:384');
		assert.equal(new HashEmbedder(64).embedOne(text).length, 64);
		assert.ok(vec('').every((x) => x === 0), 'no features, zero vector');
		// Pinned output: if the features change, bump HASH_VERSION so indexes built before are rebuilt.
		const nonZero = [...vec('sticky rice')].map((x, i) => [i, Math.round(x * 10_000) / 10_000] as const).filter(([, x]) => x !== 0);
		assert.equal(nonZero.length, 13);
		assert.deepEqual(nonZero.slice(0, 4), [[68, -0.2039], [113, -0.2039], [149, 0.2548], [183, -0.2039]]);
	});

	// For each script: a text, one that shares its key word, and an unrelated one in the same script.
	const scripts: Array<[string, string, string, string]> = [
		['Thai', 'ข้าวเหนียวมะม่วงในเทศกาลสงกรานต์', 'ข้าวเหนียวมะม่วง', 'รถไฟฟ้าในกรุงเทพมหานคร'],
		['Han', '春节吃饺子和年糕', '春节的饺子', '地铁站在哪里'],
		['Kana + Han', 'お正月におせち料理を食べる', 'おせち料理', 'しんかんせんのきっぷ'],
		['Hangul', '설날에 떡국을 먹어요', '떡국을 좋아해요', '지하철역이 어디예요'],
		['Tamil', 'தீபாவளி பண்டிகை இனிப்புகள்', 'தீபாவளி இனிப்புகள்', 'மருத்துவமனை வருகை நேரம்'],
		['Latin with diacritics', 'phở bò Hà Nội buổi sáng', 'pho bo Ha Noi', 'xe buýt đến sân bay'],
		['Malay', 'makanan halal untuk majlis perkahwinan', 'majlis perkahwinan', 'jadual bas ke lapangan terbang'],
	];
	for (const [name, text, related, unrelated] of scripts) {
		it(`relates texts by shared words in ${name}`, () => {
			const near = cosine(vec(text), vec(related));
			const far = cosine(vec(text), vec(unrelated));
			assert.ok(near > far + 0.1, `${name}: related ${near.toFixed(3)} should beat unrelated ${far.toFixed(3)}`);
			assert.ok(vec(text).some((x) => x !== 0));
		});
	}

	it('keeps combining marks with their base character and folds Latin diacritics', () => {
		const thai = segment('ข้าว')[0]!;
		assert.equal(thai.script, 'thai');
		assert.deepEqual(thai.clusters, ['ข้', 'า', 'ว'], 'the tone mark stays on its consonant');
		const tamil = segment('தீபாவளி')[0]!;
		assert.equal(tamil.script, 'tamil');
		assert.ok(tamil.clusters.every((cluster) => !/^\p{M}/u.test(cluster)), 'no cluster starts with a vowel sign');
		assert.deepEqual(segment('Phở').map((s) => s.folded.join('')), ['pho']);
		assert.deepEqual(segment('東京タワー').map((s) => s.script), ['cjk'], 'Han and Kana form one run');
		assert.deepEqual(lexicalTokens('the Đà Lạt flower festival'), ['da', 'lat', 'flower', 'festival']);
		assert.deepEqual(lexicalTokens('春节'), ['春节']);
	});
});

describe('kb: embedder selection', () => {
	it('parses specs and prefers the flag over the environment', () => {
		assert.deepEqual(parseEmbedderSpec('hash'), {kind: 'hash', dimension: 384});
		assert.deepEqual(parseEmbedderSpec('hash:128'), {kind: 'hash', dimension: 128});
		assert.deepEqual(parseEmbedderSpec('hf:Xenova/multilingual-e5-small'), {kind: 'hf', model: 'Xenova/multilingual-e5-small', dtype: 'q8'});
		assert.deepEqual(parseEmbedderSpec('hf:Xenova/multilingual-e5-small@fp32'), {kind: 'hf', model: 'Xenova/multilingual-e5-small', dtype: 'fp32'});
		assert.deepEqual(parseEmbedderSpec('local:models/x', '/base'), {kind: 'local', folder: '/base/models/x'});
		assert.throws(() => parseEmbedderSpec('bert'), /Unknown embedder 'bert'.*hash, hash:<dim>, hf:<model-id>, local:<folder>/);
		assert.equal(embedderSpecText({flag: 'hash:64', env: {CULTURECONVERSE_EMBEDDER: 'hash'}}), 'hash:64');
		assert.equal(embedderSpecText({env: {CULTURECONVERSE_EMBEDDER: 'hash'}}), 'hash');
		assert.equal(embedderSpecText({env: {}}), 'hf:Xenova/multilingual-e5-small');
	});

	it('calls each model family the way it was trained: pooling, padding side and prompts', () => {
		const e5 = profileForModelId('Xenova/multilingual-e5-small');
		assert.deepEqual([e5.pooling, prefixFor(e5, 'query'), prefixFor(e5, 'passage')], ['mean', 'query: ', 'passage: ']);
		assert.equal(prefixFor(profileForModelId('intfloat/e5-base-v2'), 'passage'), 'passage: ');
		const qwen = profileForModelId('onnx-community/Qwen3-Embedding-0.6B-ONNX');
		assert.equal(qwen.pooling, 'last_token');
		assert.equal(qwen.padLeft, true);
		assert.match(prefixFor(qwen, 'query'), /^Instruct: .+\nQuery:$/);
		assert.equal(prefixFor(qwen, 'passage'), '', 'documents go in bare');
		assert.equal(profileForModelId('Xenova/bge-m3').pooling, 'cls');
		const plain = profileForModelId('Xenova/all-MiniLM-L6-v2');
		assert.deepEqual(plain, {pooling: 'mean', queryPrefix: '', passagePrefix: '', padLeft: false});
		assert.equal(profileTag(plain), '', 'plain mean pooling adds nothing to the embedder id');
		assert.match(profileTag(qwen), /^last_token\+[0-9a-f]{6}$/);
		assert.notEqual(profileTag(e5), profileTag({...e5, queryPrefix: 'search_query: '}), 'a prompt change changes the id');
	});
});

/** A copy of the tiny model with sentence-transformers files added. */
function tinyModelWith(files: Record<string, unknown>): string {
	const folder = path.join(tempDir('cc-kb-st-'), 'tiny-st');
	cpSync(TINY_MODEL, folder, {recursive: true});
	for (const [name, content] of Object.entries(files)) {
		mkdirSync(path.dirname(path.join(folder, name)), {recursive: true});
		writeFileSync(path.join(folder, name), typeof content === 'string' ? content : JSON.stringify(content));
	}
	return folder;
}

describe('kb: sentence-transformers pooling and prompts of a local model', () => {
	// The tiny model has no attention layers, so a token's output depends only on the token and its
	// position: that makes each pooling mode recognisable from the vectors alone.
	const texts = ['the cat sleeps on the mat', 'a truck'];

	it('takes the CLS token when 1_Pooling says so (every text starts with the same [CLS])', async () => {
		const folder = tinyModelWith({'1_Pooling/config.json': {word_embedding_dimension: 32, pooling_mode_cls_token: true, pooling_mode_mean_tokens: false}});
		assert.equal(profileForFolder(folder).pooling, 'cls');
		const {embedder} = await createEmbedder(`local:${folder}`);
		assert.match(embedder.id, /:cls:32$/);
		const [a, b] = await embedder.embed(texts, {role: 'passage'});
		assert.ok(cosine(a!, b!) > 0.9999, 'CLS pooling ignores the rest of the text here');
		const mean = (await createEmbedder(`local:${TINY_MODEL}`)).embedder;
		const [ma, mb] = await mean.embed(texts, {role: 'passage'});
		assert.ok(cosine(ma!, mb!) < 0.9, 'mean pooling does not');
	});

	it('pools the last token with left padding, so a padded text in a batch embeds as it does alone', async () => {
		const folder = tinyModelWith({'1_Pooling/config.json': {pooling_mode_lasttoken: true}});
		const {embedder, fallback} = await createEmbedder(`local:${folder}`);
		assert.equal(fallback, undefined);
		assert.match(embedder.id, /:last_token:32$/);
		const [, batched] = await embedder.embed(texts, {role: 'passage'});
		const [alone] = await embedder.embed([texts[1]!], {role: 'passage'});
		assert.ok(batched!.every((x) => Number.isFinite(x)));
		assert.ok(cosine(batched!, alone!) > 0.9999, 'with right padding the short text would end on [PAD]');
	});

	it('puts the model\'s own query and document prompts in front of each side', async () => {
		const folder = tinyModelWith({'config_sentence_transformers.json': {prompts: {query: 'cat cat ', document: 'truck '}}});
		const profile = profileForFolder(folder);
		assert.deepEqual([profile.queryPrefix, profile.passagePrefix], ['cat cat ', 'truck ']);
		const {embedder} = await createEmbedder(`local:${folder}`);
		const plain = (await createEmbedder(`local:${TINY_MODEL}`)).embedder;
		const [query] = await embedder.embed(['a kitten sleeps'], {role: 'query'});
		const [passage] = await embedder.embed(['a kitten sleeps'], {role: 'passage'});
		const [expectedQuery, expectedPassage] = await plain.embed(['cat cat a kitten sleeps', 'truck a kitten sleeps'], {role: 'passage'});
		assert.ok(cosine(query!, expectedQuery!) > 0.9999);
		assert.ok(cosine(passage!, expectedPassage!) > 0.9999);
		assert.notEqual(embedder.id, plain.id);
	});

	it('refuses a damaged pooling file by name instead of guessing, and falls back to hash', async () => {
		const folder = tinyModelWith({'1_Pooling/config.json': '{"pooling_mode_cls_token": tru'});
		assert.throws(() => profileForFolder(folder), /1_Pooling[/\\]config\.json: not a usable sentence-transformers file/);
		const messages: string[] = [];
		const handle = await createEmbedder(`local:${folder}`, {log: (m) => messages.push(m)});
		assert.equal(handle.embedder.id, 'hash:v1:384');
		assert.match(messages.join(''), /1_Pooling[/\\]config\.json: not a usable sentence-transformers file.*using the offline 'hash' embedder/);
	});
});

describe('kb: a local Qwen3-Embedding folder (tiny fixture that declares itself qwen3, no hub)', () => {
	it('is recognised by its config, not its folder name, and queried with our task instruction', () => {
		const folder = path.join(tempDir('cc-kb-q3-'), 'downloaded-model');
		cpSync(TINY_QWEN3, folder, {recursive: true});
		const profile = profileForFolder(folder);
		assert.equal(profile.pooling, 'last_token');
		assert.equal(profile.padLeft, true);
		// The model card's format: "Instruct: {task}\nQuery:" with the query text following directly.
		assert.equal(prefixFor(profile, 'query'), `Instruct: ${QWEN3_QUERY_INSTRUCTION}\nQuery:`);
		assert.equal(prefixFor(profile, 'passage'), '');
		assert.deepEqual(profile, profileForModelId('onnx-community/Qwen3-Embedding-0.6B-ONNX'), 'local: and hf: copies share one profile');
		// A pooling file that contradicts the family is refused by name rather than half-obeyed.
		writeFileSync(path.join(folder, '1_Pooling', 'config.json'), JSON.stringify({pooling_mode_mean_tokens: true}));
		assert.throws(() => profileForFolder(folder), /1_Pooling[/\\]config\.json: a Qwen3 embedding model pools the last token/);
	});

	it('loads through local:, pools the last token with left padding and records the profile in its id', async () => {
		const messages: string[] = [];
		const {embedder, fallback} = await createEmbedder(`local:${TINY_QWEN3}`, {log: (m) => messages.push(m)});
		assert.equal(fallback, undefined, messages.join(''));
		assert.equal(embedder.id, `local:tiny-qwen3@${embedder.id.split('@')[1]!.split(':')[0]}:${profileTag(profileForFolder(TINY_QWEN3))}:32`);
		assert.match(embedder.id, /:last_token\+[0-9a-f]{6}:32$/);
		const [phrase, last, other] = await embedder.embed(['a red truck', 'truck', 'the cat sleeps'], {role: 'passage'});
		// With no attention a token's state is its own, so last-token pooling makes "a red truck" embed as
		// "truck" only if the batch is padded on the left (on the right, its last position would be padding).
		assert.ok(cosine(phrase!, last!) > 0.9999);
		assert.ok(cosine(phrase!, other!) < 0.9);
		const [query] = await embedder.embed(['a red truck'], {role: 'query'});
		assert.ok(cosine(query!, last!) > 0.9999, 'the instruction goes before the text, so the last token is still the text\'s');
	});

	it('builds and searches a KB index with it', async () => {
		const home = tempDir('cc-kb-q3kb-');
		const kbDir = path.join(home, 'shipped');
		mkdirSync(path.join(kbDir, 'cultural'), {recursive: true});
		const entry = (id: string, text: string) => JSON.stringify({id, regions: ['JP'], tags: [], domain: 'lifestyle', title: id, text, source: 'curated'});
		writeFileSync(path.join(kbDir, 'cultural', 'JP.jsonl'), [entry('t-cat', 'the red mat where the kitten sleeps'), entry('t-car', 'a blue car on the road and a truck')].join('\n'));
		const kb = await KnowledgeBase.open({kbDir, workspace: home, embedder: `local:${TINY_QWEN3}`});
		const hits = await kb.search('which one is a truck', {kind: 'cultural', topK: 2, filter: {region: 'JP'}, mode: 'dense'});
		assert.equal(hits[0]!.id, 't-car');
		assert.match(kb.indexDir, /index[/\\]local_tiny-qwen3@[0-9a-f]{8}_last_token_[0-9a-f]{6}_32$/);
	});
});

describe('kb: transformers.js embedder (tiny local model, no network)', () => {
	it('loads a local ONNX model, mean-pools and normalises', async () => {
		const messages: string[] = [];
		const handle = await createEmbedder(`local:${TINY_MODEL}`, {log: (m) => messages.push(m)});
		assert.equal(handle.fallback, undefined, messages.join(''));
		const {embedder} = handle;
		assert.match(embedder.id, /^local:tiny-model@[0-9a-f]{8}:32$/);
		assert.equal(embedder.dimension, 32);
		const [cat, kitten, truck] = await embedder.embed(['the cat sleeps on the mat', 'a kitten sleeps', 'the truck runs fast'], {role: 'passage'});
		assert.equal(cat!.length, 32);
		assert.ok(Math.abs(Math.hypot(...cat!) - 1) < 1e-4, 'unit length');
		assert.ok(cosine(cat!, kitten!) > cosine(cat!, truck!), 'near-synonyms embed closer');
		// Loaded once per process: a second request reuses the pipeline.
		assert.equal((await createEmbedder(`local:${TINY_MODEL}`)).embedder, embedder);
	});

	it('builds and searches an index with the local model, in its own index folder', async () => {
		const home = tempDir('cc-kb-tiny-');
		const kbDir = path.join(home, 'shipped');
		mkdirSync(path.join(kbDir, 'cultural'), {recursive: true});
		const entry = (id: string, title: string, text: string) => JSON.stringify({id, regions: ['JP'], tags: [], domain: 'lifestyle', title, text, source: 'curated'});
		writeFileSync(path.join(kbDir, 'cultural', 'JP.jsonl'), [entry('t-cat', 'the cat', 'the cat sleeps on the red mat'), entry('t-car', 'the car', 'the blue truck runs fast on the road'), entry('t-dog', 'the dog', 'a puppy runs on the road')].join('\n'));
		const kb = await KnowledgeBase.open({kbDir, workspace: home, embedder: `local:${TINY_MODEL}`});
		const hits = await kb.search('a kitten sleeps', {kind: 'cultural', topK: 3, filter: {region: 'JP'}, mode: 'dense'});
		assert.equal(hits[0]!.id, 't-cat');
		assert.match(kb.indexDir, /index[/\\]local_tiny-model@[0-9a-f]{8}_32$/);
	});

	it('falls back to hash with a clear message when the model cannot be loaded', async () => {
		const broken = tempDir('cc-kb-broken-');
		writeFileSync(path.join(broken, 'config.json'), '{"model_type": "bert"}');
		for (const spec of [`local:${path.join(broken, 'missing')}`, `local:${broken}`]) {
			const messages: string[] = [];
			const handle = await createEmbedder(spec, {log: (m) => messages.push(m)});
			assert.equal(handle.embedder.id, 'hash:v1:384');
			assert.ok(handle.fallback);
			assert.equal(messages.length, 1);
			assert.match(messages[0]!, new RegExp(`cannot load embedder '${spec.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}' \\(.+\\); using the offline 'hash' embedder`));
		}
	});

	it('remembers a default model that could not be loaded: not tried again, said once, tried when named', async () => {
		const broken = tempDir('cc-kb-broken-');
		const spec = `local:${path.join(broken, 'missing')}`;
		const failureFile = path.join(tempDir('cc-kb-ws-'), 'embedder-unavailable.json');
		const first: string[] = [];
		const a = await createEmbedder(spec, {log: (m) => first.push(m), failureFile});
		assert.ok(a.fallback);
		assert.match(first.join(''), /This is remembered in .*embedder-unavailable\.json: the download is not tried again until you name the model/);
		assert.match(first.join(''), /--embedder hash, or CULTURECONVERSE_EMBEDDER=hash/);
		const second: string[] = [];
		const b = await createEmbedder(spec, {log: (m) => second.push(m), failureFile});
		assert.deepEqual(second, [], 'said once');
		assert.match(b.fallback ?? '', /not tried again/);
		// Named explicitly, it is tried (and fails loudly again).
		const third: string[] = [];
		await createEmbedder(spec, {log: (m) => third.push(m), failureFile, explicit: true});
		assert.equal(third.length, 1);
	});

	it('keeps downloaded models in one cache per user: $HF_HOME, else the XDG cache', () => {
		assert.equal(modelCacheDir({HF_HOME: '/data/hf'}), path.join('/data/hf', 'transformers.js'));
		assert.equal(modelCacheDir({XDG_CACHE_HOME: '/c', HOME: '/home/u'}), path.join('/c', 'huggingface', 'transformers.js'));
		assert.equal(modelCacheDir({HOME: '/home/u'}), path.join('/home/u', '.cache', 'huggingface', 'transformers.js'));
	});
});
