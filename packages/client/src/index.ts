export { envelope, envelopeBytes } from "./envelopes";
export { LastwordClient, type LastwordClientOptions } from "./lastword-client";
export { LastwordApiError } from "./problem-error";
