// What a redirect after a console action may announce (`?notice=`): a closed list, so nothing is echoed from the URL.
const notices = {
  updated: 'The car share’s name and limits were saved.',
  suspended:
    'The car share is suspended: every request to its host is refused until it is reactivated. Nothing was deleted.',
  reactivated: 'The car share is active again: its tokens, sessions and webhooks work as before.',
  deleted: 'The car share was deleted; its data is removed within a minute and its host is free again.',
} as const;

export type Notice = keyof typeof notices;

export const noticeOf = (v: unknown): string | undefined =>
  typeof v === 'string' && Object.hasOwn(notices, v) ? notices[v as Notice] : undefined;
