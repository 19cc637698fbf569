// Test data for schema references, shared by the registry's unit tests and the api's Confluent
// contract test (`@lastword/schema-registry/testing`): an Avro record registered as version 1 of
// subject "address", and records that use its type by name through a reference to it.

export const ADDRESS_SCHEMA = JSON.stringify({
  type: "record",
  name: "Address",
  namespace: "acme",
  fields: [{ name: "city", type: "string" }],
});

/** The reference to ADDRESS_SCHEMA as version 1 of subject "address", under the name its users spell. */
export const ADDRESS_REFERENCES = [{ name: "acme.Address", subject: "address", version: 1 }];

/** A record named `name` whose one field holds an acme.Address: it parses only with the reference. */
export function recordUsingAddress(name: string): string {
  return JSON.stringify({
    type: "record",
    name,
    namespace: "acme",
    fields: [{ name: "home", type: "acme.Address" }],
  });
}
