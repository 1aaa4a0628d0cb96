/**
 * A reply already serialised as JSON: the lean path (lean.ts) and Koa's router (route.ts `mount`)
 * send its text as it is, with the same headers as for an object, rather than stringify it again.
 */
export class JsonText {
  constructor(readonly text: string) {}
}
