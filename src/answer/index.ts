// The answering back-end chosen by configuration (ASK_PROVIDER): pluggable like the translation
// providers. `extractive` (the default) needs no model; `openai` speaks OpenAI-compatible chat.
import type { Config } from '../config.js';
import { extractiveBackend } from './extractive.js';
import { openAiBackend } from './openai.js';
import type { AnswerBackend } from './types.js';

export function answerBackend(c: Config['ask']): AnswerBackend {
  if (c.provider === 'openai')
    return openAiBackend({
      url: c.url!,
      model: c.model,
      apiKey: c.apiKey,
      timeoutMs: c.timeoutMs,
      maxPromptChars: c.maxPromptChars,
      allowPrivate: c.allowPrivate,
    });
  return extractiveBackend();
}

export * from './types.js';
