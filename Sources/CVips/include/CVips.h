#ifndef BBSARCHIVE_CVIPS_H
#define BBSARCHIVE_CVIPS_H

#include <stddef.h>

/* Thumbnails through libvips, loaded with dlopen the first time an image is
   probed or thumbnailed. Linking libvips would load it and the ~80 libraries
   it needs (glib, cairo, pango, OpenEXR, HDF5, …) at the start of every run,
   about 26 ms of CPU, although only a build with new images uses them; a
   fetch or a build without new images never does. */

/// Loads and starts libvips once per process (safe to call again): the
/// library named by the environment variable BBSARCHIVE_LIBVIPS when it is
/// set, libvips.so.42 otherwise. 0 on success, -1 when libvips is not
/// installed or is not the ABI expected.
int bbs_vips_init(void);

/// Keeps libvips's caches small: a build thumbnails each image once.
void bbs_vips_quiet_cache(void);

/// Reads only the header of an image held in memory: its size, how many
/// frames it has (an animated GIF or WebP has more than one) and whether it
/// has an alpha channel. 0 on success, -1 when libvips cannot read it.
int bbs_vips_probe(const void *bytes, size_t length, int *width, int *height, int *pages, int *alpha);

/// A copy of the image `width` pixels wide (height in proportion), never
/// larger than the original, encoded as `format` (".jpg", ".png", ".webp")
/// with `quality` where the format has one. On success returns 0 and sets
/// `*out` (free it with `bbs_vips_free`) and `*out_length`; -1 otherwise.
int bbs_vips_thumbnail(const void *bytes, size_t length, int width, const char *format, int quality, void **out,
                       size_t *out_length);

/// Frees what `bbs_vips_thumbnail` returned.
void bbs_vips_free(void *pointer);

#endif
