#include "CCurl.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>

static struct {
    CURLcode (*global_init)(long flags);
    CURL *(*easy_init)(void);
    void (*easy_cleanup)(CURL *handle);
    const char *(*easy_strerror)(CURLcode code);
    CURLcode (*easy_setopt)(CURL *handle, CURLoption option, ...);
    CURLcode (*easy_getinfo)(CURL *handle, CURLINFO info, ...);
    struct curl_slist *(*slist_append)(struct curl_slist *list, const char *string);
    void (*slist_free_all)(struct curl_slist *list);
    CURLM *(*multi_init)(void);
    CURLMcode (*multi_cleanup)(CURLM *multi);
    CURLMcode (*multi_setopt)(CURLM *multi, CURLMoption option, ...);
    CURLMcode (*multi_add_handle)(CURLM *multi, CURL *handle);
    CURLMcode (*multi_remove_handle)(CURLM *multi, CURL *handle);
    CURLMcode (*multi_perform)(CURLM *multi, int *running);
    CURLMsg *(*multi_info_read)(CURLM *multi, int *left);
    CURLMcode (*multi_poll)(CURLM *multi, struct curl_waitfd *extra, unsigned int count, int timeout_ms, int *ready);
    CURLMcode (*multi_wakeup)(CURLM *multi);
} curl;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int loaded = -1;
static const char *failure = "libcurl was not loaded";

static void load(void) {
    static const char *const names[] = {"libcurl.so.4", "libcurl-gnutls.so.4", "libcurl.4.dylib"};
    void *library = NULL;
    /* BBSARCHIVE_LIBCURL names the library instead (a path, or another name).
       Lazily bound: only the functions a run calls are looked up (relocating
       libcurl and its libraries was 22.7 M instructions of a fetch, 19.3 M
       lazily); the ones named below are found here, or the load fails. */
    const char *chosen = getenv("BBSARCHIVE_LIBCURL");
    if (chosen != NULL && chosen[0] != '\0') {
        library = dlopen(chosen, RTLD_LAZY | RTLD_LOCAL);
    } else {
        for (size_t i = 0; i < sizeof names / sizeof names[0] && library == NULL; i++) {
            library = dlopen(names[i], RTLD_LAZY | RTLD_LOCAL);
        }
    }
    if (library == NULL) {
        failure = chosen != NULL && chosen[0] != '\0'
                      ? "the library BBSARCHIVE_LIBCURL names could not be loaded: correct or unset it"
                      : "libcurl.so.4 could not be loaded: install libcurl4 (apt-get install libcurl4)";
        return;
    }
#define BBS_FIND(field, symbol)                                                                                \
    if ((*(void **)&curl.field = dlsym(library, symbol)) == NULL) {                                            \
        failure = "the libcurl found lacks " symbol " (libcurl 7.68 or later is needed)";                      \
        return;                                                                                                \
    }
    BBS_FIND(global_init, "curl_global_init")
    BBS_FIND(easy_init, "curl_easy_init")
    BBS_FIND(easy_cleanup, "curl_easy_cleanup")
    BBS_FIND(easy_strerror, "curl_easy_strerror")
    BBS_FIND(easy_setopt, "curl_easy_setopt")
    BBS_FIND(easy_getinfo, "curl_easy_getinfo")
    BBS_FIND(slist_append, "curl_slist_append")
    BBS_FIND(slist_free_all, "curl_slist_free_all")
    BBS_FIND(multi_init, "curl_multi_init")
    BBS_FIND(multi_cleanup, "curl_multi_cleanup")
    BBS_FIND(multi_setopt, "curl_multi_setopt")
    BBS_FIND(multi_add_handle, "curl_multi_add_handle")
    BBS_FIND(multi_remove_handle, "curl_multi_remove_handle")
    BBS_FIND(multi_perform, "curl_multi_perform")
    BBS_FIND(multi_info_read, "curl_multi_info_read")
    BBS_FIND(multi_poll, "curl_multi_poll")
    BBS_FIND(multi_wakeup, "curl_multi_wakeup")
#undef BBS_FIND
    if (curl.global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
        failure = "libcurl could not start (curl_global_init failed)";
        return;
    }
    loaded = 0;
}

int bbs_curl_load(void) {
    pthread_once(&once, load);
    return loaded;
}

const char *bbs_curl_load_error(void) { return failure; }

CURL *bbs_curl_easy_init(void) { return curl.easy_init(); }
void bbs_curl_easy_cleanup(CURL *handle) { curl.easy_cleanup(handle); }
const char *bbs_curl_easy_strerror(CURLcode code) { return curl.easy_strerror(code); }

CURLcode bbs_curl_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl.easy_setopt(handle, option, value);
}

CURLcode bbs_curl_setopt_string(CURL *handle, CURLoption option, const char *value) {
    return curl.easy_setopt(handle, option, value);
}

CURLcode bbs_curl_setopt_pointer(CURL *handle, CURLoption option, void *value) {
    return curl.easy_setopt(handle, option, value);
}

CURLcode bbs_curl_setopt_write(CURL *handle, CURLoption option, bbs_curl_write_callback value) {
    return curl.easy_setopt(handle, option, value);
}

CURLcode bbs_curl_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return curl.easy_getinfo(handle, info, value);
}

CURLcode bbs_curl_getinfo_string(CURL *handle, CURLINFO info, char **value) {
    return curl.easy_getinfo(handle, info, value);
}

struct curl_slist *bbs_curl_slist_append(struct curl_slist *list, const char *string) {
    return curl.slist_append(list, string);
}

void bbs_curl_slist_free_all(struct curl_slist *list) { curl.slist_free_all(list); }

CURLM *bbs_curl_multi_init(void) { return curl.multi_init(); }
CURLMcode bbs_curl_multi_cleanup(CURLM *multi) { return curl.multi_cleanup(multi); }

CURLMcode bbs_curl_multi_setopt_long(CURLM *multi, CURLMoption option, long value) {
    return curl.multi_setopt(multi, option, value);
}

CURLMcode bbs_curl_multi_add_handle(CURLM *multi, CURL *handle) { return curl.multi_add_handle(multi, handle); }
CURLMcode bbs_curl_multi_remove_handle(CURLM *multi, CURL *handle) { return curl.multi_remove_handle(multi, handle); }
CURLMcode bbs_curl_multi_perform(CURLM *multi, int *running) { return curl.multi_perform(multi, running); }
CURLMsg *bbs_curl_multi_info_read(CURLM *multi, int *left) { return curl.multi_info_read(multi, left); }

CURLMcode bbs_curl_multi_poll(CURLM *multi, struct curl_waitfd *extra, unsigned int count, int timeout_ms, int *ready) {
    return curl.multi_poll(multi, extra, count, timeout_ms, ready);
}

CURLMcode bbs_curl_multi_wakeup(CURLM *multi) { return curl.multi_wakeup(multi); }
