import assert from 'node:assert/strict';
import {execFileSync, spawnSync} from 'node:child_process';
import {mkdtempSync, rmSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {after, before, describe, it} from 'node:test';
import type {Session} from '../src/domain/session.js';
import {METRICS} from '../src/domain/session.js';
import {writeSessions} from './helpers/sessionFixtures.js';
import {waitForStableScreen} from './helpers/stableScreen.js';
import {tuiFixture} from './helpers/tuiFixture.js';

/*
 * Issue 22, item 2: text measured as the terminal draws it. A native session whose chat, simulator
 * reasoning and judge rationales are in each of the nine languages (and emoji) is replayed in tmux at
 * 160, 100 and 60 columns; every pane is paged through, and every captured screen is checked with the
 * terminal's own measure: tmux marks a row it had to wrap (capture-pane -J joins it with the next),
 * and each row's width is taken with glibc's wcswidth, the function this tmux measures with (it is not
 * built with utf8proc: `ldd $(which tmux)`), never with string-width, which the TUI itself uses.
 * One fixture session and one tmux session per width keep it to a few seconds.
 */

const REPO = path.resolve(import.meta.dirname, '..');
const hasTmux = spawnSync('tmux', ['-V']).status === 0;
const hasPython = spawnSync('/usr/bin/python3', ['-c', 'import ctypes']).status === 0;

/** One passage per language, long enough to wrap in every pane; emoji are single code points of width 2 (flags and ZWJ sequences differ between terminals). */
const PASSAGES: Readonly<Record<string, string>> = {
	tamil: 'எங்கள் குடும்பத்தில் சைவ உணவு மட்டுமே சமைக்க வேண்டும் என்பது முக்கியமான விதி; விருந்தினர்கள் வரும்போது வேறு பாத்திரங்களைப் பயன்படுத்த வேண்டுமா என்று தெரிந்துகொள்ள விரும்புகிறேன்.',
	thai: 'ครอบครัวของเรามีข้อห้ามเรื่องอาหารที่ต้องถือปฏิบัติอย่างเคร่งครัดในช่วงเทศกาลสำคัญและเราอยากรู้ว่าควรเตรียมอาหารให้แขกอย่างไรจึงจะเหมาะสม',
	vietnamese: 'Gia đình tôi có những kiêng kỵ về ăn uống trong dịp lễ Tết, và tôi muốn biết nên chuẩn bị món ăn cho khách như thế nào cho phải phép.',
	korean: '저희 집안에는 명절마다 꼭 지켜야 하는 음식 규칙이 있어서 손님을 맞이할 때 어떤 음식을 준비해야 예의에 맞는지 알고 싶어요.',
	japanese: '私たちの家では法事の際に守らなければならない食事の決まりがあり、お客様にどのような料理をお出しすればよいのか教えていただきたいです。',
	chinese: '我们家在春节期间有一些必须遵守的饮食禁忌，我想知道招待客人时应该准备哪些菜肴才算得体又不失礼。',
	indonesian: 'Keluarga kami punya aturan adat soal makanan yang harus dijaga selama perayaan, dan saya ingin tahu hidangan apa yang pantas disajikan untuk tamu.',
	malay: 'Keluarga kami ada pantang larang makanan yang perlu dijaga semasa musim perayaan, dan saya ingin tahu juadah apa yang sesuai untuk dihidangkan kepada tetamu.',
	filipino: 'May mga kaugalian sa pamilya namin tungkol sa pagkain tuwing may handaan, at gusto kong malaman kung anong mga putahe ang nararapat ihain sa mga bisita.',
	emoji: 'Menu ☕ 🍚 🍵 🥟 🍜 ✅ 🙏 🎉 ⭐ for the guests ☕☕☕ 🍚🍚🍚 ✅✅✅ and every line of it must fit 🙏🙏🙏🎉🎉🎉⭐⭐⭐',
};
const TEXTS = Object.values(PASSAGES);

/** The terminal's width of each line (glibc wcswidth, as tmux counts), in one python call for all screens. */
function wcswidths(lines: readonly string[]): number[] {
	const script = 'import ctypes,json,sys\nlibc=ctypes.CDLL("libc.so.6")\nlibc.setlocale(6,b"C.UTF-8")\nlibc.wcswidth.argtypes=[ctypes.c_wchar_p,ctypes.c_size_t]\nprint(json.dumps([libc.wcswidth(s,len(s)) for s in json.load(sys.stdin)]))';
	return JSON.parse(execFileSync('/usr/bin/python3', ['-c', script], {input: JSON.stringify(lines), encoding: 'utf8'})) as number[];
}

/** A completed native session of the mock whose chat, private reasoning and judge rationales are the passages. */
async function fixtureSession(sessionsDir: string): Promise<Session> {
	const fx = tuiFixture();
	try {
		const engine = await fx.services().startEpisode({persona: 'my-tamil-hindu-a55-f', template: 'culinary.dietary-rules.02', tier: 'standard', lang: 'native'});
		await engine.runToEnd();
		const base = engine.session as Session;
		let n = 0;
		const next = () => `${TEXTS[n++ % TEXTS.length]!} ${TEXTS[n++ % TEXTS.length]!}`;
		const turns = base.turns.map((turn) => ({...turn, content: next(), assessment: turn.assessment ? {...turn.assessment, reasoning: next()} : null}));
		const judge = base.judge ? {...base.judge, rationales: Object.fromEntries(METRICS.map((metric) => [metric, next()])) as Session['judge'] extends infer J ? J extends {rationales: infer R} ? R : never : never} : null;
		const session: Session = {...base, id: 'scripts-fixture', turns, judge};
		writeSessions(sessionsDir, [session]);
		return session;
	} finally {
		fx.close();
	}
}

describe('every script and emoji fits its pane, as the terminal measures it', {skip: !hasTmux ? 'tmux is not installed' : !hasPython ? '/usr/bin/python3 is missing (the wcswidth measure)' : false}, () => {
	let work: string;
	let session: Session;
	const name = `cc-scripts-${process.pid}`;
	before(async () => {
		work = mkdtempSync(path.join(tmpdir(), 'cc-scripts-'));
		session = await fixtureSession(path.join(work, 'sessions'));
	});
	after(() => {
		spawnSync('tmux', ['kill-session', '-t', name]);
		rmSync(work, {recursive: true, force: true});
	});

	for (const [columns, rows] of [
		[160, 40],
		[100, 30],
		[60, 15],
	] as const) {
		it(`at ${columns}x${rows}: no row wider than the terminal, none wrapped, every pane border in its column`, async () => {
			const env = {CULTURECONVERSE_EMBEDDER: 'hash', CULTURECONVERSE_HOME: path.join(work, 'home'), CULTURECONVERSE_SESSIONS_DIR: path.join(work, 'sessions'), TERM: 'xterm-256color', LANG: 'C.UTF-8'};
			const command = [`cd '${REPO}' &&`, 'env -u CI -u CONTINUOUS_INTEGRATION -u OPENAI_API_KEY -u OPENAI_BASE_URL', ...Object.entries(env).map(([key, value]) => `${key}='${value}'`), `node --import tsx src/cli.tsx replay ${session.id};`, 'sleep 60'].join(' ');
			spawnSync('tmux', ['kill-session', '-t', name]);
			execFileSync('tmux', ['new-session', '-d', '-s', name, '-x', String(columns), '-y', String(rows), command]);
			const tmux = (...args: string[]) => execFileSync('tmux', args, {encoding: 'utf8'});
			const capture = () => tmux('capture-pane', '-p', '-t', name);
			const screens: string[] = [];
			let screen = await waitForStableScreen(capture, (s) => s.includes('REPLAY step'), 'the replay', {timeoutMs: 30_000});
			screens.push(screen);
			const joined: string[] = [tmux('capture-pane', '-p', '-J', '-t', name)];
			// Every pane, paged from its top to its end (the narrow layouts show one pane at a time).
			// The focused pane's title row: its range says where it is scrolled to ("1-12/90 ↓").
			const header = (text: string, title: string) => /▶ \S+[^┃│]*/.exec(text.split('\n').find((line) => line.includes(`▶ ${title}`)) ?? '')?.[0] ?? '';
			for (const [key, title] of [['1', 'Public'], ['2', 'Private'], ['3', 'Oracle']] as const) {
				tmux('send-keys', '-t', name, key, 'g');
				screen = await waitForStableScreen(capture, (s) => /\b1-\d+\/\d+/.test(header(s, title)) || (header(s, title) !== '' && !/\d+-\d+\//.test(header(s, title))), `${title} at its top`);
				for (let page = 0; page < 15; page++) {
					screens.push(screen);
					joined.push(tmux('capture-pane', '-p', '-J', '-t', name));
					if (!header(screen, title).includes('↓')) break;
					const before = header(screen, title);
					// A key can be lost while a frame is being written under load: sent again after a pause.
					for (let attempt = 1; ; attempt++) {
						tmux('send-keys', '-t', name, 'PageDown');
						try {
							screen = await waitForStableScreen(capture, (s) => header(s, title) !== before, `${title} page ${page + 1}`, {timeoutMs: attempt < 3 ? 4000 : 20_000});
							break;
						} catch (error) {
							if (attempt >= 3) throw error;
						}
					}
				}
			}
			const seen = screens.join('\n');
			for (const [language, passage] of Object.entries(PASSAGES)) assert.ok(seen.includes(passage.slice(0, 6)), `${language} text was drawn at ${columns} columns`);
			// tmux's own verdict: a row it wrapped is joined with the next by -J, so the row counts differ.
			for (const [index, text] of joined.entries()) {
				const plain = screens[index]!.split('\n');
				const wrapped = plain.find((line, row) => text.split('\n')[row] !== line);
				assert.equal(text.split('\n').length, plain.length, `a row wrapped at ${columns} columns, first: ${wrapped}\n${text}`);
			}
			const lines = screens.flatMap((s) => s.split('\n'));
			const widths = wcswidths(lines);
			for (const [index, line] of lines.entries()) {
				assert.ok(widths[index]! <= columns, `${widths[index]} > ${columns} columns: ${line}`);
				// A row of the pane area ends on a pane border in the terminal's last column (Ink lays the panes out to the full width).
				if (/^[│┃]/.test(line)) assert.equal(widths[index], columns, `a pane row ends at column ${widths[index]}, not ${columns}: ${line}`);
			}
		});
	}
});
