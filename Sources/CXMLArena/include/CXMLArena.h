#ifndef BBSARCHIVE_CXMLARENA_H
#define BBSARCHIVE_CXMLARENA_H

#include <stddef.h>

/* A per-document arena behind libxml2's allocator.

   libxml2 builds a page's tree with one malloc per node, attribute, name and
   text, and frees them one by one; at the parser's scale that was a quarter
   of the CPU a page took. Installed with xmlMemSetup (once per process,
   before any parse), these functions hand out memory from the arena that is
   current on the calling thread, or from malloc when none is: every thread
   and every caller of libxml2 that has not entered an arena gets malloc's
   memory, exactly as before.

   Rules, which HTMLDocument keeps:
   - Enter an arena only around libxml2 calls that build or free one
     document (htmlReadMemory, xmlFreeDoc), on one thread, and leave it
     before returning to other code.
   - Nothing allocated inside the arena may outlive it: the thread's last
     error (xmlResetLastError) is cleared before leaving.
   - Memory from malloc freed inside an arena goes back to malloc; memory
     of the current arena freed inside it is simply kept until the arena is
     destroyed. */

typedef struct bbs_xml_arena bbs_xml_arena;

/// A new, empty arena (NULL when out of memory: libxml2 then uses malloc).
bbs_xml_arena *bbs_xml_arena_create(void);

/// Frees every block the arena handed out, and the arena.
void bbs_xml_arena_destroy(bbs_xml_arena *arena);

/// Makes `arena` the calling thread's current arena (NULL: none) and
/// returns the one it replaces, for bbs_xml_arena_leave.
bbs_xml_arena *bbs_xml_arena_enter(bbs_xml_arena *arena);

/// Restores the arena bbs_xml_arena_enter returned.
void bbs_xml_arena_leave(bbs_xml_arena *previous);

/// The allocator for xmlMemSetup(free, malloc, realloc, strdup).
void bbs_xml_arena_free(void *pointer);
void *bbs_xml_arena_malloc(size_t size);
void *bbs_xml_arena_realloc(void *pointer, size_t size);
char *bbs_xml_arena_strdup(const char *string);

/// Whether malloc served any allocation or realloc made while the arena
/// was current (the arena could not grow, or a block from outside it was
/// resized), so that not all of a document's memory is in it; 1 for NULL.
int bbs_xml_arena_spilled(const bbs_xml_arena *arena);

/// Bytes the arena has taken from malloc (its blocks), for tests.
size_t bbs_xml_arena_reserved(const bbs_xml_arena *arena);

/* The same arena behind cmark-gfm's allocator, for one Markdown document
   (MarkdownDocument): its nodes, their text and the rendered text. cmark
   takes its allocator as a cmark_mem of these three functions, which
   allocate from the arena that is current for Markdown on the calling
   thread (bbs_markdown_arena_enter, apart from libxml2's), or from malloc
   when none is. A document's tree is then freed whole with its arena, not
   node by node (when bbs_xml_arena_spilled says malloc served none of it).
   Enter the document's arena around every cmark call that builds, renders
   or frees its tree, and leave it before returning to other code. */
bbs_xml_arena *bbs_markdown_arena_enter(bbs_xml_arena *arena);
void bbs_markdown_arena_leave(bbs_xml_arena *previous);
void *bbs_markdown_arena_calloc(size_t count, size_t size);
void *bbs_markdown_arena_realloc(void *pointer, size_t size);
void bbs_markdown_arena_free(void *pointer);

#endif
