import type {ChatMessage} from '../domain/session.js';
import {renderPrompt} from '../llm/prompts.js';
import type {RenderedPrompt} from '../llm/types.js';
import {shortHash} from '../util/hash.js';
import type {GoldGuidance, PublicView} from './views.js';

/*
 * The assistant under test is built from a PublicView (the chat history) and, in gold mode only, a
 * GoldGuidance block. This module must never import the session type: its inputs are the whole of
 * what the assistant may see.
 */

/** Messages for the assistant role: system prompt, then the chat exactly as the user wrote it. */
export function buildAssistantPrompt(view: PublicView, guidance?: GoldGuidance): RenderedPrompt {
	const system = guidance ? renderPrompt('assistant-gold', {guidance: guidance.text}) : renderPrompt('assistant', {});
	const messages: ChatMessage[] = [...system.messages.filter((message) => message.role === 'system'), ...view.messages.map((turn) => ({role: turn.role, content: turn.content}))];
	return {id: system.id, messages, hash: shortHash(JSON.stringify(messages))};
}

/** What the offline mock provider receives for an assistant call: the same public view, nothing more. */
export type AssistantMockInput = {readonly view: PublicView; readonly gold: boolean; readonly guidance: string | null; readonly language: string; readonly sample?: number};
