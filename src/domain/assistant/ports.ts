/** The assistant's ports: the provider plugins (src/domain/plugins/ai.ts) and the outbound guard they send through. */
import type { OutboundHttp } from '../plugins/channel.js';

export { AiError, type AiPlugin, type AiProviderSettings, type AiRequest, type AiAnswer } from '../plugins/ai.js';
export type OutboundAi = OutboundHttp;
