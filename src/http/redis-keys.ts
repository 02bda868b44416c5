// The one place Redis keys and pub/sub channels are named (CONTRACT §20): every one begins with REDIS_KEY_PREFIX, so
// deployments (and test runs) with different prefixes share one Redis without effect on each other, and those
// holding one car share's windows, cached answers, tag versions or events continue with its Id and `:`.

export interface RedisKeys {
  /** REDIS_KEY_PREFIX, as configured (`carshare:<database name>:` when unset). */
  readonly prefix: string;
  /** A key or channel of the whole deployment: `<prefix><name>`. */
  deployment(name: string): string;
  /** A key or channel of one car share: `<prefix><carShareId>:<name>`. */
  carShare(carShareId: string, name: string): string;
}

export function redisKeys(prefix: string): RedisKeys {
  if (prefix === '') throw new Error('redisKeys: an empty prefix would share keys with every other user');
  return {
    prefix,
    deployment: (name) => `${prefix}${name}`,
    carShare: (carShareId, name) => `${prefix}${carShareId}:${name}`,
  };
}

/** A Redis glob pattern matching `text` literally (for PSUBSCRIBE and SCAN over a prefix). */
export const globLiteral = (text: string): string => text.replace(/[*?[\]\\]/g, (c) => `\\${c}`);
