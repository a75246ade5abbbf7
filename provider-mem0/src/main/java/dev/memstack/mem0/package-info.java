/**
 * A memstack provider that stacks an external Mem0 server (self-hosted OSS server or the hosted
 * Platform) beside the local memory: recall through Mem0's search, turns pushed to Mem0's add.
 */
package dev.memstack.mem0;
