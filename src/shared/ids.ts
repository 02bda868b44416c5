// Resource ids: lowercase v4 UUIDs (CONTRACT §2).
import { randomUUID } from 'node:crypto';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const newId = (): string => randomUUID();
export const isUuid = (s: unknown): s is string => typeof s === 'string' && UUID.test(s);
