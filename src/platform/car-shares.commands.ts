// What the platform changes (CONTRACT §22): creating a car share with its first operator, its name and limits, an
// operator added to it. Each writes the platform's entry (naming the caller) and the car share's own (naming the
// Platform) in the transaction of the change; this instance's registry is current before the answer.
import { randomBytes } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { commandLine } from '../access/actor.js';
import { createUserAccount } from '../accounts/account.commands.js';
import { namesFromUsername } from '../accounts/user-account.cli.js';
import { createCarShare, enterScope } from '../carshares/car-share.commands.js';
import type { CarShareLimits } from '../carshares/car-share.js';
import { auditInCarShare, leaveCarShareRole, lockCarShare, runIn } from '../carshares/car-share.row.js';
import { carShareChanged, refreshRegistriesOn } from '../carshares/registry.js';
import type { Orm } from '../db/orm.js';
import { CAR_SHARE_FILTER, deploymentEm } from '../db/scope.js';
import type { Context } from '../graphql/context.js';
import { prepareCarShareOAuth } from '../oauth/first-party.js';
import { type FieldErrorCode, isDomainError } from '../shared/errors.js';
import { Check } from '../shared/validation.js';
import { type PlatformAction, recordPlatformAudit } from './platform.audit.js';

type Caller = Pick<Context, 'actor' | 'clock' | 'requestId'>;

/** The car share's own entry for a platform change: it names the Platform, not the caller (CONTRACT §22). */
const recordAsPlatform = (em: EntityManager, caller: Caller, what: PlatformAction, now: Date) =>
  auditInCarShare(em, { ...what, actorType: 'Platform', requestId: caller.requestId, now });

/**
 * The car share's entry, then the platform's (naming the caller), in the transaction of `em`. After work in the car
 * share's scope and role (`inCarShare`), that work is flushed and the role left between the two: the platform's
 * table is the DATABASE_URL user's.
 */
async function recordOnBothTrails(
  em: EntityManager,
  caller: Caller,
  what: PlatformAction,
  now: Date,
  inCarShare = false,
): Promise<void> {
  await recordAsPlatform(em, caller, what, now);
  if (inCarShare) {
    await em.flush();
    await leaveCarShareRole(em);
  }
  await recordPlatformAudit(em, caller, what);
}

/**
 * A conflict about one field (a host or a username taken) names it in `Errors`, as a 400 would (CONTRACT §22: "both
 * name BaseUrl"); the REST facade lists field errors only when they are given.
 */
async function namingConflicts<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (
      isDomainError(err) &&
      err.code === 'AlreadyExists' &&
      err.details.field &&
      !err.details.errors?.length
    )
      err.details.errors = [
        { code: 'AlreadyExists' as FieldErrorCode, field: err.details.field, message: err.message },
      ];
    throw err;
  }
}

export interface LimitsInput {
  callerPerMinute?: number | null;
  anonymousPerMinute?: number | null;
  authPerMinute?: number | null;
  carSharePerMinute?: number | null;
}

const limitNames = {
  callerPerMinute: 'CallerPerMinute',
  anonymousPerMinute: 'AnonymousPerMinute',
  authPerMinute: 'AuthPerMinute',
  carSharePerMinute: 'CarSharePerMinute',
} as const satisfies Record<keyof LimitsInput, keyof CarShareLimits>;

/** Limits after a change: a member given a number takes it, one set to null goes (the deployment's setting). */
function applyLimits(
  check: Check,
  field: string,
  before: CarShareLimits,
  input: LimitsInput | null | undefined,
) {
  const after: CarShareLimits = { ...before };
  for (const [arg, name] of Object.entries(limitNames) as [keyof LimitsInput, keyof CarShareLimits][]) {
    const v = input?.[arg];
    if (v === undefined) continue;
    if (v === null) delete after[name];
    // A car share's ceiling may be 0 (none); a caller's limit lets at least one request through.
    else if (
      !check
        .range(`${field}.${arg}`, v, arg === 'carSharePerMinute' ? 0 : 1, 1_000_000)
        .failed(`${field}.${arg}`)
    )
      after[name] = v;
  }
  return after;
}

export interface OperatorInput {
  username?: string | null;
  password?: string | null;
}

