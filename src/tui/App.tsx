import {Box, useApp} from 'ink';
import {useCallback, useReducer} from 'react';
import type {Session} from '../domain/session.js';
import {errorMessage} from '../util/errors.js';
import {appReducer, backOf, type Screen, type TuiOutcome} from './appState.js';
import {CompareScreen} from './screens/CompareScreen.js';
import {ErrorBoundary} from './components/ErrorBoundary.js';
import {useTerminalSize} from './hooks/useTerminalSize.js';
import {HelpScreen} from './screens/HelpScreen.js';
import {HomeScreen} from './screens/HomeScreen.js';
import {ItemsScreen} from './screens/ItemsScreen.js';
import {LiveEpisode} from './screens/LiveEpisode.js';
import {OptionsScreen} from './screens/OptionsScreen.js';
import {PersonaPicker} from './screens/PersonaPicker.js';
import {ReplayEpisode} from './screens/ReplayEpisode.js';
import {SessionsScreen} from './screens/SessionsScreen.js';
import {TemplatePicker} from './screens/TemplatePicker.js';
import type {TuiServices} from './services.js';
import type {Scores} from '../store/ratingStore.js';
import type {SessionsScreenState} from './view/sessionsList.js';
import {useKeys} from './hooks/useKeys.js';

type Props = {readonly services: TuiServices; readonly initial: Screen; readonly outcome?: TuiOutcome};

const ratingFor = (services: TuiServices, sessionId: string) => ({rater: services.rater, file: services.ratingsFile, load: () => services.ratingsOf(sessionId), save: (scores: Scores) => services.rate(sessionId, scores)});

/** The whole TUI: one screen at a time, all episode work through the services (and so the one engine). */
export function App({services, initial, outcome}: Props) {
	const {exit} = useApp();
	const [state, dispatch] = useReducer(appReducer, {screen: initial, busy: null, error: null});
	const {columns, rows} = useTerminalSize();
	const height = Math.max(1, rows - 1);
	const go = useCallback((screen: Screen) => dispatch({type: 'go', screen}), []);
	const quit = useCallback(() => exit(), [exit]);
	const attempt = useCallback(
		(message: string, work: () => Promise<Screen>) => {
			dispatch({type: 'busy', message});
			work().then(go, (error: unknown) => dispatch({type: 'failed', message: errorMessage(error)}));
		},
		[go],
	);
	const resume = (session: Session, back: Screen | null, retry: boolean) =>
		attempt(`${retry ? 'retrying' : 'resuming'} ${session.id}…`, async () => {
			const engine = await services.resumeEpisode(session);
			// An errored session continues with its failed step (`run --resume ID --retry` does the same).
			if (retry) await engine.retryAfterError();
			return {kind: 'live', engine, back};
		});

	// Ctrl-C leaves from anywhere (raw mode turns it into a key press, not a signal).
	useKeys((input, key) => {
		if (key.ctrl && input === 'c') {
			if (outcome?.busy) outcome.interrupted = true;
			quit();
		}
	});

	const {screen} = state;
	const back = backOf(screen);
	const content = (() => {
		switch (screen.kind) {
			case 'home':
				return <HomeScreen universe={services.universe} sessionsDir={services.sessionsDir} width={columns} onChoose={(choice) => (choice === 'quit' ? quit() : go(choice === 'new' ? {kind: 'persona'} : {kind: choice}))} />;
			case 'help':
				return <HelpScreen height={height} onBack={() => go({kind: 'home'})} />;
			case 'persona':
				return <PersonaPicker universe={services.universe} width={columns} height={height} onPick={(persona) => go({kind: 'template', persona})} onBack={() => go({kind: 'home'})} />;
			case 'template':
				return <TemplatePicker universe={services.universe} persona={screen.persona} width={columns} height={height} onPick={(template) => go({kind: 'options', persona: screen.persona, template})} onBack={() => go({kind: 'persona'})} />;
			case 'options':
				return (
					<OptionsScreen
						services={services}
						persona={screen.persona}
						template={screen.template}
						width={columns}
						starting={state.busy !== null}
						error={state.error}
						onStart={(flags) => attempt('starting the episode…', async () => ({kind: 'live', engine: await services.startEpisode(flags), back: {kind: 'home'}}))}
						onBack={() => go({kind: 'template', persona: screen.persona})}
					/>
				);
			case 'sessions': {
				const here = (state: SessionsScreenState): Screen => ({kind: 'sessions', state: {...state, command: null, note: null}});
				return (
					<SessionsScreen
						services={services}
						width={columns}
						height={height}
						message={state.busy ?? state.error}
						initial={screen.state}
						onOpen={(summary, options, list) =>
							attempt(`opening ${summary.id}…`, async () => {
								const loaded = await services.loadSession(summary.path);
								// A session still played blind is replayed only after yes, and marked on its file first.
								const session = options.reveal ? await services.revealSaved(loaded, 'tui-replay') : loaded;
								return {kind: 'replay', session, back: here(list)};
							})
						}
						onResume={async (summary, list) => {
							try {
								resume(await services.loadSession(summary.path), here(list), summary.status === 'error');
							} catch (error) {
								dispatch({type: 'failed', message: errorMessage(error)});
							}
						}}
						onCompare={(pair, list) => attempt('opening both sessions…', async () => ({kind: 'compare', left: await services.loadSession(pair[0].path), right: await services.loadSession(pair[1].path), back: here(list)}))}
						onBack={() => go({kind: 'home'})}
						onQuit={quit}
					/>
				);
			}
			case 'items':
				return <ItemsScreen listing={services.listItems()} width={columns} height={height} onBack={() => go({kind: 'home'})} onQuit={quit} />;
			case 'live':
				return <LiveEpisode key={screen.engine.session.id} engine={screen.engine} services={services} outcome={outcome} onQuit={quit} onBack={back ? () => go(back) : null} onReplay={(session, options) => go({kind: 'replay', session, back: screen.back, rate: options.rate})} />;
			case 'replay':
				return <ReplayEpisode key={screen.session.id} session={screen.session} rateFirst={screen.rate ?? false} rating={ratingFor(services, screen.session.id)} message={state.busy ?? state.error} onResume={(session, options) => resume(session, screen.back, options.retry)} onQuit={quit} onBack={back ? () => go(back) : null} />;
			case 'compare':
				return <CompareScreen left={screen.left} right={screen.right} width={columns} height={height} onBack={() => go(screen.back)} onQuit={quit} />;
			default: {
				const never: never = screen;
				return never;
			}
		}
	})();
	return (
		<Box flexDirection="column" width={columns} height={height}>
			<ErrorBoundary onQuit={quit} onBack={back ? () => go(back) : undefined}>
				{content}
			</ErrorBoundary>
		</Box>
	);
}
