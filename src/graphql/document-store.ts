// Apollo's store of parsed and validated documents (it skips parsing and validating a document it has seen), held
// smaller than Apollo's default: 30 MiB of the documents' JSON is ~115 MB of heap (3.4–3.8 × their JSON), so a client
// rotating large documents could grow the process by that much. Bounded here by count and by source length
// (at most ~170 bytes of heap per character, a document of 10,000 `id`s): 128 KiB of sources, ≤ ~22 MB.
import type { DocumentNode } from 'graphql';

const MAX_DOCUMENTS = 1000;
const MAX_CHARS = 128 * 1024;

/** Least recently used leave first; a document longer than a quarter of the budget is not kept. */
export function documentStore() {
  const held = new Map<string, DocumentNode>();
  let chars = 0;
  const lengthOf = (d: DocumentNode) => d.loc?.end ?? MAX_CHARS;
  const drop = (key: string) => {
    const d = held.get(key);
    if (!d) return false;
    held.delete(key);
    chars -= lengthOf(d);
    return true;
  };
  return {
    async get(key: string): Promise<DocumentNode | undefined> {
      const d = held.get(key);
      if (d) {
        held.delete(key);
        held.set(key, d);
      }
      return d;
    },
    async set(key: string, document: DocumentNode): Promise<void> {
      const length = lengthOf(document);
      drop(key);
      if (length > MAX_CHARS / 4) return;
      while (held.size > 0 && (held.size >= MAX_DOCUMENTS || chars + length > MAX_CHARS))
        drop(held.keys().next().value!);
      held.set(key, document);
      chars += length;
    },
    async delete(key: string): Promise<boolean> {
      return drop(key);
    },
  };
}
