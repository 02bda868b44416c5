// Command-line administration against the configured database (CONTRACT §12, §22, §27); prints JSON. Each command
// but those about car shares themselves works inside one car share (`--car-share ID|URL`, the default one without).
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { commandLine } from './access/actor.js';
import {
  createFirstOperator,
  createUserArgs,
  createUserFromCli,
  createUserOptions,
  createUserUsage,
} from './accounts/user-account.cli.js';
import {
  carShareFromCli,
  carShareOption,
  createCarShareArgs,
  createCarShareFromCli,
  createCarShareOptions,
  createCarShareUsage,
  lifecycleOptions,
  listCarSharesArgs,
  listCarSharesFromCli,
  listCarSharesUsage,
  reactivateCarShareArgs,
  reactivateCarShareFromCli,
  reactivateCarShareUsage,
  suspendCarShareArgs,
  suspendCarShareFromCli,
  suspendCarShareUsage,
} from './carshares/car-share.cli.js';
import {
  deleteCarShareArgs,
  deleteCarShareFromCli,
  deleteCarShareOptions,
  deleteCarShareUsage,
} from './carshares/car-share-deletion.cli.js';
import {
  clientNextStep,
  createClientArgs,
  createClientFromCli,
  createClientOptions,
  createClientUsage,
} from './clientapps/client-application.cli.js';
import { type Config, ConfigError, loadConfig } from './config.js';
import { type Database, openDatabase } from './db/database.js';
import { seedDemoArgs, seedDemoFromCli, seedDemoUsage } from './demo/seed-demo.cli.js';
import { entities } from './modules.js';
import { prepareCarShareOAuth } from './oauth/first-party.js';
import { recordPlatformAudit } from './platform/platform.audit.js';
import { systemClock } from './shared/clock.js';
import { commandLineError, type OptionNames, UsageError } from './shared/command-line.js';
import { isDomainError } from './shared/errors.js';
import { selfSignedCertPath } from './tls.js';

const usage = `Usage:
  ${createUserUsage}
  ${createClientUsage}
  ${seedDemoUsage}
  ${createCarShareUsage}
  ${listCarSharesUsage}
  ${suspendCarShareUsage}
  ${reactivateCarShareUsage}
  ${deleteCarShareUsage}
  npm run admin -- --help

--car-share takes a car share's Id or its BaseUrl; without it, the default car share (the one at PUBLIC_URL).`;

/** The car share a command works in. */
interface Site {
  id: string;
  baseUrl: string;
  isDefault: boolean;
}

type Ran = Promise<{ out: unknown; next?: string }>;

type AdminCommand = {
  /** The option that feeds each field, so a refusal names what the operator typed. */
  options: OptionNames;
  /** Reads the arguments alone, refusing a wrong call (UsageError) before the database opens. */
  check(args: string[]): void;
} & (
  | {
      /** Works inside the car share `--car-share` names. Prints the JSON for stdout, then `next` on stderr. */
      scoped: true;
      run(db: Database, args: string[], config: Config, site: Site): Ran;
    }
  | { scoped: false; run(db: Database, args: string[], config: Config): Ran }
);

/**
 * The certificate file a curl printed for the car share trusts: the self-signed one at the default car share's
 * `localhost`, the local CA's for any other host (CONTRACT §19); none with TLS_CERT.
 */
const caFileOf = (config: Config, site: Site) =>
  config.TLS_CERT
    ? undefined
    : site.isDefault
      ? selfSignedCertPath(config.DATA_DIR)
      : join(config.DATA_DIR, 'tls', 'ca.crt');

const scopedOptions = (options: OptionNames): OptionNames => ({ ...options, carShare: '--car-share' });

