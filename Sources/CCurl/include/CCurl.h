#ifndef BBSARCHIVE_CCURL_H
#define BBSARCHIVE_CCURL_H

/* libcurl, loaded at run time by the first fetch (bbs_curl_load), so that
   the commands that never fetch (build, status, serve, ...) do not load it
   and the ~30 libraries it depends on (TLS, Kerberos, LDAP, SSH, ...):
   ~7 ms of the dynamic loader's work on every run. Only libcurl's types and
   constants come from its header; every call goes through a pointer looked
   up in the library (Curl.c), so the program does not link against it. */

#include <curl/curl.h>

/* Loads libcurl.so.4 (or BBSARCHIVE_LIBCURL, a name or path) once, looks up
   every function below and calls curl_global_init. 0 on success; otherwise
   -1, and bbs_curl_load_error() says why (a static string). Thread-safe. */
int bbs_curl_load(void);
const char *bbs_curl_load_error(void);

/* The functions used, each with one fixed argument type where libcurl's is
   variadic (curl_easy_setopt, curl_easy_getinfo, curl_multi_setopt), which
   Swift cannot call. Valid only after bbs_curl_load returned 0. */
typedef size_t (*bbs_curl_write_callback)(char *data, size_t size, size_t count, void *userdata);

CURL *bbs_curl_easy_init(void);
void bbs_curl_easy_cleanup(CURL *handle);
const char *bbs_curl_easy_strerror(CURLcode code);
CURLcode bbs_curl_setopt_long(CURL *handle, CURLoption option, long value);
CURLcode bbs_curl_setopt_string(CURL *handle, CURLoption option, const char *value);
CURLcode bbs_curl_setopt_pointer(CURL *handle, CURLoption option, void *value);
CURLcode bbs_curl_setopt_write(CURL *handle, CURLoption option, bbs_curl_write_callback value);
CURLcode bbs_curl_getinfo_long(CURL *handle, CURLINFO info, long *value);
CURLcode bbs_curl_getinfo_string(CURL *handle, CURLINFO info, char **value);
struct curl_slist *bbs_curl_slist_append(struct curl_slist *list, const char *string);
void bbs_curl_slist_free_all(struct curl_slist *list);

CURLM *bbs_curl_multi_init(void);
CURLMcode bbs_curl_multi_cleanup(CURLM *multi);
CURLMcode bbs_curl_multi_setopt_long(CURLM *multi, CURLMoption option, long value);
CURLMcode bbs_curl_multi_add_handle(CURLM *multi, CURL *handle);
CURLMcode bbs_curl_multi_remove_handle(CURLM *multi, CURL *handle);
CURLMcode bbs_curl_multi_perform(CURLM *multi, int *running);
CURLMsg *bbs_curl_multi_info_read(CURLM *multi, int *left);
CURLMcode bbs_curl_multi_poll(CURLM *multi, struct curl_waitfd *extra, unsigned int count, int timeout_ms, int *ready);
CURLMcode bbs_curl_multi_wakeup(CURLM *multi);

#endif
