import {Box, Text} from 'ink';
import {Component, type ReactNode} from 'react';
import {useKeys} from '../hooks/useKeys.js';

type Props = {readonly children: ReactNode; readonly onQuit: () => void; readonly onBack?: () => void};
type State = {readonly error: Error | null};

/** A rendering bug shows as a message with a way out, never as a crashed terminal. */
export class ErrorBoundary extends Component<Props, State> {
	override state: State = {error: null};

	static getDerivedStateFromError(error: unknown): State {
		return {error: error instanceof Error ? error : new Error(String(error))};
	}

	override render() {
		if (!this.state.error) return this.props.children;
		return (
			<CrashNotice
				error={this.state.error}
				onQuit={this.props.onQuit}
				onBack={
					this.props.onBack
						? () => {
								this.setState({error: null});
								this.props.onBack?.();
							}
						: undefined
				}
			/>
		);
	}
}

function CrashNotice({error, onQuit, onBack}: {readonly error: Error; readonly onQuit: () => void; readonly onBack?: () => void}) {
	useKeys((input) => {
		if (input === 'q') onQuit();
		if (input === 'b' && onBack) onBack();
	});
	return (
		<Box flexDirection="column" borderStyle="round" borderColor="red" paddingX={1}>
			<Text bold color="red">
				The screen hit a bug and stopped drawing. The session on disk is intact.
			</Text>
			<Text wrap="truncate-end">{error.message}</Text>
			<Text dimColor>{onBack ? 'b back · q quit' : 'q quit'} · rerun with CULTURECONVERSE_DEBUG=1 for details</Text>
		</Box>
	);
}
