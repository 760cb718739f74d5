import {Text} from 'ink';

/**
 * Shown whenever a role ran on the offline mock provider: its output is filler, not a measurement.
 * `roles` are the roles that ran on the mock; when only some did, the banner names them instead of
 * claiming that no endpoint is configured. Without props (the blind seat knows only that some role is
 * mock) it is the plain banner.
 */
export function MockBanner(props: {readonly roles?: readonly string[]; readonly all?: boolean}) {
	const roles = props.roles ?? [];
	const text = props.all !== false
		? ' OFFLINE MOCK PROVIDER · no model endpoint configured (set OPENAI_BASE_URL / OPENAI_API_KEY) · replies and scores are deterministic filler, not measurements '
		: ` PARTLY OFFLINE MOCK · ${roles.join(', ')} ran on the mock provider · ${roles.includes('judge') ? 'scores are' : 'its output is'} deterministic filler, not a measurement `;
	return (
		<Text wrap="truncate-end" backgroundColor="yellow" color="black" bold>
			{text}
		</Text>
	);
}
