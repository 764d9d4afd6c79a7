/** The contract's error body: here, as the core's planners make it too (a 400 naming the option). @module */
export interface ErrorBody {
  error: string;
  status: number;
  field?: string;
}

/** The 400 of an option nothing can be made for. */
export const refuse = (error: string, field: string): ErrorBody => ({ error, status: 400, field });
