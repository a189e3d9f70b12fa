// The BSI CSAF validator ships JavaScript with JSDoc types that tsc does not follow through its
// export paths; the few entry points the tests use, as its README documents them.
declare module "@secvisogram/csaf-validator-lib/*.js" {
  type Problem = { message: string; instancePath: string };
  type DocumentTest = (doc: unknown) => unknown;
  const tests: Record<string, DocumentTest>;
  export = tests;
}
declare module "@secvisogram/csaf-validator-lib/validateStrict.js" {
  type Problem = { message: string; instancePath: string };
  export default function validateStrict(
    tests: ((doc: unknown) => unknown)[],
    doc: unknown,
  ): Promise<{ isValid: boolean; tests: { name: string; isValid: boolean; errors: Problem[]; warnings: Problem[]; infos: Problem[] }[] }>;
}
declare module "@secvisogram/csaf-validator-lib/lib/schemaTests/csaf_2_0/schema.js" {
  const schema: { properties: { document: { properties: { publisher: Record<string, unknown> } } } };
  export default schema;
}
