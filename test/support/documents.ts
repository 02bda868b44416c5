// Hostile GraphQL documents shared by the tests of CONTRACT §28.

/**
 * `query{me{...F<n>}}`, each fragment spreading the one before twice: about 1 KB of text at 26 levels, 2^(n+1)
 * fields once expanded (graphql-jit's compile time doubled with each level: 19.9 s at 26).
 */
export const doubling = (levels: number): string => {
  let doc = `query{me{...F${levels}}} fragment F0 on UserAccount{id username}`;
  for (let i = 1; i <= levels; i += 1) doc += ` fragment F${i} on UserAccount{...F${i - 1} ...F${i - 1}}`;
  return doc;
};
