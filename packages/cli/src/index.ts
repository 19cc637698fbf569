export { type CliEnv, readEnv } from "./env";
export { type CliIo, main } from "./main";
