import {
  type CompatibilityLevel,
  encodePayload,
  RegistryError,
  type SchemaType,
  type SchemaValue,
  writeConfluentFrame,
} from "@lastword/schema-registry";
import type { Identity } from "../auth/request-identity";
import { AppError, type AppErrorCode } from "../errors/app-error";
import { ensureRegistryTopic } from "./registry-topic";
import type { RegistryLogDeps } from "./registry-topic-log";
import { tenantRegistry } from "./tenant-registries";

// The console's view of the registry, over tRPC: the same SchemaRegistry the HTTP API serves, its
// refusals as AppErrors (the console shows their sentences).
const CODE_BY_STATUS: Record<number, AppErrorCode> = {
  404: "NOT_FOUND",
  409: "SCHEMA_INCOMPATIBLE",
  422: "SCHEMA_INVALID",
  403: "FORBIDDEN",
};

async function registryCall<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof RegistryError) {
      throw new AppError(CODE_BY_STATUS[error.status] ?? "INTERNAL", error.message, {
        details: { errorCode: error.errorCode },
      });
    }
    throw error;
  }
}

export interface SchemaVersionView {
  subject: string;
  version: number;
  id: number;
  schemaType: SchemaType;
  schema: string;
  references: { name: string; subject: string; version: number }[];
  deleted: boolean;
}

const view = (v: SchemaValue): SchemaVersionView => ({ ...v, references: [...v.references] });

/** Every subject with its latest live version, and the compatibility levels in force. */
export function listSubjects(deps: RegistryLogDeps, identity: Identity) {
  return registryCall(async () => {
    const registry = tenantRegistry(deps, identity.tenantId);
    const state = await registry.current();
    const subjects = [...state.subjects.keys()].sort().flatMap((subject) => {
      const live = state.versionsOf(subject);
      const latest = live.at(-1);
      if (!latest) return [];
      return [
        {
          subject,
          latest: view(latest),
          versions: live.length,
          compatibility: registry.effectiveCompatibility(state, subject),
          subjectCompatibility: state.configs.get(subject) ?? null,
        },
      ];
    });
    return { subjects, globalCompatibility: registry.effectiveCompatibility(state, null) };
  });
}

/** A subject's live versions, oldest first, and its level. */
export function getSubject(deps: RegistryLogDeps, identity: Identity, subject: string) {
  return registryCall(async () => {
    const registry = tenantRegistry(deps, identity.tenantId);
    const state = await registry.current();
    const versions = state.versionsOf(subject);
    if (versions.length === 0) throw new AppError("NOT_FOUND", `Subject "${subject}" has no versions.`);
    return {
      subject,
      versions: versions.map(view),
      compatibility: registry.effectiveCompatibility(state, subject),
      subjectCompatibility: state.configs.get(subject) ?? null,
    };
  });
}

/** Whether a schema may be registered under a subject now (a new subject takes anything that parses). */
export function checkSchema(
  deps: RegistryLogDeps,
  identity: Identity,
  input: { subject: string; schema: string; schemaType: SchemaType },
) {
  return registryCall(async () => {
    const registry = tenantRegistry(deps, identity.tenantId);
    const state = await registry.current();
    const level = registry.effectiveCompatibility(state, input.subject);
    if (state.versionsOf(input.subject).length === 0) {
      registry.parse(state, { ...input, references: [] });
      return { compatible: true, level, issues: [] };
    }
    const result = await registry.checkCompatibility(input.subject, null, { ...input, references: [] });
    return { compatible: result.compatible, level, issues: result.issues };
  });
}

export function registerSchema(
  deps: RegistryLogDeps,
  identity: Identity,
  input: { subject: string; schema: string; schemaType: SchemaType },
) {
  return registryCall(async () => {
    await ensureRegistryTopic(deps, identity);
    return tenantRegistry(deps, identity.tenantId).register(input.subject, { ...input, references: [] });
  });
}

export function setCompatibility(
  deps: RegistryLogDeps,
  identity: Identity,
  input: { subject: string | null; level: CompatibilityLevel | null },
) {
  return registryCall(async () => {
    await ensureRegistryTopic(deps, identity);
    await tenantRegistry(deps, identity.tenantId).setCompatibility(input.subject, input.level);
    return { subject: input.subject, level: input.level };
  });
}

/** Deletes one version (or, without one, the whole subject): soft first, then permanently. */
export function deleteSchema(
  deps: RegistryLogDeps,
  identity: Identity,
  input: { subject: string; version?: number | undefined; permanent: boolean },
) {
  return registryCall(async () => {
    const registry = tenantRegistry(deps, identity.tenantId);
    if (input.version === undefined)
      return { versions: await registry.deleteSubject(input.subject, input.permanent) };
    return { versions: [await registry.deleteVersion(input.subject, input.version, input.permanent)] };
  });
}

/** A topic's subjects by Confluent's default TopicNameStrategy: `<topic>-key` and `<topic>-value`. */
export function topicSubjects(deps: RegistryLogDeps, identity: Identity, topic: string) {
  return registryCall(async () => {
    const state = await tenantRegistry(deps, identity.tenantId).current();
    return (["key", "value"] as const).flatMap((role) => {
      const subject = `${topic}-${role}`;
      const latest = state.versionsOf(subject).at(-1);
      return latest
        ? [{ role, subject, latest: view(latest), versions: state.versionsOf(subject).length }]
        : [];
    });
  });
}

/**
 * A JSON value encoded with a subject's version in Confluent's wire format (the produce form's
 * "produce with a schema"), as base64: validated by the schema's library first, with its reason.
 */
export function encodeWithSchema(
  deps: RegistryLogDeps,
  identity: Identity,
  input: { subject: string; version: number | "latest"; value: unknown },
) {
  return registryCall(async () => {
    const registry = tenantRegistry(deps, identity.tenantId);
    const state = await registry.current();
    const version = registry.version(state, input.subject, input.version);
    const parsed = registry.parseStored(state, version);
    let payload: Uint8Array;
    try {
      payload = encodePayload(parsed, input.value);
    } catch (error) {
      throw new AppError("SCHEMA_INVALID", (error as Error).message);
    }
    return {
      id: version.id,
      version: version.version,
      base64: Buffer.from(writeConfluentFrame(version.id, payload)).toString("base64"),
    };
  });
}
