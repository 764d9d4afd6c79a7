/** A plan store that keeps everything (tests only: the server's is lib/http/plan-memo.ts). */
import type { PlanStore } from '../../lib/request/plan-store.ts';

export function mapStore(): PlanStore & { readonly size: number } {
  const map = new Map<string, object>();
  return {
    get: (key) => map.get(key),
    offer: (key, value) => void map.set(key, value),
    get size() {
      return map.size;
    },
  };
}
