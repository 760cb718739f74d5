import type {Tone} from '../../present/panes/lines.js';

/** Ink Text props for a tone: one palette for every screen. */
export function toneProps(tone: Tone | undefined): {color?: string; dimColor?: boolean; inverse?: boolean} {
	switch (tone) {
		case undefined:
		case 'normal':
			return {};
		case 'dim':
			return {dimColor: true};
		case 'user':
			return {color: 'cyan'};
		case 'assistant':
			return {color: 'green'};
		case 'heading':
			return {color: 'blueBright'};
		case 'private':
			return {color: 'yellow'};
		case 'oracle':
			return {color: 'magenta'};
		case 'ok':
			return {color: 'green'};
		case 'warn':
			return {color: 'yellow'};
		case 'error':
			return {color: 'red'};
		case 'accent':
			return {color: 'cyan'};
		case 'selected':
			return {inverse: true};
		default: {
			const never: never = tone;
			return never;
		}
	}
}
