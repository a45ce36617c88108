#include "CBuildInfo.h"

// Package.swift defines BBSARCHIVE_COMMIT from the checkout's git state.
#ifndef BBSARCHIVE_COMMIT
#define BBSARCHIVE_COMMIT "unknown"
#endif

const char *bbsarchive_build_commit(void) { return BBSARCHIVE_COMMIT; }
