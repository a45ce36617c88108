#ifndef BBSARCHIVE_CVIPS_SHIM_H
#define BBSARCHIVE_CVIPS_SHIM_H

#include <stddef.h>
#include <vips/vips.h>

/* libvips's operations take their options as a NULL-terminated variadic
   list, which Swift cannot call: these wrappers fix the arguments. */

/// Starts libvips once per process (it is safe to call again); 0 on success.
static inline int bbs_vips_init(void) {
    if (VIPS_INIT("bbsarchive") != 0) return -1;
    /* The build already renders on every core: one thread per image. */
    vips_concurrency_set(1);
    return 0;
}

/// Keeps libvips's caches small: a build thumbnails each image once.
static inline void bbs_vips_quiet_cache(void) {
    vips_cache_set_max(0);
    vips_cache_set_max_mem(0);
}

/// Reads only the header of an image held in memory: its size, how many
/// frames it has (an animated GIF or WebP has more than one) and whether it
/// has an alpha channel. 0 on success, -1 when libvips cannot read it.
static inline int bbs_vips_probe(const void *bytes, size_t length, int *width, int *height, int *pages,
                                 int *alpha) {
    VipsImage *image = vips_image_new_from_buffer(bytes, length, "", "access", VIPS_ACCESS_SEQUENTIAL, NULL);
    if (image == NULL) {
        vips_error_clear();
        return -1;
    }
    *width = vips_image_get_width(image);
    *height = vips_image_get_height(image);
    *pages = vips_image_get_n_pages(image);
    *alpha = vips_image_hasalpha(image);
    g_object_unref(image);
    return 0;
}

/// A copy of the image `width` pixels wide (height in proportion), never
/// larger than the original, encoded as `format` (".jpg", ".png", ".webp")
/// with `quality` where the format has one. On success returns 0 and sets
/// `*out` (free it with `bbs_vips_free`) and `*out_length`; -1 otherwise.
static inline int bbs_vips_thumbnail(const void *bytes, size_t length, int width, const char *format, int quality,
                                     void **out, size_t *out_length) {
    VipsImage *thumbnail = NULL;
    /* No height limit: the width decides. VIPS_SIZE_DOWN never enlarges. */
    if (vips_thumbnail_buffer((void *)bytes, length, &thumbnail, width, "height", VIPS_MAX_COORD, "size",
                              VIPS_SIZE_DOWN, NULL) != 0) {
        vips_error_clear();
        return -1;
    }
    int result = vips_image_write_to_buffer(thumbnail, format, out, out_length, "Q", quality, "strip", TRUE, NULL);
    g_object_unref(thumbnail);
    if (result != 0) {
        vips_error_clear();
        return -1;
    }
    return 0;
}

/// Frees what `bbs_vips_thumbnail` returned.
static inline void bbs_vips_free(void *pointer) {
    g_free(pointer);
}

#endif
