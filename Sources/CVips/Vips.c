#include "CVips.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>

/* libvips's own declarations are not included (they need glib's headers and
   would make the library a link dependency); these are the few calls used,
   through pointers looked up in the library loaded at run time. Variadic
   calls take a NULL-terminated list of option names and values. */

typedef struct VipsImage VipsImage;

/* Values of libvips's enums and constants (vips/image.h, vips/resample.h). */
enum { BBS_VIPS_ACCESS_SEQUENTIAL = 1, BBS_VIPS_SIZE_DOWN = 2, BBS_VIPS_MAX_COORD = 10000000 };

/* The ABI of libvips.so.42 (VIPS_LIBRARY_CURRENT - VIPS_LIBRARY_AGE). */
enum { BBS_VIPS_ABI = 42 };

static struct {
    int (*version)(int flag);
    int (*init)(const char *argv0);
    void (*concurrency_set)(int concurrency);
    void (*cache_set_max)(int max);
    void (*cache_set_max_mem)(size_t max_mem);
    void (*error_clear)(void);
    VipsImage *(*image_new_from_buffer)(const void *buf, size_t len, const char *option_string, ...);
    int (*image_get_width)(const VipsImage *image);
    int (*image_get_height)(const VipsImage *image);
    int (*image_get_n_pages)(VipsImage *image);
    int (*image_hasalpha)(VipsImage *image);
    int (*thumbnail_buffer)(void *buf, size_t len, VipsImage **out, int width, ...);
    int (*image_write_to_buffer)(VipsImage *in, const char *suffix, void **buf, size_t *size, ...);
    void (*object_unref)(void *object);
    void (*free)(void *pointer);
} vips;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int started = -1;

static int load(void) {
    static const char *const names[] = {"libvips.so.42", "libvips.42.dylib"};
    void *library = NULL;
    /* BBSARCHIVE_LIBVIPS names the library instead (a path, or another name). */
    const char *chosen = getenv("BBSARCHIVE_LIBVIPS");
    if (chosen != NULL && chosen[0] != '\0') {
        library = dlopen(chosen, RTLD_NOW | RTLD_LOCAL);
    } else {
        for (size_t i = 0; i < sizeof names / sizeof names[0] && library == NULL; i++) {
            library = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
        }
    }
    if (library == NULL) return -1;
    /* dlsym on the handle also finds glib's and gobject's symbols, which libvips depends on. */
#define BBS_FIND(field, symbol)                                                                                \
    if ((*(void **)&vips.field = dlsym(library, symbol)) == NULL) return -1;
    BBS_FIND(version, "vips_version")
    BBS_FIND(init, "vips_init")
    BBS_FIND(concurrency_set, "vips_concurrency_set")
    BBS_FIND(cache_set_max, "vips_cache_set_max")
    BBS_FIND(cache_set_max_mem, "vips_cache_set_max_mem")
    BBS_FIND(error_clear, "vips_error_clear")
    BBS_FIND(image_new_from_buffer, "vips_image_new_from_buffer")
    BBS_FIND(image_get_width, "vips_image_get_width")
    BBS_FIND(image_get_height, "vips_image_get_height")
    BBS_FIND(image_get_n_pages, "vips_image_get_n_pages")
    BBS_FIND(image_hasalpha, "vips_image_hasalpha")
    BBS_FIND(thumbnail_buffer, "vips_thumbnail_buffer")
    BBS_FIND(image_write_to_buffer, "vips_image_write_to_buffer")
    BBS_FIND(object_unref, "g_object_unref")
    BBS_FIND(free, "g_free")
#undef BBS_FIND
    /* What VIPS_INIT checks: the library's ABI is the one these calls are for. */
    if (vips.version(3) - vips.version(5) != BBS_VIPS_ABI) return -1;
    if (vips.init("bbsarchive") != 0) return -1;
    /* The build already renders on every core: one thread per image. */
    vips.concurrency_set(1);
    return 0;
}

static void start(void) { started = load(); }

int bbs_vips_init(void) {
    pthread_once(&once, start);
    return started;
}

void bbs_vips_quiet_cache(void) {
    if (bbs_vips_init() != 0) return;
    vips.cache_set_max(0);
    vips.cache_set_max_mem(0);
}

int bbs_vips_probe(const void *bytes, size_t length, int *width, int *height, int *pages, int *alpha) {
    if (bbs_vips_init() != 0) return -1;
    VipsImage *image =
        vips.image_new_from_buffer(bytes, length, "", "access", BBS_VIPS_ACCESS_SEQUENTIAL, (const char *)NULL);
    if (image == NULL) {
        vips.error_clear();
        return -1;
    }
    *width = vips.image_get_width(image);
    *height = vips.image_get_height(image);
    *pages = vips.image_get_n_pages(image);
    *alpha = vips.image_hasalpha(image);
    vips.object_unref(image);
    return 0;
}

int bbs_vips_thumbnail(const void *bytes, size_t length, int width, const char *format, int quality, void **out,
                       size_t *out_length) {
    if (bbs_vips_init() != 0) return -1;
    VipsImage *thumbnail = NULL;
    /* No height limit: the width decides. VIPS_SIZE_DOWN never enlarges. */
    if (vips.thumbnail_buffer((void *)bytes, length, &thumbnail, width, "height", BBS_VIPS_MAX_COORD, "size",
                              BBS_VIPS_SIZE_DOWN, (const char *)NULL) != 0) {
        vips.error_clear();
        return -1;
    }
    int result = vips.image_write_to_buffer(thumbnail, format, out, out_length, "Q", quality, "strip", 1,
                                            (const char *)NULL);
    vips.object_unref(thumbnail);
    if (result != 0) {
        vips.error_clear();
        return -1;
    }
    return 0;
}

void bbs_vips_free(void *pointer) {
    if (pointer != NULL && bbs_vips_init() == 0) vips.free(pointer);
}
