// Mozilla's list of breached passwords (Firefox Accounts) ships no types.
declare module 'fxa-common-password-list' {
  const list: { test(password: string): boolean };
  export default list;
}
