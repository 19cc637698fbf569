// The commands that run Lastword's processes. `npm start` and the container images
// (docker-compose.yml) start exactly these, so a test can hold them to it.
export const MIGRATE_COMMAND = "npm run db:migrate";
export const WEB_COMMAND = "npm run start:web";
export const WORKER_COMMAND = "npm run start:worker";
export const BUILD_COMMAND = "npm run build";
