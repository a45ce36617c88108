#ifndef BBSARCHIVE_CSHA256_H
#define BBSARCHIVE_CSHA256_H

#include <stddef.h>

/* SHA-256 from the system's libcrypto (OpenSSL), found at run time, so
   that nothing links against it. It uses the CPU's SHA instructions where
   there are: 1.3 GB/s on the project's machine, where the portable Swift
   code (Store/SHA256.swift) reads about 40 instructions a byte. A libcrypto
   already in the process (a fetch's libcurl) serves every input; otherwise
   it is loaded once the inputs add up to BBS_SHA256_LOAD_FROM bytes, and
   smaller amounts are left to the portable code. Writes the
   32 bytes of the digest to `out` and returns 0; returns -1, writing
   nothing, when there is no libcrypto to use for this input or when
   BBSARCHIVE_PORTABLE_SHA256 is set (the caller then hashes in Swift).
   Thread-safe. */
#define BBS_SHA256_LOAD_FROM ((size_t)256 * 1024)

int bbs_sha256(const void *data, size_t count, unsigned char *out);

#endif
