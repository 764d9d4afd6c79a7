/**
 * The contract's error body. A planner returns it for options nothing can be made for (a 400
 * naming the option); the request layer (lib/request/) returns it for a request it refuses.
 * Here, not there, because the core makes such bodies and imports nothing above it.
 * @module
 */
export interface ErrorBody {
  error: string;
  status: number;
  field?: string;
}
