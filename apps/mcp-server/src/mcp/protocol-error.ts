import { ErrorCode } from '@modelcontextprotocol/sdk/types.js';

/**
 * A JSON-RPC error with an exact message. The SDK's `McpError` prefixes `MCP error <code>: ` to the message it
 * sends; the contract's strings (`unknown tool "x"`, Go §2.2) go on the wire verbatim, and the SDK's protocol
 * layer sends any thrown error's numeric `code` and `message` as they are.
 */
export class ProtocolError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
    this.name = 'ProtocolError';
  }

  static invalidParams(message: string): ProtocolError {
    return new ProtocolError(ErrorCode.InvalidParams, message);
  }
}
