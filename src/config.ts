// Environment → typed, validated configuration (CONTRACT §12). Read once at start and passed down.
import { resolve } from 'node:path';
import { z } from 'zod';
import { trimEnd } from './shared/trim.js';

const bool = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((v) => v === 'true' || v === '1' || v === 'yes');
const port = z.coerce.number().int().min(0).max(65535);
const positiveInt = z.coerce.number().int().positive();
const url = z.string().url();

const schedule = z
  .string()
  .regex(/^\s*\d+(\s*,\s*\d+)*\s*$/, 'a comma-separated list of whole seconds')
  .transform((s) => s.split(',').map((n) => Number(n.trim())));

const envSchema = z.object({
  PUBLIC_URL: url.optional(),
  PORT: port.default(8443),
  HTTP_PORT: port.default(8080),
  HOST: z.string().min(1).default('0.0.0.0'),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'a postgres:// connection string')
    .optional(),
  // The role car share work runs as (CONTRACT §24): made and granted at start; NOSUPERUSER NOBYPASSRLS.
  DATABASE_APP_ROLE: z
    .string()
    .regex(/^[A-Za-z_][A-Za-z0-9_]{0,62}$/, 'a role name: letters, digits and _, at most 63')
    .default('carshare_app'),
  REDIS_URL: z
    .string()
    .regex(/^rediss?:\/\//, 'a redis:// connection string')
    .optional(),
  DATA_DIR: z.string().min(1).default('./.data'),
  TLS_CERT: z.string().min(1).optional(),
  TLS_KEY: z.string().min(1).optional(),
  TRUST_PROXY: bool.default(false),
  OPS_EMAIL: z.string().email().optional(),
  OPS_PASSWORD: z.string().min(8).max(160).optional(),
  ACCESS_TOKEN_TTL_SECONDS: positiveInt.default(900),
  REFRESH_TOKEN_TTL_SECONDS: positiveInt.default(1_209_600),
  BOOKING_LEAD_MINUTES: z.coerce.number().int().min(0).default(15),
  WEBHOOK_RETRY_SCHEDULE: schedule.default([5, 300, 1800, 7200, 18000, 36000, 50400, 72000, 86400]),
  WEBHOOK_TIMEOUT_MS: positiveInt.default(15_000),
  WEBHOOK_ALLOW_PRIVATE_TARGETS: bool.default(false),
  RATE_LIMIT_PER_MINUTE: positiveInt.default(600),
  RATE_LIMIT_ANONYMOUS_PER_MINUTE: positiveInt.default(60),
  RATE_LIMIT_AUTH_PER_MINUTE: positiveInt.default(10),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  METRICS_TOKEN: z.string().min(1).optional(),
  CORS_ORIGINS: z
    .string()
    .regex(
      /^\s*(\*|https?:\/\/[^\s,/]+(\s*,\s*https?:\/\/[^\s,/]+)*)\s*$/,
      '`*` or a comma-separated list of origins such as https://app.example.com',
    )
    .optional(),
  GRAPHQL_MAX_DEPTH: positiveInt.default(12),
  GRAPHQL_MAX_COST: positiveInt.default(50_000),
  // Many car shares on one deployment (CONTRACT §19–§26).
  UNKNOWN_HOST: z.enum(['default', 'reject']).default('default'),
  DEFAULT_CAR_SHARE_NAME: z.string().trim().min(3).max(100).default('Carshare'),
  RATE_LIMIT_CAR_SHARE_PER_MINUTE: z.coerce.number().int().min(0).default(0),
  REDIS_KEY_PREFIX: z.string().min(1).max(200).optional(),
  CAR_SHARE_CACHE_SIZE: positiveInt.default(500),
  // How often the event loop is looked at for a quiet spell, in which freed malloc memory goes back to the
  // operating system (src/malloc-trim.ts); 0: never.
  MALLOC_TRIM_MS: z.coerce.number().int().min(0).default(1000),
});

export type Env = z.infer<typeof envSchema>;

export interface Config extends Omit<Env, 'PUBLIC_URL' | 'DATA_DIR' | 'REDIS_KEY_PREFIX'> {
  PUBLIC_URL: string;
  DATA_DIR: string;
  /** The start of every Redis key and channel: `carshare:<database name>:` unless set (CONTRACT §20). */
  REDIS_KEY_PREFIX: string;
}

export class ConfigError extends Error {
  constructor(
    readonly variables: string[],
    message: string,
  ) {
    super(message);
    this.name = 'ConfigError';
  }
}

/** Validates the environment; a bad value throws a ConfigError naming each offending variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  // An empty variable means "unset", as shells and .env files commonly write it.
  const present = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = envSchema.safeParse(present);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    const names = [...new Set(parsed.error.issues.map((i) => String(i.path[0])))];
    throw new ConfigError(names, `Invalid configuration:\n  ${lines.join('\n  ')}`);
  }
  const e = parsed.data;
  if ((e.TLS_CERT === undefined) !== (e.TLS_KEY === undefined)) {
    throw new ConfigError(
      ['TLS_CERT', 'TLS_KEY'],
      'Invalid configuration:\n  TLS_CERT and TLS_KEY go together',
    );
  }
  return {
    ...e,
    PUBLIC_URL: trimEnd(e.PUBLIC_URL ?? `https://localhost:${e.PORT}`, '/'),
    DATA_DIR: resolve(e.DATA_DIR),
    REDIS_KEY_PREFIX: e.REDIS_KEY_PREFIX ?? `carshare:${databaseName(e.DATABASE_URL)}:`,
  };
}

/** The database a connection string names (`carshare` for the embedded one), for the default Redis prefix. */
function databaseName(url: string | undefined): string {
  if (!url) return 'carshare';
  try {
    return decodeURIComponent(new URL(url).pathname.slice(1)) || 'postgres';
  } catch {
    return 'carshare';
  }
}
