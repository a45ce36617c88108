#include "CBuildInfo.h"

// commit.h is written by scripts/build-commit.sh (every make target that
// builds runs it); a plain `swift build` without it says "unknown".
#if __has_include("commit.h")
#include "commit.h"
#endif
#ifndef BBSARCHIVE_COMMIT
#define BBSARCHIVE_COMMIT "unknown"
#endif

const char *bbsarchive_build_commit(void) { return BBSARCHIVE_COMMIT; }
