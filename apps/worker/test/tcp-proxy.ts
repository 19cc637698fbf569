// Moved to @lastword/db/testing (the api's Postgres-outage test cuts its database the same way).
export { TcpProxy } from "@lastword/db/testing";
