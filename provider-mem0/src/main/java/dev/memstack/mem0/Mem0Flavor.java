package dev.memstack.mem0;

/**
 * Which kind of Mem0 server is on the other end. The two speak different dialects: the self-hosted
 * OSS server (FastAPI, no {@code /v1} prefix, no trailing slashes, {@code X-API-Key}) and the
 * hosted Platform ({@code /v1}-{@code /v3} paths that all end with a slash, {@code Authorization:
 * Token}).
 */
enum Mem0Flavor {
  /** The self-hosted server from the mem0 repository ({@code server/main.py}). */
  OSS,
  /** The hosted Platform API ({@code https://api.mem0.ai}). */
  PLATFORM;

  String wireName() {
    return this == OSS ? "oss" : "platform";
  }
}