const commands: Record<string, AdminCommand> = {
  'create-user': {
    options: scopedOptions(createUserOptions),
    check: createUserArgs,
    scoped: true,
    run: async (db, args, _config, site) => ({ out: await createUserFromCli(db, args, site) }),
  },
  'create-client': {
    options: scopedOptions(createClientOptions),
    check: createClientArgs,
    scoped: true,
    run: async (db, args, config, site) => {
      const out = await createClientFromCli(db, args, site.id);
      return {
        out,
        next: clientNextStep(out, args, { publicUrl: site.baseUrl, caFile: caFileOf(config, site) }),
      };
    },
  },
  'seed-demo': {
    options: scopedOptions({}),
    check: seedDemoArgs,
    scoped: true,
    run: (db, args, config, site) =>
      seedDemoFromCli(
        db,
        args,
        {
          publicUrl: site.baseUrl,
          caFile: caFileOf(config, site),
          carShareId: site.isDefault ? undefined : site.id,
          bookingLeadMinutes: config.BOOKING_LEAD_MINUTES,
        },
        site.id,
      ),
  },
  'create-car-share': {
    options: createCarShareOptions,
    check: createCarShareArgs,
    scoped: false,
    // Its first operator, and its authorization server's keys and dashboard client (§21: made when it is created),
    // in the transaction that creates it.
    run: async (db, args) => ({
      out: await createCarShareFromCli(db, args, async (em, operator, carShare) => {
        const made = await createFirstOperator(em, operator);
        await prepareCarShareOAuth(em, carShare, systemClock);
        return made;
      }),
    }),
  },
  'delete-car-share': {
    options: deleteCarShareOptions,
    check: deleteCarShareArgs,
    scoped: false,
    // The platform's trail records it, naming the console, in the deletion's transaction.
    run: async (db, args, config) => ({
      out: await deleteCarShareFromCli(db, args, config.PUBLIC_URL, systemClock.now(), (em, id) =>
        recordPlatformAudit(
          em,
          { actor: commandLine, clock: systemClock, requestId: '' },
          { action: 'deleteCarShare', subjectType: 'CarShare', subjectId: id, carShareId: id },
        ),
      ),
    }),
  },
  'list-car-shares': {
    options: {},
    check: listCarSharesArgs,
    scoped: false,
    run: async (db, _args, config) => ({ out: await listCarSharesFromCli(db, config.PUBLIC_URL) }),
  },
  // §22, §23: effective on every instance at once (the NOTIFY that goes with the commit).
  'suspend-car-share': {
    options: lifecycleOptions,
    check: suspendCarShareArgs,
    scoped: false,
    run: async (db, args, config) => ({ out: await suspendCarShareFromCli(db, args, config.PUBLIC_URL) }),
  },
  'reactivate-car-share': {
    options: lifecycleOptions,
    check: reactivateCarShareArgs,
    scoped: false,
    run: async (db, args, config) => ({ out: await reactivateCarShareFromCli(db, args, config.PUBLIC_URL) }),
  },
};

/** parseArgs refuses an unknown or malformed option: a usage error like an unknown command. */
const isUsageError = (err: unknown): boolean =>
  err instanceof UsageError || String((err as { code?: unknown }).code ?? '').startsWith('ERR_PARSE_ARGS');

/** The car share `--car-share` names (the default one without it), for the commands that work in one. */
async function siteOf(db: Database, args: string[], config: Config): Promise<Site> {
  const ref = parseArgs({ args, options: carShareOption, strict: false }).values['car-share'];
  return carShareFromCli(db.orm, typeof ref === 'string' ? ref : undefined, config.PUBLIC_URL);
}

async function run(command: AdminCommand, args: string[]): Promise<number> {
  command.check(args);
  const config = loadConfig();
  const db = await openDatabase({
    databaseUrl: config.DATABASE_URL,
    dataDir: config.DATA_DIR,
    entities,
    appRole: config.DATABASE_APP_ROLE,
  });
  try {
    const { out, next } = command.scoped
      ? await command.run(db, args, config, await siteOf(db, args, config))
      : await command.run(db, args, config);
    process.stdout.write(`${JSON.stringify(out)}\n`);
    if (next) process.stderr.write(next);
    return 0;
  } finally {
    await db.close();
  }
}

async function main(): Promise<number> {
  const [name = '', ...args] = process.argv.slice(2);
  if (name === '--help' || name === 'help' || args.includes('--help')) {
    process.stdout.write(`${usage}\n`);
    return 0;
  }
  const command = commands[name];
  try {
    if (!command) throw new UsageError(name ? `unknown command ${name}` : 'no command given');
    return await run(command, args);
  } catch (err) {
    if (isUsageError(err)) {
      process.stderr.write(`${(err as Error).message}\n${usage}\n`);
      return 2;
    }
    if (err instanceof ConfigError) process.stderr.write(`${err.message}\n`);
    else if (isDomainError(err))
      process.stderr.write(`${JSON.stringify(commandLineError(err, command?.options ?? {}))}\n`);
    else process.stderr.write(`${(err as Error).message ?? err}\n`);
    return 1;
  }
}

main().then(
  (code) => process.exit(code),
  (err) => {
    process.stderr.write(`${(err as Error).message ?? err}\n`);
    process.exit(1);
  },
);
