// What the service changes by itself, outside any request (CONTRACT §28 "Your own writes"): the background work that
// made a change names it once committed, and the composition root makes the cached answers showing it stale at
// once, as a mutation's would be (src/app.ts). Background modules get the callback; none knows the REST cache.
export const backgroundChanges = ['bookings', 'verifications', 'webhooks'] as const;
export type BackgroundChange = (typeof backgroundChanges)[number];

/**
 * Told once a background change in one car share has committed; resolves once what showed it is stale in that car
 * share's cached answers (in Redis too). The REST cache is per car share (CONTRACT §20).
 */
export type Changed = (what: BackgroundChange, carShareId: string) => Promise<void>;
