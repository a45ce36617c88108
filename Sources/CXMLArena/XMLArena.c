#include "CXMLArena.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Blocks from malloc, newest first; each allocation is a 16-byte header
   holding its size, then the memory handed out, both multiples of 16 so
   that every pointer is aligned as malloc's are.

   A page of the bench (5 KB on average) takes 130-450 KB of libxml2's
   memory, input buffers and tables included, so the first block is big
   enough for most pages. First blocks are kept for the next document (a
   few, for all threads): malloc hands out blocks this big with mmap and
   gives them back with munmap, and the page faults of a fresh block cost
   more than the arena saves. */

enum { ALIGN = 16, HEADER = 16, FIRST_BLOCK = 256 * 1024, MAX_STEP = 4 * 1024 * 1024, KEPT_BLOCKS = 8 };

typedef struct block {
    struct block *next;
    char *start; /* the first header */
    char *end;
} block;

struct bbs_xml_arena {
    block *blocks;
    char *cursor;
    char *limit;
    char *last; /* the newest allocation, which realloc can grow in place */
    size_t step;
    size_t reserved;
    int spilled; /* malloc served a call made inside the arena */
};

/* initial-exec: the target is linked into the program, so the variable is
   read at a fixed offset from the thread pointer, with no __tls_get_addr
   call on every allocation. */
static _Thread_local bbs_xml_arena *current __attribute__((tls_model("initial-exec")));

/* Idle first blocks, for any thread. */
static pthread_mutex_t kept_lock = PTHREAD_MUTEX_INITIALIZER;
static block *kept[KEPT_BLOCKS];
static int kept_count;

static block *reuse_block(void) {
    block *b = NULL;
    pthread_mutex_lock(&kept_lock);
    if (kept_count > 0) b = kept[--kept_count];
    pthread_mutex_unlock(&kept_lock);
    return b;
}

/* Keeps a first block for later; 0 when there are enough already. */
static int keep_block(block *b) {
    int done = 0;
    pthread_mutex_lock(&kept_lock);
    if (kept_count < KEPT_BLOCKS) {
        kept[kept_count++] = b;
        done = 1;
    }
    pthread_mutex_unlock(&kept_lock);
    return done;
}

static size_t rounded(size_t size) { return (size + (ALIGN - 1)) & ~(size_t)(ALIGN - 1); }

static size_t *header_of(void *pointer) { return (size_t *)((char *)pointer - HEADER); }

static int owns(const bbs_xml_arena *arena, const void *pointer) {
    const char *p = pointer;
    for (const block *b = arena->blocks; b != NULL; b = b->next) {
        if (p >= b->start && p < b->end) return 1;
    }
    return 0;
}

/* A new block big enough for `need` bytes, made current; 0 on failure. */
static int grow(bbs_xml_arena *arena, size_t need) {
    size_t size = arena->step;
    if (size < need + ALIGN) size = need + ALIGN;
    size_t total = rounded(sizeof(block)) + size;
    if (total < size) return 0;
    block *b = size == FIRST_BLOCK ? reuse_block() : NULL;
    if (b == NULL) b = malloc(total);
    if (b == NULL) return 0;
    b->start = (char *)b + rounded(sizeof(block));
    b->end = b->start + size;
    b->next = arena->blocks;
    arena->blocks = b;
    arena->cursor = b->start;
    arena->limit = b->end;
    arena->last = NULL;
    arena->reserved += total;
    if (arena->step < MAX_STEP) arena->step *= 2;
    return 1;
}

static void *take(bbs_xml_arena *arena, size_t size) {
    if (size > SIZE_MAX - HEADER - ALIGN) return NULL;
    size_t need = HEADER + rounded(size == 0 ? 1 : size);
    if ((size_t)(arena->limit - arena->cursor) < need && !grow(arena, need)) return NULL;
    char *pointer = arena->cursor + HEADER;
    *header_of(pointer) = size;
    arena->cursor += need;
    arena->last = pointer;
    return pointer;
}

bbs_xml_arena *bbs_xml_arena_create(void) {
    bbs_xml_arena *arena = calloc(1, sizeof(bbs_xml_arena));
    if (arena != NULL) arena->step = FIRST_BLOCK;
    return arena;
}

