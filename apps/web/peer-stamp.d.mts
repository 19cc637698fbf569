import type { IncomingMessage } from "node:http";

export declare const PEER_ADDRESS_HEADER: "x-lastword-peer";
export declare function stampPeerAddress(request: IncomingMessage): void;
