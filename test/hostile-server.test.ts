import assert from 'node:assert/strict';
import {randomBytes} from 'node:crypto';
import {mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {after, before, describe, it} from 'node:test';
import {readSession} from '../src/store/sessionStore.js';
import {type CliResult, parseJson, runCli} from './helpers/cli.js';
import {type FakeOpenAI, type FakeRequest, startFakeOpenAI} from './helpers/fakeOpenAI.js';
import {hugeServer} from './helpers/hugeServer.js';
import {scriptedModel} from './helpers/scriptedModel.js';

/*
 * A hostile server (issue 21, items 4, 5 and 6): error bodies and successful replies that echo the
 * configured key in every form a server has been seen to (whole, without its `sk-proj-` prefix,
 * base64 of an echoed `Bearer` header, URL-encoded, split across two JSON fields, in an error's
 * `code`), terminal control sequences (OSC title, CSI clear, C1 CSI/OSC/ST) in error bodies and model
 * text, and 50 MB replies. The loopback server answers the OpenAI chat completions API as the SDK
 * reads it (error bodies in OpenAI's documented shape `{"error": {message, type, param, code}}`, see
 * https://platform.openai.com/docs/guides/error-codes; streamed replies as server-sent
 * `chat.completion.chunk` events ending in `data: [DONE]`). The canary key is then looked for, in
 * each of its forms, in every file written (sessions, response cache, recordings, HTML pages) and in
 * every byte of output; no raw ESC or C1 control may reach any output.
 */

const KEY = `sk-proj-${randomBytes(24).toString('base64url').replace(/[-_]/g, 'Q')}`;
const BODY = KEY.slice('sk-proj-'.length);
/** How the key comes back: whole, without its prefix, base64 (an echoed Authorization header), URL-encoded, split. */
const ECHOES = [
	KEY,
	`key ${BODY} is not valid`,
	`auth=${Buffer.from(`Bearer ${KEY}`).toString('base64')}`,
	`/v1?api_key=${[...Buffer.from(KEY)].map((byte) => `%${byte.toString(16).toUpperCase()}`).join('')}`,
	JSON.stringify({key_start: KEY.slice(0, 20), key_end: KEY.slice(20)}),
].join(' | ');
/** Title change, clear screen, C1 CSI, C1 OSC ... ST, and a bare carriage return. */
const CONTROLS = '\u001b]0;pwned-title\u0007\u001b[2J\u009b31m red \u009d0;c1-title\u009c\rover';

/** Every form of the key a leak would show (the base64 core at each alignment, percent-encoded, the body). */
function keyForms(): string[] {
	const forms = [KEY, BODY, encodeURIComponent(KEY), [...Buffer.from(KEY)].map((byte) => `%${byte.toString(16).toUpperCase()}`).join('')];
	for (let shift = 0; shift < 3; shift++) {
		const encoded = Buffer.concat([Buffer.alloc(shift), Buffer.from(KEY)]).toString('base64');
		forms.push(encoded.slice(Math.ceil((shift * 8) / 6) + 1, Math.floor(((shift + KEY.length) * 8) / 6) - 1));
	}
	forms.push(KEY.slice(0, 20), KEY.slice(20));
	return forms;
}

function filesUnder(dir: string): string[] {
	const out: string[] = [];
	for (const entry of readdirSync(dir, {withFileTypes: true})) {
		const full = path.join(dir, entry.name);
		if (entry.isDirectory()) out.push(...filesUnder(full));
		else if (entry.isFile()) out.push(full);
	}
	return out;
}

function assertNoLeak(where: string, text: string): void {
	for (const form of keyForms()) assert.ok(!text.includes(form), `${where} holds the key (form ${form.slice(0, 12)}...)`);
}

function assertNoControls(where: string, text: string): void {
	const found = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/.exec(text);
	assert.equal(found, null, `${where} holds a raw control character U+${found?.[0].charCodeAt(0).toString(16).padStart(4, '0')} near ${JSON.stringify(text.slice(Math.max(0, (found?.index ?? 0) - 30), (found?.index ?? 0) + 30))}`);
}

let fake: FakeOpenAI;
let cwd: string;
let env: NodeJS.ProcessEnv;
const outputs: Array<{what: string; text: string}> = [];
let simulatorCalls = 0;

before(async () => {
	const script = scriptedModel({
		assistant: () => `Here is a plan. ${ECHOES} ${CONTROLS} Then cook the rice first.`,
		stage: {
			// The first simulator call meets a 500 whose code echoes the key (stored in the retry record, printed by --jsonl).
			simulator: () => (simulatorCalls++ === 0 ? {status: 500, body: {error: {message: `upstream failure ${ECHOES} ${CONTROLS}`, type: 'server_error', param: null, code: KEY}}} : undefined),
		},
	});
	fake = await startFakeOpenAI({
		models: ['fake-model', 'echo-401'],
		handler: (request: FakeRequest) => (request.body.model === 'echo-401' ? {status: 401, body: {error: {message: `Incorrect API key provided: ${ECHOES} ${CONTROLS}`, type: 'invalid_request_error', param: null, code: 'invalid_api_key'}}} : script(request)),
	});
	cwd = mkdtempSync(path.join(tmpdir(), 'cc-hostile-'));
	writeFileSync(path.join(cwd, 'cultureconverse.config.json'), JSON.stringify({model: 'fake-model', retry: {maxAttempts: 3, baseDelayMs: 2, maxDelayMs: 10}}));
	env = {OPENAI_BASE_URL: fake.baseURL, OPENAI_API_KEY: KEY, CULTURECONVERSE_EMBEDDER: 'hash', CULTURECONVERSE_HOME: path.join(cwd, 'home'), PATH: process.env['PATH']};
});
after(async () => {
	await fake.close();
	rmSync(cwd, {recursive: true, force: true});
});

async function cli(args: string[], what = args.join(' ')): Promise<CliResult> {
	const result = await runCli(args[0] === 'seed' ? args : [...args, '--sessions-dir', path.join(cwd, 'sessions')], {env, cwd});
	outputs.push({what: `${what} (stdout)`, text: result.stdout}, {what: `${what} (stderr)`, text: result.stderr});
	return result;
}

describe('a hostile server: keys echoed in every form, control sequences', () => {
	it('run (text and --jsonl), batch, replay, report --html and view: the key is in no file and no output, and no control sequence is printed', async () => {
		const text = await cli(['run', '--seed', 'th-isan-a35-f:culinary.dietary-rules.01', '--max-turns', '2', '--record', path.join(cwd, 'run.jsonl')]);
		assert.equal(text.code, 0, text.stderr);
		simulatorCalls = 0;
		const jsonl = await cli(['run', '--seed', 'my-malay-muslim-a18-f:culinary.dietary-rules.01', '--max-turns', '2', '--jsonl', '--no-cache']);
		assert.equal(jsonl.code, 0, jsonl.stderr);
		const events = jsonl.stdout.trim().split('\n').map((line) => JSON.parse(line) as {type: string; reason?: string});
		const retried = events.find((event) => event.type === 'call_retried');
		assert.ok(retried, 'the 500 was retried');
		assert.match(retried.reason ?? '', /HTTP 500 \[redacted\]/, 'the code that echoed the key is masked in the retry reason');
		const batch = await cli(['batch', '--name', 'hostile', '--region', 'VN', '--sample', '2', '--max-turns', '2', '--jsonl']);
		assert.equal(batch.code, 0, batch.stderr);
		const sessions = readdirSync(path.join(cwd, 'sessions')).filter((name) => name.endsWith('.json'));
		const id = sessions[0]!.slice(0, -'.json'.length);
		const session = readSession(path.join(cwd, 'sessions', sessions[0]!));
		const reply = session.turns.find((turn) => turn.role === 'assistant')!.content;
		assert.match(reply, /Here is a plan\. \[redacted\]/, 'the reply is kept, the key masked');
		assert.match(reply, / red \nover Then cook/, 'the control sequences are gone (an OSC with its payload), the text around them stays');
		assert.doesNotMatch(reply, /pwned-title|c1-title/);
		for (const args of [['replay', id, '--print'], ['replay', id, '--print', '--json'], ['sessions', '--json'], ['report', '--include-mock', '--html', path.join(cwd, 'report.html')], ['view', 'hostile', '--html', path.join(cwd, 'view')]]) {
			const result = await cli(args);
			assert.equal(result.code, 0, `${args.join(' ')}: ${result.stderr}`);
		}
		const written = filesUnder(cwd).filter((file) => !file.endsWith('cultureconverse.config.json'));
		assert.ok(written.some((file) => file.includes(`${path.sep}cache${path.sep}`)), 'the response cache was written');
		assert.ok(written.some((file) => file.endsWith('.html')), 'HTML pages were written');
		for (const file of written) {
			if (statSync(file).size > 64 * 1024 * 1024) continue;
			assertNoLeak(file, readFileSync(file, 'latin1'));
			assertNoLeak(file, readFileSync(file, 'utf8'));
		}
		for (const {what, text: output} of outputs) {
			assertNoLeak(what, output);
			assertNoControls(what, output);
		}
	});

	it('a 401 echoing the key and control codes: doctor, run and batch exit 2 with the server\'s words masked and clean', async () => {
		for (const args of [['doctor', '--model', 'echo-401'], ['run', '--seed', 'th-isan-a35-f:culinary.dietary-rules.01', '--model', 'echo-401', '--no-preflight'], ['batch', '--name', 'refused', '--region', 'TH', '--sample', '3', '--model', 'echo-401', '--no-preflight']]) {
			const result = await cli(args);
			// `run` records the failure on the session: exit 3 (an episode in an error state), as documented.
			assert.equal(result.code, args[0] === 'run' ? 3 : 2, `${args[0]}: ${result.stderr}`);
			assert.match(result.stderr + result.stdout, /Incorrect API key provided: \[redacted\]/);
			assertNoLeak(args[0]!, result.stdout + result.stderr);
			assertNoControls(args[0]!, result.stdout + result.stderr);
		}
		for (const file of filesUnder(cwd)) assertNoLeak(file, readFileSync(file, 'utf8'));
	});

	it('control sequences in arguments and files never reach the terminal', async () => {
		const bad = 'arg\u001b[2J\u009b31m-title\u001b]0;gone\u0007';
		const seedFile = path.join(cwd, 'seeds.txt');
		writeFileSync(seedFile, `th-isan-a35-f:culinary.dietary-rules.01\n${bad}:culinary.x\n`);
		for (const args of [['run', '--seed', `${bad}:culinary.dietary-rules.01`, '--model', 'mock'], ['run', '--persona', bad, '--template', 'culinary.dietary-rules.01', '--model', 'mock'], ['batch', '--name', bad, '--model', 'mock'], ['batch', '--name', 'sf', '--seed-file', seedFile, '--model', 'mock', '--dry-run'], ['replay', bad, '--print'], ['seed', bad, '--json']]) {
			const result = await cli(args, args[0]!);
			assert.equal(result.code, 2, `${args.join(' ')}: ${result.stderr}`);
			assertNoControls(args.join(' '), result.stdout + result.stderr);
			if (args[0] !== 'batch' || !args.includes('--seed-file')) assert.match(result.stderr, /arg-title/, 'the argument is still named, without its controls');
		}
	});
});

describe('a server that answers 50 MB', () => {
	let big: Awaited<ReturnType<typeof hugeServer>>;
	let dir: string;
	before(async () => {
		big = await hugeServer(50 * 1024 * 1024);
		dir = mkdtempSync(path.join(tmpdir(), 'cc-huge-'));
	});
	after(async () => {
		await big.close();
		rmSync(dir, {recursive: true, force: true});
	});

	it('a batch completes, streamed and whole replies alike: each turn recorded as cut at the limit, the server cut off, no session above its limit, the report page builds', async () => {
		const childEnv = {PATH: process.env['PATH'], HOME: process.env['HOME'], CULTURECONVERSE_EMBEDDER: 'hash', CULTURECONVERSE_HOME: path.join(dir, 'home')};
		const roles = ['--generator-model', 'mock', '--validator-model', 'mock', '--simulator-model', 'mock', '--judge-model', 'mock', '--assistant-model', 'big', '--base-url', big.baseURL, '--sessions-dir', path.join(dir, 'sessions'), '--max-turns', '1'];
		// (Its memory is measured by `npm run bench:storage`, not here.)
		const batch = await runCli(['batch', '--name', 'huge', '--region', 'JP', '--sample', '3', ...roles], {env: childEnv, cwd: dir});
		assert.equal(batch.code, 0, batch.stderr);
		assert.match(batch.stdout, /Batch huge: 3\/3 completed/);
		// A batch asks for whole replies; `run` streams (tokens are shown): both are cut at the limit.
		const run = await runCli(['run', '--seed', 'jp-yamato-shinto-a35-f:culinary.dietary-rules.01', ...roles, '--json'], {env: childEnv, cwd: dir});
		assert.equal(run.code, 0, run.stderr);
		assert.ok(big.sent() < 40 * 1024 * 1024, `the server got to send ${(big.sent() / 1024 / 1024).toFixed(1)} MB over 4 replies, not 200 MB`);
		const files = readdirSync(path.join(dir, 'sessions')).filter((name) => name.endsWith('.json'));
		assert.equal(files.length, 4);
		for (const name of files) {
			const file = path.join(dir, 'sessions', name);
			assert.ok(statSync(file).size < 4 * 1024 * 1024, `${name}: ${statSync(file).size} bytes`);
			const session = readSession(file);
			const assistant = session.turns.filter((turn) => turn.role === 'assistant');
			assert.ok(assistant.length > 0);
			for (const turn of assistant) {
				assert.equal(turn.cut, 'size', `${name}: the turn is recorded as cut by its size`);
				assert.equal(turn.cutBytes?.limitBytes, 256 * 1024, `${name}: the turn is recorded as cut at the assistant's limit`);
				assert.ok(turn.content.length > 128 * 1024 && turn.content.length <= 256 * 1024, `${name}: ${turn.content.length} characters kept`);
			}
			assert.ok(session.calls.filter((call) => call.role === 'assistant').every((call) => call.cut !== undefined));
		}
		const report = await runCli(['report', '--sessions-dir', path.join(dir, 'sessions'), '--html', path.join(dir, 'huge.html'), '--json'], {env: {...childEnv}, cwd: dir});
		assert.equal(report.code, 0, report.stderr);
		assert.equal(parseJson<{overall: {n: number}}>(report.stdout).overall.n, 4);
	});
});