void bbs_xml_arena_destroy(bbs_xml_arena *arena) {
    if (arena == NULL) return;
    block *b = arena->blocks;
    while (b != NULL) {
        block *next = b->next;
        if ((size_t)(b->end - b->start) != FIRST_BLOCK || !keep_block(b)) free(b);
        b = next;
    }
    free(arena);
}

bbs_xml_arena *bbs_xml_arena_enter(bbs_xml_arena *arena) {
    bbs_xml_arena *previous = current;
    current = arena;
    return previous;
}

void bbs_xml_arena_leave(bbs_xml_arena *previous) { current = previous; }

size_t bbs_xml_arena_reserved(const bbs_xml_arena *arena) { return arena == NULL ? 0 : arena->reserved; }

int bbs_xml_arena_spilled(const bbs_xml_arena *arena) { return arena == NULL || arena->spilled; }

/* The allocator over `arena` (NULL: malloc alone), for either library. */
static void *arena_malloc(bbs_xml_arena *arena, size_t size) {
    if (arena != NULL) {
        void *pointer = take(arena, size);
        if (pointer != NULL) return pointer;
        arena->spilled = 1;
    }
    return malloc(size);
}

static void arena_free(bbs_xml_arena *arena, void *pointer) {
    if (pointer == NULL) return;
    if (arena != NULL && owns(arena, pointer)) return; /* kept until the arena goes */
    free(pointer);
}

static void *arena_realloc(bbs_xml_arena *arena, void *pointer, size_t size) {
    if (pointer == NULL) return arena_malloc(arena, size);
    if (arena == NULL || !owns(arena, pointer)) {
        if (arena != NULL) arena->spilled = 1;
        return realloc(pointer, size);
    }
    size_t old = *header_of(pointer);
    if (size <= old) return pointer;
    /* The newest allocation grows in place while its block has room. */
    if ((char *)pointer == arena->last && size <= SIZE_MAX - ALIGN &&
        (size_t)(arena->limit - (char *)pointer) >= rounded(size)) {
        *header_of(pointer) = size;
        arena->cursor = (char *)pointer + rounded(size);
        return pointer;
    }
    void *moved = arena_malloc(arena, size);
    if (moved == NULL) return NULL;
    memcpy(moved, pointer, old);
    return moved;
}

void *bbs_xml_arena_malloc(size_t size) { return arena_malloc(current, size); }

void bbs_xml_arena_free(void *pointer) { arena_free(current, pointer); }

void *bbs_xml_arena_realloc(void *pointer, size_t size) { return arena_realloc(current, pointer, size); }

char *bbs_xml_arena_strdup(const char *string) {
    if (string == NULL) return NULL;
    size_t length = strlen(string) + 1;
    char *copy = bbs_xml_arena_malloc(length);
    if (copy != NULL) memcpy(copy, string, length);
    return copy;
}

/* cmark-gfm's: a thread's current arena of its own, so that libxml2 never
   allocates from a Markdown document's arena, nor cmark from a page's. */
static _Thread_local bbs_xml_arena *current_markdown __attribute__((tls_model("initial-exec")));

bbs_xml_arena *bbs_markdown_arena_enter(bbs_xml_arena *arena) {
    bbs_xml_arena *previous = current_markdown;
    current_markdown = arena;
    return previous;
}

void bbs_markdown_arena_leave(bbs_xml_arena *previous) { current_markdown = previous; }

void *bbs_markdown_arena_calloc(size_t count, size_t size) {
    if (size != 0 && count > SIZE_MAX / size) return NULL;
    bbs_xml_arena *arena = current_markdown;
    if (arena == NULL) return calloc(count, size);
    void *pointer = arena_malloc(arena, count * size);
    if (pointer != NULL) memset(pointer, 0, count * size);
    return pointer;
}

void *bbs_markdown_arena_realloc(void *pointer, size_t size) {
    return arena_realloc(current_markdown, pointer, size);
}

void bbs_markdown_arena_free(void *pointer) { arena_free(current_markdown, pointer); }
