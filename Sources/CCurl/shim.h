#ifndef BBSARCHIVE_CCURL_SHIM_H
#define BBSARCHIVE_CCURL_SHIM_H

#include <curl/curl.h>

/* curl_easy_setopt and curl_easy_getinfo are variadic, which Swift cannot
   call; these wrappers fix one argument type each. */

typedef size_t (*bbs_curl_write_callback)(char *data, size_t size, size_t count, void *userdata);

static inline CURLcode bbs_curl_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode bbs_curl_setopt_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode bbs_curl_setopt_pointer(CURL *handle, CURLoption option, void *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode bbs_curl_setopt_write(CURL *handle, CURLoption option, bbs_curl_write_callback value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLMcode bbs_curl_multi_setopt_long(CURLM *multi, CURLMoption option, long value) {
    return curl_multi_setopt(multi, option, value);
}

static inline CURLcode bbs_curl_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}

static inline CURLcode bbs_curl_getinfo_string(CURL *handle, CURLINFO info, char **value) {
    return curl_easy_getinfo(handle, info, value);
}

#endif
