// What an error body may say: a provider's message names the environment variable that holds its
// key ("check the API key in the environment variable OPENAI_API_KEY"), which tells a remote client
// how the server is configured. The server log keeps the full message.

const variableMention = /\b(environment variables?|env(?:ironment)? var(?:iable)?|variable)\s+[A-Z_][A-Z0-9_]{2,}\b/g;

/** The message with every named environment variable replaced by a pointer to the server's configuration. */
export function withoutVariableNames(message: string): string {
  return message.replace(variableMention, '$1 named in the server configuration');
}
