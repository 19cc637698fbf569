import type { ReferenceOperation } from "@/components/api-reference/operation-list";

interface OpenApiOperation {
  summary?: string;
  tags?: string[];
  parameters?: { name: string; in: string; required?: boolean }[];
  requestBody?: unknown;
}

const METHODS = ["get", "post", "put", "patch", "delete"] as const;

/** Flattens an OpenAPI document's paths into operations grouped by their first tag, in document order. */
export function operationsByTag(
  paths: Record<string, Record<string, unknown>>,
): Map<string, ReferenceOperation[]> {
  const groups = new Map<string, ReferenceOperation[]>();
  for (const [path, item] of Object.entries(paths)) {
    for (const method of METHODS) {
      const op = item[method] as OpenApiOperation | undefined;
      if (!op) continue;
      const tag = op.tags?.[0] ?? "other";
      const list = groups.get(tag) ?? [];
      list.push({
        method: method.toUpperCase(),
        path,
        tag,
        summary: op.summary ?? "",
        parameters: (op.parameters ?? []).map((p) => ({
          name: p.name,
          in: p.in,
          required: p.required === true,
        })),
        hasBody: op.requestBody !== undefined,
      });
      groups.set(tag, list);
    }
  }
  return groups;
}
