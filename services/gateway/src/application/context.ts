import type { AgentIdentity, Downstream } from '../downstream';
import type { PhotoLoader } from '../http/image-intake';
import type { RateLimiters } from '../http/rate-limits';

/**
 * What the gateway's use cases need. The REST routes and the MCP tools both call the use cases in this folder
 * with it, so a rule (a charge, a limit, an error) is written once whichever door a request came in by.
 */
export interface AppContext {
  downstream: Downstream;
  limiters: RateLimiters;
  baseUrl: string;
  photos: PhotoLoader;
}

/** The authenticated caller of a use case (REST: the authenticate middleware; MCP: the request's key). */
export type Caller = AgentIdentity;
