import type {CallRecord} from '../domain/session.js';
import type {ModelGateway, ModelRequest} from './types.js';

/**
 * `count` samples of one free-text request through the gateway's own `sample` (which uses `n` where
 * the server supports it), or, for gateways without one (test doubles), `count` calls keyed apart
 * by their sample number.
 */
export async function sampleOf(gateway: ModelGateway, request: ModelRequest<string>, count: number): Promise<ReadonlyArray<{readonly text: string; readonly call: CallRecord}>> {
	if (gateway.sample) return gateway.sample(request, count);
	return Promise.all(Array.from({length: count}, (_, sample) => gateway.call<string>({...request, sample}).then((response) => ({text: response.text, call: response.call}))));
}