/** Makes an operator (roles user and ops) on `em`, in the car share's scope; a password is generated when absent. */
async function makeOperator(em: EntityManager, caller: Caller, input: OperatorInput, field: string) {
  const username = input.username?.trim() ?? '';
  const password = input.password ?? randomBytes(18).toString('base64url');
  try {
    const account = await createUserAccount(
      { em, actor: commandLine, clock: caller.clock },
      { username, password, ...namesFromUsername(username), roles: ['user', 'ops'] },
    );
    return { account, password: input.password == null ? password : undefined };
  } catch (err) {
    // Its fields are named as the request spells them (`Operator.Username`).
    if (isDomainError(err) && field) {
      const prefix = (f: string) => `${field}.${f.replace(/^input\./, '')}`;
      if (err.details.field) err.details.field = prefix(err.details.field);
      for (const e of err.details.errors ?? []) e.field = prefix(e.field);
    }
    throw err;
  }
}

export interface CreateCarShareArgs {
  baseUrl?: string | null;
  name?: string | null;
  operator?: OperatorInput | null;
  limits?: LimitsInput | null;
}

export async function createCarShareForPlatform(orm: Orm, caller: Caller, input: CreateCarShareArgs) {
  const check = new Check();
  const limits = applyLimits(check, 'limits', {}, input.limits);
  check.required('operator.username', input.operator?.username);
  check.throwIfAny();
  const now = caller.clock.now();
  const { carShare, result } = await namingConflicts(() =>
    createCarShare(
      orm,
      { baseUrl: input.baseUrl, name: input.name },
      async (em, carShare) => {
        const made = await makeOperator(em, caller, input.operator ?? {}, 'operator');
        await prepareCarShareOAuth(em, carShare, caller.clock);
        const about = { carShareId: carShare.id };
        await recordAsPlatform(
          em,
          caller,
          { ...about, action: 'createCarShare', subjectType: 'CarShare', subjectId: carShare.id },
          now,
        );
        await recordAsPlatform(
          em,
          caller,
          { ...about, action: 'createUserAccount', subjectType: 'UserAccount', subjectId: made.account.id },
          now,
        );
        return made;
      },
      async (em, carShare) => {
        await runIn(em, 'update car_share set limits = ?::jsonb where id = ?', [
          JSON.stringify(limits),
          carShare.id,
        ]);
        await recordPlatformAudit(em, caller, {
          action: 'createCarShare',
          subjectType: 'CarShare',
          subjectId: carShare.id,
          carShareId: carShare.id,
        });
      },
    ),
  );
  await refreshRegistriesOn(orm);
  return {
    id: carShare.id,
    initialOperator: {
      id: result.account.id,
      username: result.account.username,
      password: result.password ?? null,
    },
  };
}

export interface UpdateCarShareArgs {
  name?: string | null;
  limits?: LimitsInput | null;
}

export async function updateCarShareForPlatform(
  orm: Orm,
  caller: Caller,
  id: string,
  input: UpdateCarShareArgs,
) {
  await deploymentEm(orm).transactional(async (tem) => {
    const em = tem as EntityManager;
    const row = await lockCarShare(em, id);
    const check = new Check();
    const name = input.name === undefined ? row.name : (input.name?.trim() ?? '');
    if (check.required('input.name', name)) check.length('input.name', name, 3, 100);
    const limits = applyLimits(check, 'input.limits', row.limits ?? {}, input.limits);
    check.throwIfAny();
    const now = caller.clock.now();
    await runIn(
      em,
      'update car_share set name = ?, limits = ?::jsonb, last_modified_date_utc = ? where id = ?',
      [name, JSON.stringify(limits), now, row.id],
    );
    await recordOnBothTrails(
      em,
      caller,
      { action: 'updateCarShare', subjectType: 'CarShare', subjectId: row.id, carShareId: row.id },
      now,
    );
    await carShareChanged(em, row.id);
  });
  await refreshRegistriesOn(orm);
}

/** A new account with roles user and ops in the car share (the recovery path); its password when generated. */
export async function addOperatorForPlatform(orm: Orm, caller: Caller, id: string, input: OperatorInput) {
  return namingConflicts(() =>
    deploymentEm(orm).transactional(async (tem) => {
      const em = tem as EntityManager;
      const row = await lockCarShare(em, id);
      await enterScope(em, row.id, true);
      em.setFilterParams(CAR_SHARE_FILTER, { id: row.id });
      const made = await makeOperator(em, caller, input, 'input');
      const now = caller.clock.now();
      // The account was made in the car share's scope and role; the platform's entry is written after leaving it.
      await recordOnBothTrails(
        em,
        caller,
        {
          action: 'addCarShareOperator',
          subjectType: 'UserAccount',
          subjectId: made.account.id,
          carShareId: row.id,
        },
        now,
        true,
      );
      return {
        id: made.account.id,
        username: made.account.username,
        roles: made.account.roles,
        status: made.account.status,
        createdDateUtc: made.account.createdDateUtc,
        lastModifiedDateUtc: made.account.lastModifiedDateUtc,
        password: made.password ?? null,
      };
    }),
  );
}
