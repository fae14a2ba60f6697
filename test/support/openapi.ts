// Reading /openapi.json in tests: an operation's answer for a status, followed through the `$ref` into
// `components.responses` that the document uses for the error answers many operations share.
export function answerOf(doc: any, op: any, status: number | string): any {
  const answer = op?.responses?.[String(status)];
  const ref = answer?.$ref as string | undefined;
  return ref ? doc.components.responses[ref.slice("#/components/responses/".length)] : answer;
}
