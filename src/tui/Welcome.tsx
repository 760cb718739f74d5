import {Box, Text, useApp, useInput} from 'ink';
import type {Universe} from '../universe/load.js';

type Props = {readonly universe: Universe};

/** Home screen: what the universe holds and how to get going. */
export function Welcome({universe}: Props) {
	const {exit} = useApp();
	useInput((input) => {
		if (input === 'q') exit();
	});
	return (
		<Box flexDirection="column" borderStyle="round" paddingX={1}>
			<Text bold>cultureconverse</Text>
			<Text>
				{universe.regions.size} regions · {universe.identities.length} identities · {universe.personas.length} personas · {universe.domains.length} domains ·{' '}
				{universe.subdomainById.size} subdomains · {universe.templates.length} templates
			</Text>
			<Text dimColor>q quit</Text>
		</Box>
	);
}
