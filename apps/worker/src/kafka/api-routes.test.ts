import { ApiKey } from "@lastword/kafka-protocol";
import { describe, expect, it } from "vitest";
import { ADVERTISED_APIS } from "./advertised-apis";
import { API_ROUTES } from "./api-routes";

// ApiVersions and the SASL APIs change the connection's own state, so the connection serves them.
const CONNECTION_APIS: readonly number[] = [
  ApiKey.ApiVersions,
  ApiKey.SaslHandshake,
  ApiKey.SaslAuthenticate,
];

describe("the Kafka API route table", () => {
  it("routes every advertised API the connection does not serve itself, and nothing unadvertised", () => {
    const advertised = ADVERTISED_APIS.map((api) => api.apiKey).filter(
      (key) => !CONNECTION_APIS.includes(key),
    );
    const routed = Object.keys(API_ROUTES).map(Number);
    expect(routed.sort((a, b) => a - b)).toEqual([...advertised].sort((a, b) => a - b));
  });

  it("marks producers by Produce and consumers by Fetch, naming the topics of the request", () => {
    const produce = API_ROUTES[ApiKey.Produce]!.sighting!;
    const fetch = API_ROUTES[ApiKey.Fetch]!.sighting!;
    expect(produce.role).toBe("producer");
    expect(fetch.role).toBe("consumer");
    const routed = Object.entries(API_ROUTES)
      .filter(([, route]) => route?.sighting)
      .map(([key]) => Number(key));
    expect(routed.sort()).toEqual([ApiKey.Produce, ApiKey.Fetch].sort());
  });
});
