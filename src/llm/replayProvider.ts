import {truncate} from '../util/table.js';
import {type Provider, ProviderFailure, emitWords} from './provider.js';
import {type RecordingLine, readRecording} from './recorder.js';

/**
 * One recording, shared by every role that replays from it. Lines are handed out in file order,
 * per stage: a request takes the first unused line recorded for its stage. For a sequential run
 * that is exactly the file order; when calls run concurrently (judge metrics in parallel) it keeps
 * each stage's answers with their stage even if the calls finish in a different order.
 */
export class ReplaySource {
	private lines: RecordingLine[] | null = null;
	private readonly used = new Set<number>();

	constructor(readonly file: string) {}

	/** The next line for `stage`, or null when the recording has none left. Reads the file on first use. */
	take(stage: string): RecordingLine | null {
		this.lines ??= readRecording(this.file);
		const index = this.lines.findIndex((line, i) => !this.used.has(i) && line.stage === stage);
		if (index === -1) return null;
		this.used.add(index);
		return this.lines[index]!;
	}

	get usedCount(): number {
		return this.used.size;
	}

	get total(): number {
		return this.lines?.length ?? 0;
	}
}

/** Plays recorded replies back offline; running out is a loud failure that shows the request. */
export function createReplayProvider(sourceFor: (file: string) => ReplaySource): Provider {
	return {
		kind: 'replay',
		remote: false,
		async complete(exchange) {
			const file = exchange.settings.replayFile;
			if (!file) throw new Error(`role ${exchange.role} uses the replay provider without a replay file`);
			const source = sourceFor(file);
			const line = source.take(exchange.stage);
			if (!line) {
				const lastUser = [...exchange.messages].reverse().find((message) => message.role === 'user')?.content ?? '(none)';
				throw new ProviderFailure(
					`replay ${file} is exhausted: no recorded response left for stage "${exchange.stage}" (${source.usedCount} of ${source.total} lines used). ` +
						`The request's last user message: "${truncate(lastUser, 240)}"`,
					'replay_exhausted',
				);
			}
			emitWords(line.response.text, exchange.onToken);
			return {text: line.response.text, ...(line.response.choices ? {choices: line.response.choices} : {}), reasoning: line.response.reasoning ?? null, finishReason: line.response.finishReason ?? 'stop', usage: line.response.usage, model: line.model};
		},
	};
}
