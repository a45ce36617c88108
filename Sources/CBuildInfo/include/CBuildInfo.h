#ifndef BBSARCHIVE_CBUILDINFO_H
#define BBSARCHIVE_CBUILDINFO_H

/// The git commit the program was built from ("unknown" outside a checkout),
/// with "-dirty" when the checkout had uncommitted changes.
const char *bbsarchive_build_commit(void);

#endif
