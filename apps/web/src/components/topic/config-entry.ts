/** One row of a topic's configs, as `topics.get` lists them. */
export interface ConfigEntry {
  name: string;
  value: string;
  default: string;
  source: "set" | "default";
  doc: string;
}
