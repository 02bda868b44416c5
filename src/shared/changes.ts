// What the service changes by itself, outside any request (CONTRACT §28 "Your own writes"): the background work that
// made a change names it once committed, and the composition root makes the cached answers showing it stale at
// once, as a mutation's would be (src/app.ts). Background modules get the callback; none knows the REST cache.
export const backgroundChanges = ['bookings', 'verifications', 'webhooks'] as const;
export type BackgroundChange = (typeof backgroundChanges)[number];

/**
 * Told once a background change has committed, with the car share it was made in; resolves once what showed it is
 * stale there (in Redis too). Nothing goes stale in another car share (CONTRACT §20). Without a car share (a caller
 * not yet told which), every car share's answers showing it go stale.
 */
export type Changed = (what: BackgroundChange, carShareId?: string) => Promise<void>;
