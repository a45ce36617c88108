#ifndef BBSARCHIVE_CSHA256_H
#define BBSARCHIVE_CSHA256_H

#include <stddef.h>

/* SHA-256 from the system's libcrypto (OpenSSL), loaded at run time by the
   first hash, so that nothing links against it. It uses the CPU's SHA
   instructions where there are: 1.3 GB/s on the project's machine, where
   the portable Swift code (Store/SHA256.swift) reads about 40 instructions
   a byte. Writes the 32 bytes of the digest to `out` and returns 0; returns
   -1, writing nothing, when no libcrypto could be loaded or when
   BBSARCHIVE_PORTABLE_SHA256 is set (the caller then hashes in Swift).
   Thread-safe. */
int bbs_sha256(const void *data, size_t count, unsigned char *out);

#endif
