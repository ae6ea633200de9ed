/** An operation of the OpenAPI document as the fuzz tests drive it: its path and parameter names. */
export interface Operation {
  method: 'get' | 'post';
  template: string;
  pathNames: string[];
  /** Query parameters and form fields, each once. */
  names: string[];
}

interface OpenApiOperation {
  parameters?: { name: string; in: string }[];
  requestBody?: {
    content: Record<string, { schema: { $ref?: string; properties?: Record<string, unknown> } }>;
  };
}

export interface OpenApiPaths {
  paths: Record<string, Record<string, OpenApiOperation>>;
  components: { schemas: Record<string, { properties?: Record<string, unknown> }> };
}

/**
 * The GET and POST operations of the document whose path matches `paths`, with their parameter
 * names; never destroy, which would take a test's fixtures away.
 */
export function fuzzableOperations(document: OpenApiPaths, paths: RegExp): Operation[] {
  const operations: Operation[] = [];
  for (const [template, byMethod] of Object.entries(document.paths)) {
    if (!paths.test(template) || template.endsWith('/destroy')) continue;
    for (const [method, operation] of Object.entries(byMethod)) {
      if (method !== 'get' && method !== 'post') continue;
      const parameters = operation.parameters ?? [];
      const schema = operation.requestBody?.content['application/x-www-form-urlencoded']?.schema;
      const fields = Object.keys(
        (schema?.$ref ? document.components.schemas[schema.$ref.split('/').pop()!] : schema)
          ?.properties ?? {},
      );
      const names = [...parameters.filter((p) => p.in === 'query').map((p) => p.name), ...fields];
      operations.push({
        method,
        template,
        pathNames: parameters.filter((p) => p.in === 'path').map((p) => p.name),
        names: [...new Set(names)],
      });
    }
  }
  return operations;
}
