import {Text} from 'ink';

/** Shown whenever a role ran on the offline mock provider: its output is filler, not a measurement. */
export function MockBanner() {
	return (
		<Text wrap="truncate-end" backgroundColor="yellow" color="black" bold>
			{' OFFLINE MOCK PROVIDER · no model endpoint configured (set OPENAI_BASE_URL / OPENAI_API_KEY) · replies and scores are deterministic filler, not measurements '}
		</Text>
	);
}
