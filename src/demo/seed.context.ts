// How `seed-demo` acts: every step through the domain's commands, in one transaction, on a clock it moves through
// the weeks the sample covers; people act as themselves, decisions are the console's and audited as `Cli`.
import { randomBytes } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { type Actor, commandLine, userActor } from '../access/actor.js';
import { auditCommandLine, type CommandLineChange } from '../audit/command-line.js';
import type { BookingPolicy } from '../bookings/booking.policy.js';
import type { BookingContext } from '../bookings/booking-request.commands.js';
import { type Clock, ManualClock, systemClock } from '../shared/clock.js';

export class Seeder {
  readonly em: EntityManager;
  readonly policy: BookingPolicy;
  /** When the seed runs: the sample's past ends here and its future starts. */
  readonly now: Date;
  readonly #clock: ManualClock;

  constructor(em: EntityManager, policy: BookingPolicy, now: Date) {
    this.em = em;
    this.policy = policy;
    this.now = now;
    this.#clock = new ManualClock(now);
  }

  /** Moves the clock the commands read to `t` (never past `now`: nothing is written from the future). */
  at(t: Date): this {
    this.#clock.set(t.getTime() > this.now.getTime() ? this.now : t);
    return this;
  }

  /** `userId` acting for themselves, with fresh loaders (each step reads what the last one wrote). */
  as(userId: string): BookingContext {
    return this.#context(userActor(userId));
  }

  /** A change an operator would make, made by the console: audited as `Cli`, at the time it really happens. */
  async byConsole<T>(change: CommandLineChange, work: (ctx: BookingContext) => Promise<T>): Promise<T> {
    const result = await work(this.#context(commandLine));
    auditCommandLine({ em: this.em, clock: systemClock }, change, result);
    await this.em.flush();
    return result;
  }

  /** Runs one step as a person and writes it, so the next step's statements see it. */
  async step<T>(userId: string, work: (ctx: BookingContext) => Promise<T>): Promise<T> {
    const result = await work(this.as(userId));
    await this.em.flush();
    return result;
  }

  #context(actor: Actor): BookingContext {
    const clock: Clock = this.#clock;
    return { em: this.em, actor, clock, loaders: new Map() };
  }
}

/** A password shown once: random, so no two seeded databases share one. */
export const newPassword = (): string => randomBytes(15).toString('base64url');

const HOUR = 3_600_000;
export const hours = (n: number): number => n * HOUR;
/** Midnight UTC of `t`'s day, shifted by `days`, plus `hour` hours. */
export const dayAt = (t: Date, days: number, hour = 0): Date =>
  new Date(Date.UTC(t.getUTCFullYear(), t.getUTCMonth(), t.getUTCDate() + days) + hours(hour));
/** The start of `t`'s hour, shifted by `h` hours. */
export const hourAt = (t: Date, h: number): Date =>
  new Date(Math.floor(t.getTime() / HOUR) * HOUR + hours(h));
