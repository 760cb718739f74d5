/**
 * `npm run real:serve`: starts the llama-server and model that `real:setup` installed on a free
 * loopback port (127.0.0.1 only), prints the base URL, the model id and a command to try, and runs
 * until Ctrl-C. Options: `--port N`, `--ctx N` (whole server), `--slots N`, `--max-tokens N` (the
 * server's reply cap), `--threads N` (default 1), `--log` (show the server's own log); env CULTURECONVERSE_REAL_GGUF serves any
 * GGUF file instead, CULTURECONVERSE_LLAMA_SERVER any llama-server binary.
 *
 *   npm run real:serve
 *   npm run real:serve -- --ctx 32768 --slots 4
 */
import {parseArgs} from 'node:util';
import {findInstall, startServer} from './lib.js';

const {values} = parseArgs({options: {port: {type: 'string'}, ctx: {type: 'string'}, slots: {type: 'string'}, 'max-tokens': {type: 'string'}, threads: {type: 'string'}, log: {type: 'boolean'}}});
const number = (name: string, value: string | undefined): number | undefined => {
	if (value === undefined) return undefined;
	const n = Number(value);
	if (!Number.isInteger(n) || n < 1) {
		process.stderr.write(`real:serve: --${name} must be a positive whole number (got '${value}')\n`);
		process.exit(2);
	}
	return n;
};
const found = findInstall();
if (!found.ok) {
	process.stderr.write(`real:serve: ${found.reason}\n`);
	process.exit(1);
}
const {install} = found;
const options = {port: number('port', values.port), context: number('ctx', values.ctx), slots: number('slots', values.slots), maxTokens: number('max-tokens', values['max-tokens']), threads: number('threads', values.threads)};
process.stdout.write(`real:serve: loading ${install.model.file} ...\n`);
const server = await startServer(install, {...options, log: values.log ? (line) => process.stderr.write(`${line}\n`) : undefined});
const context = options.context ?? 16384;
const slots = options.slots ?? 2;
process.stdout.write(
	[
		`base URL:  ${server.baseURL}`,
		`model id:  ${server.modelId}   (${install.model.name}; licence: ${install.model.licence})`,
		`context:   ${context} tokens shared by ${slots} slots = ${Math.floor(context / slots)} per request; replies capped at ${options.maxTokens ?? 1024} tokens by the server`,
		'',
		'Try it (another terminal):',
		`  npx cultureconverse doctor --base-url ${server.baseURL} --model ${server.modelId}`,
		`  npx cultureconverse run --base-url ${server.baseURL} --model ${server.modelId} --generator-model mock --validator-model mock`,
		'',
		'Ctrl-C stops the server.',
		'',
	].join('\n'),
);
const stop = () => void server.stop().then(() => process.exit(0));
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
server.child.once('exit', (code, signal) => {
	process.stderr.write(`real:serve: llama-server exited (${code ?? signal}):\n${server.tail()}\n`);
	process.exit(1);
});
