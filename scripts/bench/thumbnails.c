/* Thumbnail libraries side by side: each image (read into memory first, as
   the build has it from the store) made 480 px wide and encoded as JPEG
   quality 80, as the build does. Built once per library (-DUSE_VIPS,
   -DUSE_MAGICK, -DUSE_PIXBUF) so each process's peak RSS is its own.
   scripts/bench/thumbnails.sh builds and runs it.

   usage: thumbnails IMAGE...   prints: library images total-ms ms-per-image peak-rss-kb out-bytes */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#define WIDTH 480

#if defined(USE_VIPS)
#include <vips/vips.h>
#define NAME "libvips"
static void start(char **argv) { if (VIPS_INIT(argv[0])) exit(1); vips_concurrency_set(1); }
static size_t thumb(const void *bytes, size_t length) {
    VipsImage *t = NULL;
    void *out = NULL;
    size_t n = 0;
    if (vips_thumbnail_buffer((void *)bytes, length, &t, WIDTH, "height", VIPS_MAX_COORD, "size", VIPS_SIZE_DOWN, NULL))
        return 0;
    if (vips_image_write_to_buffer(t, ".jpg", &out, &n, "Q", 80, "strip", TRUE, NULL)) n = 0;
    g_object_unref(t);
    g_free(out);
    return n;
}
#elif defined(USE_MAGICK)
#include <wand/MagickWand.h>
#define NAME "ImageMagick (MagickWand)"
static void start(char **argv) { (void)argv; MagickWandGenesis(); }
static size_t thumb(const void *bytes, size_t length) {
    MagickWand *w = NewMagickWand();
    size_t n = 0;
    if (MagickReadImageBlob(w, bytes, length) == MagickTrue) {
        size_t width = MagickGetImageWidth(w), height = MagickGetImageHeight(w);
        if (width > WIDTH) MagickThumbnailImage(w, WIDTH, height * WIDTH / width);
        MagickSetImageFormat(w, "JPEG");
        MagickSetImageCompressionQuality(w, 80);
        unsigned char *out = MagickGetImageBlob(w, &n);
        MagickRelinquishMemory(out);
    }
    DestroyMagickWand(w);
    return n;
}
#elif defined(USE_PIXBUF)
#include <gdk-pixbuf/gdk-pixbuf.h>
#define NAME "gdk-pixbuf"
static void start(char **argv) { (void)argv; }
static size_t thumb(const void *bytes, size_t length) {
    GInputStream *in = g_memory_input_stream_new_from_data(bytes, length, NULL);
    GdkPixbuf *p = gdk_pixbuf_new_from_stream(in, NULL, NULL);
    g_object_unref(in);
    if (!p) return 0;
    int width = gdk_pixbuf_get_width(p), height = gdk_pixbuf_get_height(p);
    GdkPixbuf *s = width > WIDTH ? gdk_pixbuf_scale_simple(p, WIDTH, height * WIDTH / width, GDK_INTERP_BILINEAR)
                                 : g_object_ref(p);
    gchar *out = NULL;
    gsize n = 0;
    if (!gdk_pixbuf_save_to_buffer(s, &out, &n, "jpeg", NULL, "quality", "80", NULL)) n = 0;
    g_free(out);
    g_object_unref(s);
    g_object_unref(p);
    return n;
}
#endif

int main(int argc, char **argv) {
    start(argv);
#if defined(USE_VIPS)
    /* thumbnails --jpeg-copies DIR SCALE IMAGE...: writes each image scaled
       by SCALE as DIR/N.jpg (quality 90), the camera photos a forum gets. */
    if (argc > 3 && strcmp(argv[1], "--jpeg-copies") == 0) {
        for (int i = 4; i < argc; i++) {
            VipsImage *in = vips_image_new_from_file(argv[i], NULL), *big = NULL;
            char path[4096];
            snprintf(path, sizeof path, "%s/%d.jpg", argv[2], i - 4);
            if (!in || vips_resize(in, &big, atof(argv[3]), NULL) || vips_image_write_to_file(big, path, "Q", 90, NULL))
                return 1;
            g_object_unref(big);
            g_object_unref(in);
        }
        return 0;
    }
#endif
    double total = 0;
    size_t bytes_out = 0;
    int count = 0;
    for (int i = 1; i < argc; i++) {
        FILE *f = fopen(argv[i], "rb");
        if (!f) { fprintf(stderr, "cannot read %s\n", argv[i]); return 1; }
        fseek(f, 0, SEEK_END);
        long length = ftell(f);
        fseek(f, 0, SEEK_SET);
        void *data = malloc(length);
        if (!data || fread(data, 1, length, f) != (size_t)length) { fprintf(stderr, "cannot read %s\n", argv[i]); return 1; }
        fclose(f);
        struct timespec a, b;
        clock_gettime(CLOCK_MONOTONIC, &a);
        size_t n = thumb(data, length);
        clock_gettime(CLOCK_MONOTONIC, &b);
        free(data);
        if (n == 0) { fprintf(stderr, "%s: no thumbnail of %s\n", NAME, argv[i]); return 1; }
        total += (b.tv_sec - a.tv_sec) * 1e3 + (b.tv_nsec - a.tv_nsec) / 1e6;
        bytes_out += n;
        count++;
    }
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    printf("%s\t%d\t%.1f\t%.1f\t%ld\t%zu\n", NAME, count, total, count ? total / count : 0, usage.ru_maxrss, bytes_out);
    return 0;
}
