import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

/**
 * A call's result as the text a tool result is: text parts as they are, anything else named in a line
 * (the model gets no images or files through here), structured content as JSON when there is no text.
 */
export function mcpResultText(result: CallToolResult): string {
  const parts = result.content.map((part) => {
    switch (part.type) {
      case 'text':
        return part.text;
      case 'image':
      case 'audio':
        return `[${part.type} (${part.mimeType}) not shown]`;
      case 'resource':
        return 'text' in part.resource ? part.resource.text : `[resource ${part.resource.uri} not shown]`;
      case 'resource_link':
        return `[resource link ${part.name}: ${part.uri}]`;
      default:
        return '[content of an unknown kind not shown]';
    }
  });
  if (parts.length === 0 && result.structuredContent !== undefined)
    return JSON.stringify(result.structuredContent, null, 2);
  return parts.join('\n');
}
