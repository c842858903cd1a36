/** DI token of the agent's structured logger (a pino instance, not a class). */
export const AGENT_LOG = Symbol('AGENT_LOG');
