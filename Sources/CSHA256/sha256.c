#include "CSHA256.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

typedef unsigned char *(*bbs_sha256_function)(const unsigned char *data, size_t count, unsigned char *out);

static const char *const names[] = {"libcrypto.so.3", "libcrypto.so.1.1", "libcrypto.3.dylib"};
/* Set once, by whichever of `probe` and `load` finds the function first. */
static _Atomic(bbs_sha256_function) found = NULL;
static pthread_once_t probed = PTHREAD_ONCE_INIT;
static pthread_once_t loaded = PTHREAD_ONCE_INIT;
/* Bytes hashed by the portable code since: past BBS_SHA256_LOAD_FROM, the
   library is loaded after all. */
static _Atomic size_t portableBytes = 0;

static int portable(void) {
    const char *value = getenv("BBSARCHIVE_PORTABLE_SHA256");
    return value != NULL && value[0] != '\0';
}

/* Looks for SHA256 in the first libcrypto `dlopen` gives with `flags`. */
static void find(int flags) {
    if (portable()) return;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        void *library = dlopen(names[i], flags);
        if (library == NULL) continue;
        bbs_sha256_function function = (bbs_sha256_function)dlsym(library, "SHA256");
        if (function != NULL) {
            atomic_store(&found, function);
            return;
        }
        dlclose(library);
    }
}

/* A libcrypto already in the process (a fetch's libcurl loaded it for TLS). */
static void probe(void) { find(RTLD_LAZY | RTLD_LOCAL | RTLD_NOLOAD); }

/* Loads libcrypto: about 12 M instructions of relocation, which pays for
   itself from about 300 kB hashed (the portable code reads about 40
   instructions a byte). */
static void load(void) { find(RTLD_LAZY | RTLD_LOCAL); }

int bbs_sha256(const void *data, size_t count, unsigned char *out) {
    bbs_sha256_function function = atomic_load(&found);
    if (function == NULL) {
        /* The library is loaded only once BBS_SHA256_LOAD_FROM bytes are to
           be hashed: a build hashes about 150 kB (its templates, its pages'
           keys), for which loading it cost 15.6 M instructions of a 230 M
           build after one reply. */
        pthread_once(&probed, probe);
        if (atomic_load(&found) == NULL && atomic_fetch_add(&portableBytes, count) + count >= BBS_SHA256_LOAD_FROM) {
            pthread_once(&loaded, load);
        }
        function = atomic_load(&found);
        if (function == NULL) return -1;
    }
    static const unsigned char empty = 0;
    return function(data != NULL ? data : &empty, count, out) != NULL ? 0 : -1;
}
